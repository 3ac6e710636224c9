import { BedrockError } from './bedrock-errors';
import type { Operation } from './rule';

/**
 * Bedrock Runtime's two routes the stand-in serves, as the SDK calls them: `POST /model/{modelId}/converse`
 * and `POST /model/{modelId}/converse-stream`, the model id URL-encoded into one path segment (an
 * inference profile's ARN, `arn:aws:bedrock:...:inference-profile/us.anthropic...`, arrives as `arn%3Aaws...%2Fus...`).
 */
export interface Route {
  readonly modelId: string;
  readonly operation: Operation;
}

/** Bedrock's bound on a model id (an id, an ARN, an inference profile). */
const MAX_MODEL_ID_LENGTH = 2_048;
const MODEL_PATH = /^\/model\/([^/]+)\/(converse|converse-stream)$/;

/** The route of a request, or the error Bedrock answers a request that is none of its operations. */
export function routeOf(method: string, target: string): Route {
  const path = target.split('?', 1)[0] ?? '';
  const match = MODEL_PATH.exec(path);
  if (!match)
    throw new BedrockError(
      'UnknownOperationException',
      `The local stand-in model serves POST /model/{modelId}/converse and /converse-stream only, not ${path.slice(0, 200)}.`,
    );
  if (method !== 'POST') throw new BedrockError('UnknownOperationException', `${match[2]} is called with POST, not ${method}.`, 405);
  let modelId: string;
  try {
    modelId = decodeURIComponent(match[1] ?? '');
  } catch {
    throw new BedrockError('ValidationException', 'The model id in the path is not a valid URL-encoded string.');
  }
  if (modelId.length > MAX_MODEL_ID_LENGTH) {
    throw new BedrockError(
      'ValidationException',
      `1 validation error detected: Value at 'modelId' failed to satisfy constraint: Member must have length less than or equal to ${MAX_MODEL_ID_LENGTH}`,
    );
  }
  return { modelId, operation: match[2] === 'converse' ? 'converse' : 'converse-stream' };
}
