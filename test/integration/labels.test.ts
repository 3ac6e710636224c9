import type { Prompt, PromptWithVersions } from '../../lambda/domain/prompt';
import { ApiHarness, type ErrorBody } from '../support/api-harness';
import { FixtureStore } from '../support/fixture-store';
import { config, prompt, version } from '../support/fixtures';

/**
 * docs/behaviour-rules.md, "Labels": `?label=` on both routes, against the real handlers and a real store,
 * with the labels moved by the operator store as the admin CLI moves them. Each answer is held to
 * openapi.yaml by the harness.
 */
const api = new ApiHarness();
let admin: FixtureStore;
let key: string;

const idsOf = (answer: { json<T>(): T }) => answer.json<Prompt[]>().map((p) => p.promptId);
const versionOf = (answer: { json<T>(): T }) => answer.json<Prompt>().version;

beforeAll(async () => {
  await api.start();
  admin = new FixtureStore(api.localStore.client, api.localStore.tableName, () => api.clock);
  await api.fixtures.account('acme');
  await api.fixtures.account('globex');
  key = await api.fixtures.apiKey('acme');
  await api.fixtures.prompts(
    'acme',
    prompt('welcome', [version('1.0.0'), version('1.1.0'), version('1.2.0'), version('2.0.0', { published: false })], {
      labels: { production: '1.0.0', staging: '1.1.0' },
    }),
    prompt('web.home', [version('1.0.0'), version('3.0.0')], { labels: { production: '3.0.0' } }),
    prompt('unlabelled', [version('1.0.0')]),
  );
  await api.fixtures.prompts('globex', prompt('theirs', [version('1.0.0')], { labels: { production: '1.0.0' } }));
});
afterAll(() => api.stop());

