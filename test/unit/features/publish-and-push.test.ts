import { RolloutActiveError } from '../../../lambda/features/errors';
import { StaleDraftError, type VersionContent } from '../../../lambda/features/prompts/authoring';
import type { PromptRelease } from '../../../lambda/features/prompts/release';
import { ConflictError } from '../../../lambda/table/errors';
import type { PromptHeadItem, PromptVersionItem } from '../../../lambda/table/item-types';
import { keys } from '../../../lambda/table/schema';
import { config, prompt, version } from '../../support/fixtures';
import { featureTable, OPERATOR, person } from '../../support/feature-table';

/**
 * Publishing and pushing (docs/management-api.md "The management API", docs/prompts-as-code.md "The commands"; lambda/features/prompts/): a draft
 * published never changes again, and latest only moves up; one prompt of a push is created, published (as a draft is
 * published: publishing.ts), labelled and described in one transaction, each step with its audit entry, and a label
 * under approval is asked for in that transaction. What a push does not change, it leaves as it was.
 */
const features = featureTable();
const editor = person('edith');

const content = (text: string): VersionContent => ({ systemMessage: `You say ${text}.`, userMessage: 'Hi ${name}', config: config() });

const head = (accountId: string, promptId: string) => features.get<PromptHeadItem>(keys.promptHead(accountId, promptId));
const versionItem = (accountId: string, promptId: string, v: string) => features.get<PromptVersionItem>(keys.promptVersion(accountId, promptId, v));

/** An account with `greet` at 1.0.0 and 2.0.0 published, `production` at 1.0.0; with `staging` at 2.0.0, and a prompt `other`, when asked. */
const account = (options: { staging?: boolean; other?: boolean } = {}) =>
  features.account(
    prompt('greet', [version('1.0.0'), version('2.0.0')], { labels: { production: '1.0.0', ...(options.staging ? { staging: '2.0.0' } : {}) } }),
    ...(options.other ? [prompt('other', [version('1.0.0')], { labels: { production: '1.0.0' } })] : []),
  );

/** A draft of `greet` saved by the editor, and its ETag. */
async function draft(accountId: string, v: string): Promise<string> {
  return (await features.operations(editor).prompts.createDraft(accountId, 'greet', v, content(v))).etag;
}

test('a published draft says who published it, when and why; latest moves up to it, and the read API sees it from the next request', async () => {
  const accountId = await account();
  const etag = await draft(accountId, '2.1.0');
  const revision = await features.promptsRevision(accountId);
  const summary = await features.operations(editor).prompts.publish(accountId, 'greet', '2.1.0', etag, 'warmer');
  expect(summary).toEqual(expect.objectContaining({ version: '2.1.0', published: true, publishedBy: 'edith@example.com', note: 'warmer' }));
  expect(await versionItem(accountId, 'greet', '2.1.0')).toEqual(
    expect.objectContaining({ published: true, publishedBy: 'edith@example.com', publishedAt: summary.publishedAt, note: 'warmer' }),
  );
  expect((await head(accountId, 'greet'))?.latest?.version).toBe('2.1.0');
  expect(await features.promptsRevision(accountId)).toBe(revision + 1);
  expect((await features.events(accountId)).map((event) => event.type)).toEqual(['prompt.version.published']);
});

test('a draft below latest is published without moving latest: latest only moves up', async () => {
  const accountId = await account();
  const etag = await draft(accountId, '1.5.0');
  await features.operations(editor).prompts.publish(accountId, 'greet', '1.5.0', etag, 'backport');
  expect((await versionItem(accountId, 'greet', '1.5.0'))?.published).toBe(true);
  expect((await head(accountId, 'greet'))?.latest?.version).toBe('2.0.0');
});

test('a draft saved since it was read is not published (412, naming the save), and nothing changes', async () => {
  const accountId = await account();
  const etag = await draft(accountId, '2.1.0');
  const saved = await features.operations(person('other')).prompts.replaceDraft(accountId, 'greet', '2.1.0', content('changed'), etag);
  const before = await features.state(accountId);
  const refusal = features.operations(editor).prompts.publish(accountId, 'greet', '2.1.0', etag, 'stale');
  await expect(refusal).rejects.toEqual(expect.any(StaleDraftError));
  await expect(refusal).rejects.toEqual(expect.objectContaining({ current: expect.objectContaining({ etag: saved.etag, updatedBy: 'other@example.com' }) }));
  expect(await features.state(accountId)).toEqual(before);
});

