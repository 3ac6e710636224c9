import type { PromptStore } from '../data/store';
import { type Prompt, toPromptBody } from '../domain/prompt';
import { isInScope } from '../domain/prompt-scope';
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
    const visible = <P extends Prompt>(prompts: P[]) => prompts.filter((prompt) => isInScope(reader.scope, prompt.promptId));
    const body = includeVersions
      ? visible(await store.listPromptsWithVersions(reader)).map((prompt) => ({
          ...toPromptBody(prompt),
          publishedVersions: prompt.publishedVersions,
        }))
      : visible(await store.listPrompts(reader)).map(toPromptBody);
    // Large lists are gzipped for callers that accept it (see middleware/compression.ts).
    return jsonResponse(200, body, { 'Cache-Control': REVALIDATE_CACHE_CONTROL, Vary: 'Authorization, Accept-Encoding' });
  };
