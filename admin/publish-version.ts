import type { Operations } from '../lambda/operations';
import type { Table } from '../lambda/table/table';
import { ConflictError, NotFoundError } from '../lambda/table/errors';
import type { PromptHeadItem } from '../lambda/table/item-types';
import { readVersion, StaleDraftError, type StoredVersionContent, type VersionContent } from '../lambda/features/prompts/authoring';
import { keys } from '../lambda/table/schema';
import { sameContent } from './table/import-plan';
import { ImmutableVersionError, deletedPromptMessage } from '../lambda/features/errors';

/**
 * How the CLI publishes (`prompts publish`, `prompts rollback`, `prompts push`): as steps of the operations the
 * management API makes, each audited as the operator's, ending in the same `publish` the API's publish route calls.
 * There is no other way the CLI publishes a version.
 */

export interface PublishRequest {
  readonly promptId: string;
  readonly version: string;
  /** The version's content; without it, the stored draft of that version is published. */
  readonly content?: VersionContent;
  /** Needed when the prompt does not exist yet; renames it otherwise. */
  readonly promptName?: string;
  /** The release note, as the API asks people for one. */
  readonly note: string;
}

export type PublishOutcome = 'published' | 'already-published';

/** Reads again and decides again this many times when someone else wrote the prompt or the version meanwhile. */
const ATTEMPTS = 3;

/** Someone else created the prompt, or wrote or published the version, between the reads and the writes. */
const RACED = Symbol('raced');

/**
 * Publishes one version: a new one from its content (written as a draft, then published), or a stored draft
 * (saved over first when other content is given). A version already published with this content is left as it
 * is; with other content it is refused, published versions never change. A new prompt is created first (it
 * needs a name); a deleted one is refused, naming the way back. Publishes racing each other all land: latest
 * only ever moves up (lambda/features/prompts/authoring.ts latestBelow).
 */
export async function publishVersion(ops: Operations, table: Table, accountId: string, request: PublishRequest): Promise<PublishOutcome> {
  for (let attempt = 1; ; attempt += 1) {
    const outcome = await publishOnce(ops, table, accountId, request, attempt === ATTEMPTS);
    if (outcome !== RACED) return outcome;
  }
}

/**
 * Writes the content as a new draft of the version and publishes it. Until the publish nothing is served
 * differently, so a failed publish takes the draft back and leaves the prompt as it was.
 */
export async function publishNewVersion(
  ops: Operations,
  accountId: string,
  promptId: string,
  version: string,
  content: VersionContent,
  note: string,
): Promise<void> {
  const draft = await ops.prompts.createDraft(accountId, promptId, version, content);
  try {
    await ops.prompts.publish(accountId, promptId, version, draft.etag, note);
  } catch (error) {
    await ops.prompts.deleteDraft(accountId, promptId, version, draft.etag).catch(() => undefined);
    throw error;
  }
}

async function publishOnce(
  ops: Operations,
  table: Table,
  accountId: string,
  request: PublishRequest,
  lastAttempt: boolean,
): Promise<PublishOutcome | typeof RACED> {
  const { promptId, version, content, promptName, note } = request;
  const head = await table.get<PromptHeadItem>('publishVersion', keys.promptHead(accountId, promptId));
  if (head?.deleted === true) throw new ConflictError(deletedPromptMessage(accountId, promptId));
  const stored = head ? await storedVersion(table, accountId, promptId, version) : undefined;
  const rename = async () => {
    if (head && promptName !== undefined && promptName !== head.promptName) await ops.prompts.updateDetails(accountId, promptId, { promptName });
  };
  if (stored?.published) {
    if (content && !same(stored, content, version)) {
      throw new ImmutableVersionError(
        `version ${version} of prompt ${promptId} of account ${accountId} is published and cannot change: publish a new version instead`,
      );
    }
    await rename();
    return 'already-published';
  }
  if (!stored && !content) {
    throw new NotFoundError(`prompt ${promptId} of account ${accountId} has no version ${version}: give its content to publish it`);
  }
  if (!head && promptName === undefined) {
    throw new ConflictError(`prompt ${promptId} of account ${accountId} does not exist, and a name is needed to create it (--name)`);
  }
  try {
    if (!head) await ops.prompts.create(accountId, { promptId, promptName: promptName as string });
    if (!stored) {
      await publishNewVersion(ops, accountId, promptId, version, content as VersionContent, note);
    } else {
      // A stored draft: saved over with the content given if it differs, then published.
      const changed = content !== undefined && !same(stored, content, version);
      const etag = changed ? (await ops.prompts.replaceDraft(accountId, promptId, version, content, stored.etag)).etag : stored.etag;
      await ops.prompts.publish(accountId, promptId, version, etag, note);
    }
  } catch (error) {
    // The prompt exists already, the version is a draft or published already, the draft was saved since: read again.
    if (!lastAttempt && (error instanceof StaleDraftError || error instanceof ConflictError)) return RACED;
    throw error;
  }
  await rename();
  return 'published';
}

async function storedVersion(table: Table, accountId: string, promptId: string, version: string): Promise<StoredVersionContent | undefined> {
  try {
    return await readVersion(table, accountId, promptId, version);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

const same = (stored: StoredVersionContent, content: VersionContent, version: string): boolean => sameContent({ ...stored, version }, { ...content, version });