describe('GET /prompts/{promptId}?label=', () => {
  test('answers the version the label points at, with the same body as that version pinned', async () => {
    const labelled = await api.get('/prompts/welcome?label=production', key);
    const pinned = await api.get('/prompts/welcome?version=1.0.0', key);
    expect(labelled.status).toBe(200);
    expect(labelled.json<Prompt>().version).toBe('1.0.0');
    expect(labelled.rawBody).toBe(pinned.rawBody);
    expect(versionOf(await api.get('/prompts/welcome?label=staging', key))).toBe('1.1.0');
  });

  test('keeps every name of the config, __proto__ and constructor included, as the version pinned does', async () => {
    const inputData = JSON.parse('{"__proto__": {"x": 1}, "constructor": 2}') as unknown;
    await api.fixtures.prompts('acme', prompt('named', [version('1.0.0', { config: config({ inputData }) })], { labels: { exact: '1.0.0' } }));
    const labelled = await api.get('/prompts/named?label=exact', key);
    expect(labelled.rawBody).toBe((await api.get('/prompts/named?version=1.0.0', key)).rawBody);
    expect(labelled.rawBody).toContain('"inputData":{"__proto__":{"x":1},"constructor":2}');
  });

  test('is private, no-cache with a strong ETag: a label moves', async () => {
    const { headers } = await api.get('/prompts/welcome?label=production', key);
    expect(headers['cache-control']).toBe('private, no-cache');
    expect(headers.etag).toMatch(/^"[^"]+"$/);
  });

  test('keeps the prompt body to the spec fields: labels are not listed in it', async () => {
    const body = (await api.get('/prompts/welcome?label=production', key)).json<Record<string, unknown>>();
    expect(Object.keys(body)).toEqual(['promptId', 'promptName', 'version', 'systemMessage', 'userMessage', 'config']);
  });

  test('label=latest is the highest published version, as without a label', async () => {
    const latest = await api.get('/prompts/welcome', key);
    const atLatest = await api.get('/prompts/welcome?label=latest', key);
    expect(atLatest.json<Prompt>().version).toBe('1.2.0');
    expect(atLatest.rawBody).toBe(latest.rawBody);
  });

  test('a label the prompt does not carry is 404 LABEL_NOT_FOUND', async () => {
    const answer = await api.get('/prompts/welcome?label=canary', key);
    expect(answer.status).toBe(404);
    expect(answer.json<ErrorBody>()).toEqual({ error: 'Prompt welcome has no label canary', code: 'LABEL_NOT_FOUND' });
    expect((await api.get('/prompts/unlabelled?label=production', key)).json<ErrorBody>().code).toBe('LABEL_NOT_FOUND');
  });

  test('a prompt that does not exist, or exists in another account only, is 404 NOT_FOUND at any label', async () => {
    expect((await api.get('/prompts/never-was?label=production', key)).json<ErrorBody>().code).toBe('NOT_FOUND');
    expect((await api.get('/prompts/theirs?label=production', key)).json<ErrorBody>().code).toBe('NOT_FOUND');
  });

  test.each([
    ['capitals', 'Production'],
    ['a leading digit', '1st'],
    ['a leading dash', '-prod'],
    ['33 characters', `p${'x'.repeat(32)}`],
    ['a space', 'prod%20one'],
    ['nothing', ''],
    ['a dot', 'prod.1'],
  ])('a label with %s is 400 BAD_REQUEST, and counts', async (_name, label) => {
    const before = Number((await api.get('/prompts/welcome', key)).headers['x-ratelimit-remaining']);
    const answer = await api.get(`/prompts/welcome?label=${label}`, key);
    expect(answer.status).toBe(400);
    expect(answer.json<ErrorBody>()).toEqual({
      error: 'label must be 1 to 32 characters of a-z, 0-9, "-" or "_", starting with a letter',
      code: 'BAD_REQUEST',
    });
    expect(Number(answer.headers['x-ratelimit-remaining'])).toBe(before - 1);
  });

  test('a label of 32 characters is well formed', async () => {
    expect((await api.get(`/prompts/welcome?label=p${'x'.repeat(31)}`, key)).json<ErrorBody>().code).toBe('LABEL_NOT_FOUND');
  });

  test('label together with version is 400 BAD_REQUEST, latest included', async () => {
    for (const label of ['production', 'latest']) {
      const answer = await api.get(`/prompts/welcome?label=${label}&version=1.0.0`, key);
      expect(answer.status).toBe(400);
      expect(answer.json<ErrorBody>()).toEqual({ error: 'give version or label, not both', code: 'BAD_REQUEST' });
    }
  });

  test('If-None-Match with the current tag gets 304, and counts', async () => {
    const { headers } = await api.get('/prompts/welcome?label=production', key);
    const revalidated = await api.get('/prompts/welcome?label=production', key, { 'If-None-Match': headers.etag ?? '' });
    expect(revalidated.status).toBe(304);
    expect(revalidated.rawBody ?? '').toBe('');
    expect(revalidated.headers['cache-control']).toBe('private, no-cache');
    expect(Number(revalidated.headers['x-ratelimit-remaining'])).toBe(Number(headers['x-ratelimit-remaining']) - 1);
  });
});

