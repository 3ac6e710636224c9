import type { PromptStore } from '../data/store';
import { toPromptBody } from '../domain/prompt';
import { badRequest } from '../http/api-error';
import { jsonResponse } from '../http/responses';
import { REVALIDATE_CACHE_CONTROL } from './get-prompt';
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
    const body = includeVersions
      ? (await store.listPromptsWithVersions(reader)).map((prompt) => ({
          ...toPromptBody(prompt),
          publishedVersions: prompt.publishedVersions,
        }))
      : (await store.listPrompts(reader)).map(toPromptBody);
    // Large lists are gzipped for callers that accept it (see middleware/compression.ts).
    return jsonResponse(200, body, { 'Cache-Control': REVALIDATE_CACHE_CONTROL, Vary: 'Authorization, Accept-Encoding' });
  };
