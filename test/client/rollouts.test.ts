import { createPromptClient, InvalidOptionsError, type PromptClient, type PromptSnapshot } from '../../client/src/index';
import { bucketOf } from '../../lambda/domain/rollout-bucket';
import { RolloutApi } from './support/rollout-api';

/**
 * The client at a label that rolls out (docs/rollouts.md), against a local server that answers as the
 * service does: each subject gets the side the server's bucketOf picks, decided from the cache once warm.
 */
const ROLLOUT = 'ro_20261127050000000_0a1b2c3d';
const KEY = 'prs_rollout_test_key_0001';
const TTL_MS = 60_000;
const SUBJECTS = Array.from({ length: 1000 }, (_, n) => `user-${n}`);

const expected = (subject: string, percent: number) => (bucketOf(ROLLOUT, subject) < percent ? '2.0.0' : '1.0.0');

let api: RolloutApi;
let clock: { now: number };

beforeEach(async () => {
  api = await new RolloutApi().start();
  api.add('welcome-email', ['1.0.0', '2.0.0'], { production: '1.0.0' });
  api.rollOut('welcome-email', 'production', { rolloutId: ROLLOUT, percent: 30, to: '2.0.0' });
  clock = { now: Date.parse('2026-11-27T06:00:00Z') };
});
afterEach(() => api.stop());

function client(options: { snapshot?: PromptSnapshot; baseUrl?: string } = {}): PromptClient {
  return createPromptClient({ baseUrl: options.baseUrl ?? api.url, apiKey: KEY, now: () => clock.now, ...options });
}

const atLabel = (prompts: PromptClient, subject: string | undefined) => prompts.get('welcome-email', { label: 'production', subject });

test('each subject gets the side its bucket picks, and the prompt says which rollout and side it is', async () => {
  const prompts = client();

  for (const subject of SUBJECTS.slice(0, 300)) {
    const prompt = await atLabel(prompts, subject);
    expect(prompt.version).toBe(expected(subject, 30));
    expect(prompt.rollout).toEqual({ rolloutId: ROLLOUT, percent: 30, from: '1.0.0', to: '2.0.0', side: prompt.version === '2.0.0' ? 'to' : 'from' });
  }
  await prompts.idle();
});

test('a warm client makes no request per subject: 1,000 subjects after warming up cost nothing', async () => {
  const prompts = client();
  await atLabel(prompts, 'warm-up');
  await prompts.idle();
  const warm = api.seen.length;

  const got = [];
  for (const subject of SUBJECTS) got.push(await atLabel(prompts, subject));
  await prompts.idle();

  expect(warm).toBe(2);
  expect(api.seen).toHaveLength(warm);
  expect(got.map((prompt) => prompt.version)).toEqual(SUBJECTS.map((subject) => expected(subject, 30)));
  expect(new Set(got.map((prompt) => prompt.source))).toEqual(new Set(['cache']));
});

test('the side the first answer did not give is fetched once, as a pinned version, without the subject', async () => {
  const prompts = client();

  await atLabel(prompts, 'user-42');
  await prompts.idle();

  const other = expected('user-42', 30) === '2.0.0' ? '1.0.0' : '2.0.0';
  expect(api.seen.map(({ path, query, status }) => `${path}?${query} ${status}`)).toEqual([
    '/prompts/welcome-email?label=production 200',
    `/prompts/welcome-email?version=${other} 200`,
  ]);
  expect(api.seen[0]?.headers['x-prompt-subject']).toBe('user-42');
  expect(api.seen[1]?.headers['x-prompt-subject']).toBeUndefined();
});

test('a subject a header cannot carry unchanged is not sent, and still gets the side its bucket picks', async () => {
  const prompts = client();
  const subjects = ['Zoë', '用户-7', ' padded ', '', '😀'];

  const got = [];
  for (const subject of subjects) got.push((await atLabel(prompts, subject)).version);
  await prompts.idle();

  expect(got).toEqual(subjects.map((subject) => expected(subject, 30)));
  expect(api.seen[0]?.headers['x-prompt-subject']).toBeUndefined();
});

test('a subject longer than 256 characters throws InvalidOptionsError before any request', async () => {
  const prompts = client();

  await expect(atLabel(prompts, 'x'.repeat(257))).rejects.toBeInstanceOf(InvalidOptionsError);
  expect(api.seen).toEqual([]);
});

test('concurrent first calls share one request, and each subject still gets its own side', async () => {
  const prompts = client();
  const subjects = SUBJECTS.slice(0, 40);

  const got = await Promise.all(subjects.map((subject) => atLabel(prompts, subject)));
  await prompts.idle();

  expect(got.map((prompt) => prompt.version)).toEqual(subjects.map((subject) => expected(subject, 30)));
  expect(api.seen.filter(({ query }) => query === 'label=production')).toHaveLength(1);
  expect(api.seen).toHaveLength(2);
});