test('a published version never changes: publishing it again or saving over it is refused (409), and nothing changes', async () => {
  const accountId = await account();
  const etag = await draft(accountId, '2.1.0');
  await features.operations(editor).prompts.publish(accountId, 'greet', '2.1.0', etag, 'once');
  const before = await features.state(accountId);
  const ops = features.operations(editor);
  await expect(ops.prompts.publish(accountId, 'greet', '2.1.0', etag, 'twice')).rejects.toThrow('is published and cannot change');
  await expect(ops.prompts.replaceDraft(accountId, 'greet', '2.1.0', content('over'), etag)).rejects.toThrow('is published and cannot change');
  expect(await features.state(accountId)).toEqual(before);
});

test('a push creates the prompt, publishes its version and labels it in one change, each step with its audit entry', async () => {
  const accountId = await account();
  const release: PromptRelease = {
    promptId: 'fresh',
    create: { promptName: 'Fresh' },
    publish: { version: '1.0.0', content: content('fresh'), note: 'first push' },
    labels: [{ label: 'production', to: '1.0.0' }],
  };
  expect(await features.operations().prompts.release(accountId, release)).toEqual({ steps: 3, changeRequests: [] });
  expect(await head(accountId, 'fresh')).toEqual(
    expect.objectContaining({ promptName: 'Fresh', labels: { production: '1.0.0' }, latest: expect.objectContaining({ version: '1.0.0' }) }),
  );
  expect((await features.labelItem(accountId, 'fresh', 'production'))?.labelled.version).toBe('1.0.0');
  expect(await features.history(accountId, 'fresh', 'production')).toEqual([
    expect.objectContaining({ from: null, to: '1.0.0', by: 'cli:test', reason: 'push' }),
  ]);
  const entries = await features.audit(accountId);
  expect(entries.map((entry) => [entry.action, entry.outcome]).sort()).toEqual([
    ['label.set', 'succeeded'],
    ['prompt.create', 'succeeded'],
    ['version.publish', 'succeeded'],
  ]);
});

test('a push publishes as a draft is published: the same fields on the version, and latest only moves up', async () => {
  const accountId = await account();
  const etag = await draft(accountId, '1.5.0');
  const published = await features.operations(OPERATOR).prompts.publish(accountId, 'greet', '1.5.0', etag, 'by hand');
  await features
    .operations(OPERATOR)
    .prompts.release(accountId, { promptId: 'greet', publish: { version: '1.6.0', content: content('1.6.0'), note: 'pushed' }, labels: [] });
  const [byHand, pushed] = [await versionItem(accountId, 'greet', '1.5.0'), await versionItem(accountId, 'greet', '1.6.0')];
  expect(pushed).toEqual(expect.objectContaining({ published: true, publishedBy: 'cli:test', publishedAt: expect.any(String), note: 'pushed' }));
  expect(byHand).toEqual(expect.objectContaining({ published: true, publishedBy: published.publishedBy, note: 'by hand' }));
  const fields = (item: PromptVersionItem | undefined) => Object.keys(item ?? {}).sort();
  expect(fields(pushed)).toEqual(fields(byHand));
  expect((await head(accountId, 'greet'))?.latest?.version).toBe('2.0.0');
});

test('a push of a version that exists is refused ("pull, then push again"), and nothing changes', async () => {
  const accountId = await account();
  const before = await features.state(accountId);
  const release = {
    promptId: 'greet',
    publish: { version: '2.0.0', content: content('again'), note: 'again' },
    labels: [{ label: 'production', to: '2.0.0' }],
  };
  await expect(features.operations().prompts.release(accountId, release)).rejects.toThrow('exists already: pull, then push again');
  await expect(features.operations().prompts.release(accountId, release)).rejects.toEqual(expect.any(ConflictError));
  expect(await features.state(accountId)).toEqual(before);
});

