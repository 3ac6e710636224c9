import type { PromptReader, PromptStore } from '../../table/read-path/api-store';
import { type Prompt, toPromptBody } from '../../domain/prompt';
import { isInScope } from '../../domain/prompt-scope';
import { badRequest } from '../../http/api-error';
import { ifNoneMatchMatches, strongEtag } from '../etag';
import { labelOf } from '../label-query';
import { emptyResponse, JSON_CONTENT_TYPE, REVALIDATE_CACHE_CONTROL } from '../../http/responses';
import type { RouteHandler } from './route-handler';

function includeVersionsOf(value: string | undefined): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw badRequest('include_versions must be true or false');
}

/** Every prompt at its latest version, or, at a label, the prompts that carry it at the labelled one. */
const list = (store: PromptStore, reader: PromptReader, label: string | undefined) =>
  label === undefined ? store.listPrompts(reader) : store.listLabelledPrompts(reader, label);

const visibleTo = <P extends Prompt>(reader: PromptReader, prompts: P[]): P[] => prompts.filter((prompt) => isInScope(reader.scope, prompt.promptId));

/** What `GET /prompts` lists (without versions): the prompts the key may see, by promptId, at the label if one is given. */
export const readPromptList = async (store: PromptStore, reader: PromptReader, label: string | undefined): Promise<Prompt[]> =>
  visibleTo(reader, await list(store, reader, label));

const listWithVersions = (store: PromptStore, reader: PromptReader, label: string | undefined) =>
  label === undefined ? store.listPromptsWithVersions(reader) : store.listLabelledPromptsWithVersions(reader, label);

export const listPrompts =
  (store: PromptStore): RouteHandler<'listPrompts'> =>
  async ({ request, reader }) => {
    const includeVersions = includeVersionsOf(request.query.include_versions);
    const label = labelOf(request);
    const body = JSON.stringify(
      includeVersions
        ? visibleTo(reader, await listWithVersions(store, reader, label)).map((prompt) => ({
            ...toPromptBody(prompt),
            publishedVersions: prompt.publishedVersions,
          }))
        : (await readPromptList(store, reader, label)).map(toPromptBody),
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
