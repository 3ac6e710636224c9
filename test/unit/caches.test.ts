import { LruCache } from '../../lambda/read-api/store/lru-cache';
import { CachedPromptStore } from '../../lambda/read-api/store/cached-prompt-store';
import type { PromptLookup, PromptReader, PromptStore } from '../../lambda/read-api/store/api-store';
import type { Prompt } from '../../lambda/domain/prompt';

describe('LruCache', () => {
  test('keeps at most maxEntries, dropping the least recently used', () => {
    const cache = new LruCache<number>({ maxEntries: 2 });
    cache.set('a', 1);
    cache.set('b', 2);
    cache.get('a');
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([1, undefined, 3]);
  });

  test('keeps at most maxSize, and never an entry larger than all of it', () => {
    const cache = new LruCache<string>({ maxEntries: 100, maxSize: 10, sizeOf: (value) => value.length });
    cache.set('a', '12345');
    cache.set('b', '123456');
    expect([cache.get('a'), cache.get('b')]).toEqual([undefined, '123456']);
    cache.set('huge', 'x'.repeat(11));
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.get('b')).toBe('123456');
  });

  test('serves an entry only until its time to live runs out', () => {
    let now = 0;
    const cache = new LruCache<number>({ maxEntries: 10, ttlMs: 1_000, now: () => now });
    cache.set('a', 1);
    now = 999;
    expect(cache.get('a')).toBe(1);
    now = 1_000;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});

describe('CachedPromptStore', () => {
  const prompt = (version: string): Prompt => ({
    promptId: 'p',
    promptName: 'P',
    version,
    systemMessage: 's',
    userMessage: 'u',
    config: { model: 'm', temperature: 0, schema: [], inputData: null, inputDataRootName: null },
  });

  function countingStore(answer: () => PromptLookup) {
    const calls: string[] = [];
    const store: PromptStore = {
      findPromptVersion: async (_a, _p, version) => {
        calls.push(`version ${version}`);
        return answer();
      },
      findLatestPrompt: async () => {
        calls.push('latest');
        return answer();
      },
      listPrompts: async () => {
        calls.push('list');
        return [];
      },
      listPromptsWithVersions: async () => {
        calls.push('list+versions');
        return [];
      },
      findLabelledPrompt: async (_a, _p, label) => {
        calls.push(`label ${label}`);
        return answer();
      },
      listLabelledPrompts: async (_a, label) => {
        calls.push(`list at ${label}`);
        return [];
      },
      listLabelledPromptsWithVersions: async (_a, label) => {
        calls.push(`list+versions at ${label}`);
        return [];
      },
    };
    return { store, calls };
  }

  const options = { maxVersions: 10, maxCharacters: 1_000_000, maxAnswers: 10, maxAnswerCharacters: 1_000_000 };
  const deadline = new AbortController().signal;
  const reader = (accountId: string, promptsRevision = 0): PromptReader => ({ accountId, promptsRevision, deadline });

  test('a pinned version read once is served from memory afterwards', async () => {
    const { store, calls } = countingStore(() => ({ found: true, prompt: prompt('1.0.0') }));
    const cached = new CachedPromptStore(store, options);
    await cached.findPromptVersion(reader('acme'), 'p', '1.0.0');
    const again = await cached.findPromptVersion(reader('acme'), 'p', '1.0.0');
    expect(again).toEqual({ found: true, prompt: prompt('1.0.0') });
    expect(calls).toEqual(['version 1.0.0']);
  });

  test('entries are per account: another account asks the store', async () => {
    const { store, calls } = countingStore(() => ({ found: true, prompt: prompt('1.0.0') }));
    const cached = new CachedPromptStore(store, options);
    await cached.findPromptVersion(reader('acme'), 'p', '1.0.0');
    await cached.findPromptVersion(reader('globex'), 'p', '1.0.0');
    expect(calls).toHaveLength(2);
  });

  test('a copy read under one prompt revision is not served under another: a delete shows at once', async () => {
    let deleted = false;
    const { store, calls } = countingStore(() => (deleted ? { found: false, reason: 'prompt-not-found' } : { found: true, prompt: prompt('1.0.0') }));
    const cached = new CachedPromptStore(store, options);
    await cached.findPromptVersion(reader('acme', 4), 'p', '1.0.0');
    deleted = true;
    expect((await cached.findPromptVersion(reader('acme', 5), 'p', '1.0.0')).found).toBe(false);
    expect(calls).toHaveLength(2);
  });

  test('a version not found is not remembered: publishing it shows at once', async () => {
    let published = false;
    const { store, calls } = countingStore(() => (published ? { found: true, prompt: prompt('2.0.0') } : { found: false, reason: 'version-not-found' }));
    const cached = new CachedPromptStore(store, options);
    expect((await cached.findPromptVersion(reader('acme'), 'p', '2.0.0')).found).toBe(false);
    published = true;
    expect((await cached.findPromptVersion(reader('acme'), 'p', '2.0.0')).found).toBe(true);
    expect(calls).toHaveLength(2);
  });

  test('latest and the lists are read once per revision, then served from memory', async () => {
    const { store, calls } = countingStore(() => ({ found: true, prompt: prompt('1.0.0') }));
    const cached = new CachedPromptStore(store, options);
    for (const revision of [1, 1, 2, 2]) {
      await cached.findLatestPrompt(reader('acme', revision), 'p');
      await cached.listPrompts(reader('acme', revision));
      await cached.listPromptsWithVersions(reader('acme', revision));
    }
    expect(calls).toEqual(['latest', 'list', 'list+versions', 'latest', 'list', 'list+versions']);
  });

  test('a label and the lists at a label are read once per revision: a move shows at once', async () => {
    const { store, calls } = countingStore(() => ({ found: true, prompt: prompt('1.0.0') }));
    const cached = new CachedPromptStore(store, options);
    for (const revision of [1, 1, 2]) {
      await cached.findLabelledPrompt(reader('acme', revision), 'p', 'production');
      await cached.listLabelledPrompts(reader('acme', revision), 'production');
      await cached.listLabelledPromptsWithVersions(reader('acme', revision), 'production');
    }
    expect(calls).toEqual([
      'label production',
      'list at production',
      'list+versions at production',
      'label production',
      'list at production',
      'list+versions at production',
    ]);
  });

  test('NOT_FOUND and LABEL_NOT_FOUND are remembered under their revision too', async () => {
    let found = false;
    const { store, calls } = countingStore(() => (found ? { found: true, prompt: prompt('1.0.0') } : { found: false, reason: 'prompt-not-found' }));
    const cached = new CachedPromptStore(store, options);
    expect((await cached.findLatestPrompt(reader('acme', 1), 'p')).found).toBe(false);
    expect((await cached.findLabelledPrompt(reader('acme', 1), 'p', 'x')).found).toBe(false);
    found = true;
    expect((await cached.findLatestPrompt(reader('acme', 1), 'p')).found).toBe(false);
    expect((await cached.findLatestPrompt(reader('acme', 2), 'p')).found).toBe(true);
    expect(calls).toEqual(['latest', 'label x', 'latest']);
  });

  test('answers are bounded in entries and in characters', async () => {
    const big = { ...prompt('1.0.0'), userMessage: 'u'.repeat(400) };
    const { store } = countingStore(() => ({ found: true, prompt: big }));
    const cached = new CachedPromptStore(store, { ...options, maxAnswers: 3, maxAnswerCharacters: 1_200 });
    for (const id of ['a', 'b', 'c', 'd']) await cached.findLatestPrompt(reader('acme'), id);
    expect(cached.answersKept.entries).toBeLessThanOrEqual(3);
    expect(cached.answersKept.characters).toBeLessThanOrEqual(1_200);
    expect(cached.answersKept.entries).toBe(2);
  });
});
