import type { PromptStore } from '../../table/read-path/api-store';
import { isValidPromptId, toPromptBody } from '../../domain/prompt';
import { isInScope } from '../../domain/prompt-scope';
import { isValidVersion } from '../../domain/version';
import { badRequest, labelNotFound, promptNotFound, versionNotFound } from '../../http/api-error';
import { ifNoneMatchMatches, strongEtag } from '../etag';
import { labelOf } from '../label-query';
import { emptyResponse, JSON_CONTENT_TYPE, PINNED_CACHE_CONTROL, REVALIDATE_CACHE_CONTROL } from '../../http/responses';
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
    const label = labelOf(request);
    if (version !== undefined && request.query.label !== undefined) throw badRequest('give version or label, not both');

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

    const body = JSON.stringify(toPromptBody(lookup.prompt));
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
