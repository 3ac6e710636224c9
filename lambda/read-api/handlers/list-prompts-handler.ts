import type { AtLabel, PromptReader, PromptStore } from '../store/api-store';
import { type Prompt, type PromptWithVersions, toPromptBody } from '../../domain/prompt';
import { isInScope } from '../../domain/prompt-scope';
import { badRequest } from '../../http/api-error';
import { ifNoneMatchMatches, strongEtag } from '../etag';
import { labelOf } from '../label-query';
import { emptyResponse, JSON_CONTENT_TYPE, REVALIDATE_CACHE_CONTROL } from '../../http/responses';
import { choose, type RequestSides, type RolloutAnswer, rolloutField, type ServedPrompt } from '../served-rollouts';
import type { RouteForesight, RouteHandler } from './route-handler';

function includeVersionsOf(value: string | undefined): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw badRequest('include_versions must be true or false');
}

/** Every prompt at its latest version, or, at a label, the prompts that carry it at the labelled one. */
const list = (store: PromptStore, reader: PromptReader, label: string | undefined): Promise<AtLabel<Prompt>[]> =>
  label === undefined ? store.listPrompts(reader) : store.listLabelledPrompts(reader, label);

/** The prompts the key may see, each at the side its label's rollout gives the request. */
const servedTo = <P extends Prompt>(reader: PromptReader, sides: RequestSides, prompts: readonly AtLabel<P>[]): ServedPrompt<P>[] =>
  prompts.filter((prompt) => isInScope(reader.scope, prompt.promptId)).map((prompt) => choose(sides, prompt));

/** What `GET /prompts` lists (without versions): the prompts the key may see, by promptId, at the label if one is given. */
export const readPromptList = async (store: PromptStore, reader: PromptReader, label: string | undefined, rollouts: RolloutAnswer): Promise<ServedPrompt[]> =>
  servedTo(reader, rollouts.sides, await list(store, reader, label));

const listWithVersions = (store: PromptStore, reader: PromptReader, label: string | undefined): Promise<AtLabel<PromptWithVersions>[]> =>
  label === undefined ? store.listPromptsWithVersions(reader) : store.listLabelledPromptsWithVersions(reader, label);

/** A list at a label that memory answers: the sides it serves, decided now, so the admission counts them. */
export const foreseeListPrompts: RouteForesight<'listPrompts'> = ({ request, reader, sides, remembered }) => {
  const label = labelOf(request);
  const remembers = label === undefined ? undefined : remembered.rememberedLabelledList(reader, label, includeVersionsOf(request.query.include_versions));
  return remembers ? servedTo(reader, sides, remembers) : [];
};

export const listPrompts =
  (store: PromptStore): RouteHandler<'listPrompts'> =>
  async ({ request, reader, rollouts }) => {
    const includeVersions = includeVersionsOf(request.query.include_versions);
    const label = labelOf(request);
    const served: ServedPrompt<Prompt & Partial<PromptWithVersions>>[] = includeVersions
      ? servedTo(reader, rollouts.sides, await listWithVersions(store, reader, label))
      : await readPromptList(store, reader, label, rollouts);
    for (const entry of served) rollouts.record(entry);
    const body = JSON.stringify(
      served.map((entry) => ({
        ...toPromptBody(entry.prompt),
        ...(includeVersions ? { publishedVersions: entry.prompt.publishedVersions } : {}),
        ...rolloutField(entry),
      })),
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
