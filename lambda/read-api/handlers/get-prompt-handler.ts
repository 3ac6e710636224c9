import type { AtLabel, PromptLookup, PromptReader, PromptStore } from '../store/api-store';
import { isValidPromptId, type Prompt, toPromptBody } from '../../domain/prompt';
import { isInScope } from '../../domain/prompt-scope';
import { isValidVersion } from '../../domain/version';
import { badRequest, labelNotFound, promptNotFound, versionNotFound } from '../../http/api-error';
import { ifNoneMatchMatches, strongEtag } from '../etag';
import { labelFrom } from '../label-query';
import { emptyResponse, JSON_CONTENT_TYPE, PINNED_CACHE_CONTROL, REVALIDATE_CACHE_CONTROL } from '../../http/responses';
import { choose, type RolloutAnswer, rolloutField, type ServedPrompt } from '../served-rollouts';
import type { RouteForesight, RouteHandler } from './route-handler';

/** One prompt as a caller names it: at a version, at a label, or (neither) at its latest. */
export interface PromptRead {
  readonly promptId: string;
  readonly version?: string | undefined;
  readonly label?: string | undefined;
}

/** A found prompt with its label's rollout, when the read was at a rolling-out label. */
export const atLabelOf = (lookup: PromptLookup & { found: true }): AtLabel<Prompt> =>
  lookup.rollout ? { ...lookup.prompt, rollout: lookup.rollout } : lookup.prompt;

/**
 * The prompt a read names, or the error the read API answers for it (400 for a malformed name, 404 for
 * what the key cannot see), checked in the order docs/behaviour-rules.md, "Status codes and error codes" fixes.
 * At a rolling-out label, the side the request's subject gets (docs/rollouts.md "Serving").
 */
export async function readPrompt(store: PromptStore, reader: PromptReader, read: PromptRead, rollouts: RolloutAnswer): Promise<ServedPrompt> {
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
  return rollouts.choose(atLabelOf(lookup));
}

/** A read at a label that memory answers: the side it serves, decided now, so the admission counts it. */
export const foreseeGetPrompt: RouteForesight<'getPrompt'> = ({ route: { promptId }, request, reader, sides, remembered }) => {
  if (request.query.version !== undefined || !isValidPromptId(promptId) || !isInScope(reader.scope, promptId)) return [];
  const label = labelFrom(request.query.label);
  const lookup = label === undefined ? undefined : remembered.rememberedLabelledPrompt(reader, promptId, label);
  return lookup?.found ? [choose(sides, atLabelOf(lookup))] : [];
};

export const getPrompt =
  (store: PromptStore): RouteHandler<'getPrompt'> =>
  async ({ route: { promptId }, request, reader, rollouts }) => {
    const version = request.query.version;
    const served = await readPrompt(store, reader, { promptId, version, label: request.query.label }, rollouts);
    rollouts.record(served);

    const body = JSON.stringify({ ...toPromptBody(served.prompt), ...rolloutField(served) });
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
