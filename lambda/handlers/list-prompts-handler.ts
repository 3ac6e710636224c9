import type { PromptStore } from '../data/store';
import { type Prompt, toPromptBody } from '../domain/prompt';
import { isInScope } from '../domain/prompt-scope';
import { badRequest } from '../http/api-error';
import { ifNoneMatchMatches, strongEtag } from '../http/etag';
import { emptyResponse, JSON_CONTENT_TYPE, REVALIDATE_CACHE_CONTROL } from '../http/responses';
import type { RouteHandler } from './route-handler';

function includeVersionsOf(value: string | undefined): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw badRequest('include_versions must be true or false');
}

export const listPrompts =
  (store: PromptStore): RouteHandler<'listPrompts'> =>
  async ({ request, reader }) => {
    const includeVersions = includeVersionsOf(request.query.include_versions);
    const visible = <P extends Prompt>(prompts: P[]) => prompts.filter((prompt) => isInScope(reader.scope, prompt.promptId));
    const body = JSON.stringify(
      includeVersions
        ? visible(await store.listPromptsWithVersions(reader)).map((prompt) => ({
            ...toPromptBody(prompt),
            publishedVersions: prompt.publishedVersions,
          }))
        : visible(await store.listPrompts(reader)).map(toPromptBody),
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
