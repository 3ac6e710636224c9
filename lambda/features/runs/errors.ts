import type { ModelCallError } from '../../models/errors';
import type { RunRecord } from './run-record';

/** A run asked for with something wrong in it (400, naming `field`: `variables.name`, `params.temperature`, `model`). */
export class InvalidRunError extends Error {
  override readonly name = 'InvalidRunError';
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(`${field}: ${message}`);
  }
}

/**
 * The model failed the run (502 MODEL_ERROR, 503 MODEL_THROTTLED, 504 MODEL_TIMEOUT as `failure` says): the run is
 * kept as `failed`, and answered with its id.
 */
export class RunFailedError extends Error {
  override readonly name = 'RunFailedError';
  constructor(
    readonly run: RunRecord,
    readonly failure: ModelCallError,
  ) {
    super(failure.message);
  }
}
