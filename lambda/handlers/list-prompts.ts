import type { PromptStore } from '../data/store';
import { toPromptBody } from '../domain/prompt';
import { badRequest } from '../http/api-error';
import { ifNoneMatchMatches, strongEtag } from '../http/etag';
import { emptyResponse, JSON_CONTENT_TYPE } from '../http/responses';
import { REVALIDATE_CACHE_CONTROL } from './get-prompt';
import type { RouteHandler } from './route-handler';

function includeVersionsOf(value: string | undefined): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw badRequest('include_versions must be true or false');
}

export const listPrompts =
  (store: PromptStore): RouteHandler<'listPrompts'> =>
  async ({ request, principal }) => {
    const includeVersions = includeVersionsOf(request.query.include_versions);
    const body = JSON.stringify(
      includeVersions
        ? (await store.listPromptsWithVersions(principal.accountId)).map((prompt) => ({
            ...toPromptBody(prompt),
            publishedVersions: prompt.publishedVersions,
          }))
        : (await store.listPrompts(principal.accountId)).map(toPromptBody),
    );
    // One conditional request revalidates every prompt of the account at once. The tag names the
    // uncompressed text; middleware/compression.ts gives the gzipped one a tag of its own, and
    // answers a match on that one with 304 too.
    const headers = {
      ETag: strongEtag(body),
      'Cache-Control': REVALIDATE_CACHE_CONTROL,
      Vary: 'Authorization, Accept-Encoding',
    };
    if (ifNoneMatchMatches(request.headers['if-none-match'], headers.ETag)) return emptyResponse(304, headers);
    return { statusCode: 200, headers: { 'Content-Type': JSON_CONTENT_TYPE, ...headers }, body };
  };