describe('GET /prompts?label=', () => {
  test('lists only the prompts that carry the label, each at the labelled version, by promptId', async () => {
    const answer = await api.get('/prompts?label=production', key);
    expect(answer.headers['cache-control']).toBe('private, no-cache');
    expect(answer.json<Prompt[]>().map((p) => [p.promptId, p.version])).toEqual([
      ['web.home', '3.0.0'],
      ['welcome', '1.0.0'],
    ]);
    expect(idsOf(await api.get('/prompts?label=staging', key))).toEqual(['welcome']);
    expect(idsOf(await api.get('/prompts?label=nobody-has-it', key))).toEqual([]);
  });

  test('each element is the same body as the prompt read at the label', async () => {
    const listed = (await api.get('/prompts?label=production', key)).json<Prompt[]>().find((p) => p.promptId === 'welcome');
    expect(listed).toEqual((await api.get('/prompts/welcome?label=production', key)).json<Prompt>());
  });

  test('with include_versions, each carries every published version of its prompt', async () => {
    const listed = (await api.get('/prompts?label=staging&include_versions=true', key)).json<PromptWithVersions[]>();
    expect(listed.map((p) => [p.promptId, p.version, p.publishedVersions.map((v) => v.version)])).toEqual([['welcome', '1.1.0', ['1.0.0', '1.1.0', '1.2.0']]]);
  });

  test('label=latest is the whole list', async () => {
    expect((await api.get('/prompts?label=latest', key)).rawBody).toBe((await api.get('/prompts', key)).rawBody);
  });

  test('a malformed label is 400 BAD_REQUEST', async () => {
    expect((await api.get('/prompts?label=PROD', key)).json<ErrorBody>().code).toBe('BAD_REQUEST');
  });

  test('If-None-Match with the current tag gets 304', async () => {
    const { headers } = await api.get('/prompts?label=production', key);
    expect((await api.get('/prompts?label=production', key, { 'If-None-Match': headers.etag ?? '' })).status).toBe(304);
  });
});

describe('moving and removing a label applies from the very next request', () => {
  beforeAll(async () => {
    await api.fixtures.prompts('acme', prompt('moving', [version('1.0.0'), version('1.1.0'), version('1.2.0')], { labels: { production: '1.0.0' } }));
  });

  test('a move is seen by the next request, by a function that served and cached the previous target', async () => {
    // This warm function has served the target at the label and keeps 1.0.0 pinned in memory.
    expect(versionOf(await api.get('/prompts/moving?label=production', key))).toBe('1.0.0');
    expect(versionOf(await api.get('/prompts/moving?version=1.0.0', key))).toBe('1.0.0');
    const before = await api.get('/prompts/moving?label=production', key);

    const change = await admin.setLabel('acme', 'moving', 'production', '1.1.0');
    expect(change).toEqual({ accountId: 'acme', promptId: 'moving', label: 'production', previousVersion: '1.0.0', version: '1.1.0', changed: true });

    const after = await api.get('/prompts/moving?label=production', key, { 'If-None-Match': before.headers.etag ?? '' });
    expect(after.status).toBe(200);
    expect(versionOf(after)).toBe('1.1.0');
    const listed = (await api.get('/prompts?label=production', key)).json<Prompt[]>().find((p) => p.promptId === 'moving');
    expect(listed?.version).toBe('1.1.0');
  });

  test('a roll back is a move back to the earlier version', async () => {
    await admin.setLabel('acme', 'moving', 'production', '1.2.0');
    expect(versionOf(await api.get('/prompts/moving?label=production', key))).toBe('1.2.0');
    await admin.setLabel('acme', 'moving', 'production', '1.1.0');
    expect(versionOf(await api.get('/prompts/moving?label=production', key))).toBe('1.1.0');
  });

  test('publishing a higher version moves latest, never a label', async () => {
    await api.fixtures.prompts('acme', prompt('moving', [version('1.3.0')]));
    expect(versionOf(await api.get('/prompts/moving', key))).toBe('1.3.0');
    expect(versionOf(await api.get('/prompts/moving?label=production', key))).toBe('1.1.0');
  });

  test('a removed label is 404 LABEL_NOT_FOUND from the next request, and leaves the list at it', async () => {
    await admin.setLabel('acme', 'moving', 'canary', '1.3.0');
    expect(versionOf(await api.get('/prompts/moving?label=canary', key))).toBe('1.3.0');
    expect(idsOf(await api.get('/prompts?label=canary', key))).toEqual(['moving']);

    expect(await admin.removeLabel('acme', 'moving', 'canary')).toMatchObject({ previousVersion: '1.3.0', changed: true });

    expect((await api.get('/prompts/moving?label=canary', key)).json<ErrorBody>().code).toBe('LABEL_NOT_FOUND');
    expect(idsOf(await api.get('/prompts?label=canary', key))).toEqual([]);
    expect(versionOf(await api.get('/prompts/moving?version=1.3.0', key))).toBe('1.3.0');
  });
});