test('a prompt a push has nothing to change for is left untouched: no write, no audit entry', async () => {
  const accountId = await account();
  const before = await features.state(accountId);
  expect(await features.operations().prompts.release(accountId, { promptId: 'greet', labels: [] })).toEqual({ steps: 0, changeRequests: [] });
  expect(await features.state(accountId)).toEqual(before);
  expect(await features.audit(accountId)).toEqual([]);
});

test("a push that moves one label leaves the prompt's other labels, its versions and the other prompts as they were", async () => {
  const accountId = await account({ staging: true, other: true });
  const untouched = (items: Record<string, unknown>[]) =>
    items.filter((item) => {
      const sk = String(item.sk);
      return sk.includes('#other') || sk.startsWith('VERSION#') || sk === 'LABEL#production#greet' || sk.startsWith('LABELHIST#greet#production#');
    });
  const before = untouched(await features.state(accountId));
  await features.operations().prompts.release(accountId, { promptId: 'greet', labels: [{ label: 'staging', to: '1.0.0' }] });
  expect(untouched(await features.state(accountId))).toEqual(before);
  expect(await features.labels(accountId, 'greet')).toEqual({ production: '1.0.0', staging: '1.0.0' });
  expect((await features.history(accountId, 'greet', 'staging'))[0]).toEqual(expect.objectContaining({ from: '2.0.0', to: '1.0.0', reason: 'push' }));
});

test('a push removes a label it no longer names, its history saying push', async () => {
  const accountId = await account({ staging: true });
  await features.operations().prompts.release(accountId, { promptId: 'greet', labels: [{ label: 'staging', to: null }] });
  expect(await features.labels(accountId, 'greet')).toEqual({ production: '1.0.0' });
  expect(await features.labelItem(accountId, 'greet', 'staging')).toBeUndefined();
  expect((await features.history(accountId, 'greet', 'staging'))[0]).toEqual(expect.objectContaining({ from: '2.0.0', to: null, reason: 'push' }));
});

test('a push asks for a label under approval in its own transaction, moves the others, and an asking-only push leaves the head as it was', async () => {
  const accountId = await account();
  await features.approvals(accountId, ['production']);
  const headBefore = await head(accountId, 'greet');
  const asked = await features.operations().prompts.release(accountId, { promptId: 'greet', labels: [{ label: 'production', to: '2.0.0' }] }, { note: 'ship' });
  expect(asked).toEqual({ steps: 1, changeRequests: [{ label: 'production', requestId: expect.stringMatching(/^req_/) }] });
  expect(await head(accountId, 'greet')).toEqual(headBefore);
  expect((await features.audit(accountId))[0]).toEqual(
    expect.objectContaining({ action: 'request.open', after: expect.objectContaining({ from: '1.0.0', to: '2.0.0' }) }),
  );

  const other = await account();
  await features.approvals(other, ['production']);
  const both = await features.operations().prompts.release(other, {
    promptId: 'greet',
    labels: [
      { label: 'production', to: '2.0.0' },
      { label: 'staging', to: '1.0.0' },
    ],
  });
  expect(both.changeRequests.map(({ label }) => label)).toEqual(['production']);
  expect(await features.labels(other, 'greet')).toEqual({ production: '1.0.0', staging: '1.0.0' });
});

test('a push to a label that rolls out is refused naming the rollout, and nothing changes', async () => {
  const accountId = await account({ staging: true });
  await features.operations().rollouts.start(accountId, 'greet', 'staging', { to: '1.0.0', percent: 10 });
  const before = await features.state(accountId);
  const release = { promptId: 'greet', publish: { version: '3.0.0', content: content('3'), note: 'n' }, labels: [{ label: 'staging', to: '3.0.0' }] };
  await expect(features.operations().prompts.release(accountId, release)).rejects.toEqual(expect.any(RolloutActiveError));
  expect(await features.state(accountId)).toEqual(before);
  const [refusal] = await features.audit(accountId);
  expect(refusal).toEqual(expect.objectContaining({ action: 'version.publish', outcome: 'refused', reason: expect.objectContaining({ code: 'CONFLICT' }) }));
});
