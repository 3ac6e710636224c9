import type { PromptStore } from '../data/store';
import { isValidPromptId, toPromptBody } from '../domain/prompt';
import { isInScope } from '../domain/prompt-scope';
import { isValidVersion } from '../domain/version';
import { badRequest, promptNotFound, versionNotFound } from '../http/api-error';
import { ifNoneMatchMatches, strongEtag } from '../http/etag';
import { emptyResponse, JSON_CONTENT_TYPE, PINNED_CACHE_CONTROL, REVALIDATE_CACHE_CONTROL } from '../http/responses';
import type { RouteHandler } from './route-handler';


export const getPrompt =
  (store: PromptStore): RouteHandler<'getPrompt'> =>
  async ({ route: { promptId }, request, reader }) => {
    if (!isValidPromptId(promptId)) {
      throw badRequest('promptId must be 1 to 128 characters of A-Z, a-z, 0-9, "_", "." or "-"');
    }
    const version = request.query.version;
    if (version !== undefined && !isValidVersion(version)) {
      throw badRequest('version must be MAJOR.MINOR.PATCH: digits only, no leading zeros, at most 9 digits each');
    }

    // Outside the key's scope a prompt is exactly as absent as one that does not exist.
    if (!isInScope(reader.scope, promptId)) throw promptNotFound(promptId);
    const lookup =
      version === undefined
        ? await store.findLatestPrompt(reader, promptId)
        : await store.findPromptVersion(reader, promptId, version);
    if (!lookup.found) {
      throw lookup.reason === 'version-not-found' && version !== undefined
        ? versionNotFound(promptId, version)
        : promptNotFound(promptId);
    }

    const body = JSON.stringify(toPromptBody(lookup.prompt));
    const headers = {
      ETag: strongEtag(body),
      'Cache-Control': version === undefined ? REVALIDATE_CACHE_CONTROL : PINNED_CACHE_CONTROL,
      // The body depends on whose key asked: a browser cache must not hand one key's answer to another.
      Vary: 'Authorization',
    };
    if (ifNoneMatchMatches(request.headers['if-none-match'], headers.ETag)) {
      return emptyResponse(304, headers);
    }
    return { statusCode: 200, headers: { 'Content-Type': JSON_CONTENT_TYPE, ...headers }, body };
  };