describe('a delete hides a prompt under every label; a restore brings its labels back', () => {
  beforeAll(async () => {
    await api.fixtures.prompts('acme', prompt('doomed', [version('1.0.0'), version('2.0.0')], { labels: { production: '1.0.0', staging: '2.0.0' } }));
  });

  test('after a delete, every label answers 404 NOT_FOUND and no list at a label has it', async () => {
    for (const label of ['production', 'staging']) expect(versionOf(await api.get(`/prompts/doomed?label=${label}`, key))).toBeDefined();

    await admin.deletePrompt('acme', 'doomed');

    for (const label of ['production', 'staging', 'canary']) {
      expect((await api.get(`/prompts/doomed?label=${label}`, key)).json<ErrorBody>().code).toBe('NOT_FOUND');
      expect(idsOf(await api.get(`/prompts?label=${label}`, key))).not.toContain('doomed');
      expect(idsOf(await api.get(`/prompts?label=${label}&include_versions=true`, key))).not.toContain('doomed');
    }
  });

  test('a deleted prompt takes no new label, but keeps the ones it had', async () => {
    await expect(admin.setLabel('acme', 'doomed', 'canary', '2.0.0')).rejects.toThrow('is deleted: restore it first');
    expect(await admin.listLabels('acme', 'doomed')).toEqual({ production: '1.0.0', staging: '2.0.0' });
  });

  test('after a restore, every label answers as before, from the next request', async () => {
    await admin.restorePrompt('acme', 'doomed');
    expect(versionOf(await api.get('/prompts/doomed?label=production', key))).toBe('1.0.0');
    expect(versionOf(await api.get('/prompts/doomed?label=staging', key))).toBe('2.0.0');
    expect(idsOf(await api.get('/prompts?label=staging', key))).toContain('doomed');
  });
});

describe('a scoped key sees the labels of the prompts in its scope only', () => {
  let scoped: string;
  beforeAll(async () => {
    scoped = await api.fixtures.apiKey('acme', { scope: ['web.*'] });
  });

  test('a labelled prompt outside the scope is 404 NOT_FOUND, exactly as one that does not exist', async () => {
    const outside = await api.get('/prompts/welcome?label=production', scoped);
    const missing = await api.get('/prompts/never-was?label=production', scoped);
    expect(outside.status).toBe(404);
    expect(outside.json<ErrorBody>().code).toBe('NOT_FOUND');
    expect(outside.json<ErrorBody>().error).toBe('Prompt welcome not found');
    expect(missing.json<ErrorBody>().code).toBe('NOT_FOUND');
  });

  test('the list at a label holds the prompts in scope only', async () => {
    expect(versionOf(await api.get('/prompts/web.home?label=production', scoped))).toBe('3.0.0');
    expect(idsOf(await api.get('/prompts?label=production', scoped))).toEqual(['web.home']);
    expect(idsOf(await api.get('/prompts?label=production&include_versions=true', scoped))).toEqual(['web.home']);
  });
});

test('every request at a label counts one unit, as any GET', async () => {
  const counted = await api.fixtures.apiKey('acme', { monthlyLimit: 4 });
  const answers = [];
  for (const path of [
    '/prompts/welcome?label=production',
    '/prompts?label=production',
    '/prompts/welcome?label=canary',
    '/prompts/welcome?label=X',
    '/prompts/welcome?label=production',
  ]) {
    answers.push(await api.get(path, counted));
  }
  expect(answers.map((answer) => answer.status)).toEqual([200, 200, 404, 400, 429]);
  expect(answers.slice(0, 4).map((answer) => answer.headers['x-ratelimit-remaining'])).toEqual(['3', '2', '1', '0']);
});
