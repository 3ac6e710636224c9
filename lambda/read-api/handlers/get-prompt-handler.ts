import type { PromptReader, PromptStore } from '../../table/read-path/api-store';
import { isValidPromptId, type Prompt, toPromptBody } from '../../domain/prompt';
import { isInScope } from '../../domain/prompt-scope';
import { isValidVersion } from '../../domain/version';
import { badRequest, labelNotFound, promptNotFound, versionNotFound } from '../../http/api-error';
import { ifNoneMatchMatches, strongEtag } from '../etag';
import { labelFrom } from '../label-query';
import { emptyResponse, JSON_CONTENT_TYPE, PINNED_CACHE_CONTROL, REVALIDATE_CACHE_CONTROL } from '../../http/responses';
import type { RouteHandler } from './route-handler';

/** One prompt as a caller names it: at a version, at a label, or (neither) at its latest. */
export interface PromptRead {
  readonly promptId: string;
  readonly version?: string | undefined;
  readonly label?: string | undefined;
}

/**
 * The prompt a read names, or the error the read API answers for it (400 for a malformed name, 404 for
 * what the key cannot see), checked in the order docs/behaviour-rules.md, "Status codes and error codes" fixes.
 */
export async function readPrompt(store: PromptStore, reader: PromptReader, read: PromptRead): Promise<Prompt> {
  const { promptId, version } = read;
  if (!isValidPromptId(promptId)) {
    throw badRequest('promptId must be 1 to 128 characters of A-Z, a-z, 0-9, "_", "." or "-"');
  }
  if (version !== undefined && !isValidVersion(version)) {
    throw badRequest('version must be MAJOR.MINOR.PATCH: digits only, no leading zeros, at most 9 digits each');
  }
  const label = labelFrom(read.label);
  if (version !== undefined && read.label !== undefined) throw badRequest('give version or label, not both');

  // Outside the key's scope a prompt is exactly as absent as one that does not exist.
  if (!isInScope(reader.scope, promptId)) throw promptNotFound(promptId);
  const lookup =
    version !== undefined
      ? await store.findPromptVersion(reader, promptId, version)
      : label !== undefined
        ? await store.findLabelledPrompt(reader, promptId, label)
        : await store.findLatestPrompt(reader, promptId);
  if (!lookup.found) {
    if (lookup.reason === 'version-not-found' && version !== undefined) throw versionNotFound(promptId, version);
    if (lookup.reason === 'label-not-found' && label !== undefined) throw labelNotFound(promptId, label);
    throw promptNotFound(promptId);
  }
  return lookup.prompt;
}

export const getPrompt =
  (store: PromptStore): RouteHandler<'getPrompt'> =>
  async ({ route: { promptId }, request, reader }) => {
    const version = request.query.version;
    const prompt = await readPrompt(store, reader, { promptId, version, label: request.query.label });

    const body = JSON.stringify(toPromptBody(prompt));
    const headers = {
      ETag: strongEtag(body),
      // Only a pinned version never changes: latest moves with a publish, a label with a move.
      'Cache-Control': version === undefined ? REVALIDATE_CACHE_CONTROL : PINNED_CACHE_CONTROL,
      // The body depends on whose key asked: a browser cache must not hand one key's answer to another.
      Vary: 'Authorization',
    };
    if (ifNoneMatchMatches(request.headers['if-none-match'], headers.ETag)) {
      return emptyResponse(304, headers);
    }
    return { statusCode: 200, headers: { 'Content-Type': JSON_CONTENT_TYPE, ...headers }, body };
  };
