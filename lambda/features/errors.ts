import { ConflictError, NotFoundError } from '../table/errors';

/**
 * The refusals the rules make, each a ConflictError (409) or a NotFoundError (404) of storage's, or a 400 naming the
 * field that is wrong: what each means over HTTP and in the audit log is the operations' reasonOf.
 */

/** A published version never changes. */
export class ImmutableVersionError extends ConflictError {
  override readonly name: string = 'ImmutableVersionError';
}

/** Publishing to (or labelling) a deleted prompt is refused, naming the way back. */
export function deletedPromptMessage(accountId: string, promptId: string): string {
  return `prompt ${promptId} of account ${accountId} is deleted: restore it first (prompts restore --account ${accountId} --prompt ${promptId})`;
}

/** The account has no such prompt (or the account does not exist). */
export class PromptMissingError extends NotFoundError {
  override readonly name: string = 'PromptMissingError';
  constructor(
    readonly accountId: string,
    readonly promptId: string,
  ) {
    super(`account ${accountId} has no prompt ${promptId}`);
  }
}

/** A deleted prompt takes no new label; restoring it brings back the ones it had. */
export class PromptDeletedError extends ConflictError {
  override readonly name: string = 'PromptDeletedError';
  constructor(
    readonly accountId: string,
    readonly promptId: string,
  ) {
    super(deletedPromptMessage(accountId, promptId));
  }
}

/** Only a published version can be labelled: a draft (`draft: true`) or a version never stored cannot. */
export class VersionNotPublishedError extends ConflictError {
  override readonly name: string = 'VersionNotPublishedError';
  constructor(
    readonly accountId: string,
    readonly promptId: string,
    readonly version: string,
    readonly draft: boolean,
  ) {
    super(
      draft
        ? `version ${version} of prompt ${promptId} (account ${accountId}) is a draft: only a published version can be labelled`
        : `prompt ${promptId} of account ${accountId} has no version ${version}: only a published version can be labelled`,
    );
  }
}

/** Not a name a label may have (docs/cli.md "Labels"); `latest` is reserved. */
export class InvalidLabelError extends Error {
  override readonly name: string = 'InvalidLabelError';
  constructor(
    readonly label: string,
    rule: string,
  ) {
    super(`label must be ${rule}; "latest" is reserved for the highest published version`);
  }
}

/**
 * A label that rolls out moves only through its rollout (docs/rollouts.md): a direct move or removal, a push
 * or a change request of it is refused until the rollout is completed or aborted.
 */
export class RolloutActiveError extends ConflictError {
  override readonly name: string = 'RolloutActiveError';
  constructor(
    readonly promptId: string,
    readonly label: string,
    readonly rolloutId: string,
  ) {
    super(`label ${label} of prompt ${promptId} is rolling out (${rolloutId}): complete or abort the rollout first`);
  }
}

/** A rollout asked for with a share, steps or a version that are not valid (400, naming `field`). */
export class InvalidRolloutError extends Error {
  override readonly name: string = 'InvalidRolloutError';
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(`${field}: ${message}`);
  }
}

/** A webhook's setting that is not valid, or a URL the destination policy refuses (400, naming `field`). */
export class InvalidWebhookError extends Error {
  override readonly name: string = 'InvalidWebhookError';
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(`${field}: ${message}`);
  }
}

/** A page asked for below a cursor that no page of that list gave (400, naming `field`). */
export class InvalidCursorError extends Error {
  override readonly name: string = 'InvalidCursorError';
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(`${field}: ${message}`);
  }
}