test('a new share is used from the revalidation after the TTL on, not before', async () => {
  const prompts = client();
  await atLabel(prompts, 'warm-up');
  await prompts.idle();
  api.rollOut('welcome-email', 'production', { rolloutId: ROLLOUT, percent: 90, to: '2.0.0' });

  clock.now += TTL_MS - 1;
  const within = [];
  for (const subject of SUBJECTS.slice(0, 200)) within.push((await atLabel(prompts, subject)).version);
  clock.now += 1;
  await atLabel(prompts, 'any');
  await prompts.idle();
  const after = [];
  for (const subject of SUBJECTS.slice(0, 200)) after.push(await atLabel(prompts, subject));

  expect(within).toEqual(SUBJECTS.slice(0, 200).map((subject) => expected(subject, 30)));
  expect(after.map((prompt) => prompt.version)).toEqual(SUBJECTS.slice(0, 200).map((subject) => expected(subject, 90)));
  expect(after.every((prompt) => prompt.rollout?.percent === 90)).toBe(true);
});

test('when the other side cannot be had, the side held is served saying which, and it is asked for again only after a pause', async () => {
  const prompts = client();
  const onSide = (version: string) => SUBJECTS.find((subject) => expected(subject, 30) === version) ?? '';
  api.versionsFail = true;
  await atLabel(prompts, onSide('1.0.0'));
  await prompts.idle();
  const tried = api.seen.length;

  const other = await atLabel(prompts, onSide('2.0.0'));
  const again = await atLabel(prompts, onSide('2.0.0'));
  const pausedRequests = api.seen.length;
  api.versionsFail = false;
  clock.now += 5_000;
  const later = await atLabel(prompts, onSide('2.0.0'));

  expect(tried).toBe(2);
  expect([other.version, other.rollout?.side, again.version]).toEqual(['1.0.0', 'from', '1.0.0']);
  expect(pausedRequests).toBe(tried);
  expect([later.version, later.rollout?.side]).toEqual(['2.0.0', 'to']);
});

test('latest and pinned versions carry no rollout and send no subject', async () => {
  const prompts = client();

  const latest = await prompts.get('welcome-email', { subject: 'user-1' });
  const pinned = await prompts.get('welcome-email', { version: '1.0.0', subject: 'user-1' });

  expect([latest.version, latest.rollout, pinned.rollout]).toEqual(['2.0.0', undefined, undefined]);
  expect(api.seen.every(({ headers }) => headers['x-prompt-subject'] === undefined)).toBe(true);
});

test('compile fills the side a subject gets', async () => {
  const prompts = client();
  const subject = SUBJECTS.find((candidate) => expected(candidate, 30) === '2.0.0') ?? '';
  await atLabel(prompts, 'warm-up');
  await prompts.idle();

  const prompt = await atLabel(prompts, subject);

  expect(prompt.compile({ name: 'Ada' }).userMessage).toBe('Hello Ada, this is 2.0.0');
});

test('preload at the label holds both sides, so every get after it is answered from memory', async () => {
  const prompts = client();

  await prompts.preload({ label: 'production' });
  const before = api.seen.length;
  const got = [];
  for (const subject of SUBJECTS) got.push((await atLabel(prompts, subject)).version);

  expect(api.seen).toHaveLength(before);
  expect(got).toEqual(SUBJECTS.map((subject) => expected(subject, 30)));
});

test('the list at the label gives each prompt on the side of the subject', async () => {
  const prompts = client();

  for (const subject of SUBJECTS.slice(0, 50)) {
    const [prompt] = await prompts.list({ label: 'production', subject });
    expect(prompt?.version).toBe(expected(subject, 30));
  }
  await prompts.idle();
});

describe('snapshots', () => {
  async function taken(): Promise<PromptSnapshot> {
    const prompts = client();
    await atLabel(prompts, 'user-1');
    return prompts.snapshot();
  }

  test('a snapshot carries the rollout, the label at from, and both sides', async () => {
    const snapshot = await taken();

    expect(snapshot.labels).toEqual({ production: { 'welcome-email': '1.0.0' } });
    expect(snapshot.rollouts).toEqual({ production: { 'welcome-email': { rolloutId: ROLLOUT, percent: 30, from: '1.0.0', to: '2.0.0' } } });
    const held = [...snapshot.prompts, ...snapshot.versions].map((prompt) => prompt.version).sort();
    expect(held).toEqual(['1.0.0', '2.0.0']);
  });

  test('a fallback on the snapshot keeps each subject on its side', async () => {
    const snapshot = JSON.parse(JSON.stringify(await taken())) as PromptSnapshot;
    api.goDown();
    const offline = client({ snapshot });

    const got = [];
    for (const subject of SUBJECTS.slice(0, 300)) got.push(await atLabel(offline, subject));

    expect(got.map((prompt) => prompt.version)).toEqual(SUBJECTS.slice(0, 300).map((subject) => expected(subject, 30)));
    expect(new Set(got.map((prompt) => prompt.source))).toEqual(new Set(['snapshot']));
  });

  test('a snapshot without rollouts (taken before them) still loads and serves the label at from', async () => {
    const { rollouts: _left, ...older } = await taken();
    api.goDown();

    const prompt = await atLabel(client({ snapshot: older }), 'user-1');

    expect([prompt.version, prompt.rollout, prompt.source]).toEqual(['1.0.0', undefined, 'snapshot']);
  });

  test('a snapshot whose rollout it could not serve is refused at start-up', async () => {
    const snapshot = await taken();
    const damaged = { ...snapshot, labels: { production: { 'welcome-email': '2.0.0' } } };

    expect(() => client({ snapshot: damaged })).toThrow(/snapshot\.rollouts\["production"\]\["welcome-email"\]: the label must point at its from version/);
  });
});
