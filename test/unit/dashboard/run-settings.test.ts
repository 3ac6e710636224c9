import type { PromptDetail } from '../../../dashboard/src/api/types';
import {
  defaultModel,
  milliseconds,
  nextSource,
  paramsOf,
  ranWhat,
  runRequest,
  sourceChoices,
  sourceOf,
  sourceValue,
  startingSources,
  startingValues,
  usd,
} from '../../../dashboard/src/features/playground/run-settings';

/** The Playground's rules (dashboard/src/features/playground/run-settings.ts): sources, starting columns and values, a run's request, numbers in words. */

const summary = (version: string, published: boolean) => ({
  version,
  published,
  publishedAt: published ? '2026-11-01T00:00:00.000Z' : null,
  publishedBy: published ? 'ada@example.com' : null,
  note: null,
  updatedAt: null,
  updatedBy: null,
});

const DETAIL: PromptDetail = {
  promptId: 'welcome',
  promptName: 'Welcome',
  description: null,
  tags: [],
  deleted: false,
  latestVersion: '1.0.1',
  labels: { production: '1.0.0', beta: '1.0.1' },
  versions: [summary('1.0.0', true), summary('1.0.1', true), summary('1.1.0', false)],
  updatedAt: null,
  updatedBy: null,
};

test('a column may run the editor’s draft (in the editor only), latest, each label, then each version newest first', () => {
  expect(sourceChoices(DETAIL, '1.1.0').map((choice) => choice.text)).toEqual([
    'Draft 1.1.0, as in the editor (unsaved)',
    'Label latest (1.0.1)',
    'Label beta (1.0.1)',
    'Label production (1.0.0)',
    'Version 1.1.0 (draft)',
    'Version 1.0.1',
    'Version 1.0.0',
  ]);
  expect(sourceChoices(DETAIL, undefined)[0]?.text).toBe('Label latest (1.0.1)');
  expect(sourceChoices({ ...DETAIL, latestVersion: null, labels: {} }, undefined).map((choice) => choice.value)).toEqual([
    'version:1.1.0',
    'version:1.0.1',
    'version:1.0.0',
  ]);
});

test('a source is an option’s value and back, a label or version with a colon in it too', () => {
  for (const source of [{ kind: 'draft' }, { kind: 'version', version: '1.0.0' }, { kind: 'label', label: 'team:a' }] as const) {
    expect(sourceOf(sourceValue(source))).toEqual(source);
  }
  expect(sourceOf('version:')).toBeUndefined();
  expect(sourceOf('nonsense')).toBeUndefined();
});

test('the Playground opens on two columns that run different versions: the draft and latest, or latest and another version', () => {
  expect(startingSources(sourceChoices(DETAIL, '1.1.0'), DETAIL)).toEqual([{ kind: 'draft' }, { kind: 'label', label: 'latest' }]);
  expect(startingSources(sourceChoices(DETAIL, undefined), DETAIL)).toEqual([
    { kind: 'label', label: 'latest' },
    { kind: 'label', label: 'production' },
  ]);
  const single = { ...DETAIL, latestVersion: null, labels: {}, versions: [summary('1.0.0', false)] };
  expect(startingSources(sourceChoices(single, undefined), single)).toEqual([{ kind: 'version', version: '1.0.0' }]);
});

test('an added column runs the first source no column runs yet', () => {
  const choices = sourceChoices(DETAIL, undefined);
  expect(nextSource(choices, [{ kind: 'label', label: 'latest' }])).toEqual({ kind: 'label', label: 'beta' });
});

test('the parameters: an empty temperature is the prompt’s own; each out of range is named', () => {
  expect(paramsOf({ temperature: '', maxTokens: '1024' })).toEqual({ params: { maxTokens: 1024 } });
  expect(paramsOf({ temperature: '0.2', maxTokens: '50' })).toEqual({ params: { maxTokens: 50, temperature: 0.2 } });
  expect(paramsOf({ temperature: '2.5', maxTokens: '0' }).problems).toEqual({
    temperature: 'A number from 0 to 2, or empty for the prompt’s own.',
    maxTokens: 'A whole number from 1 to 8,192.',
  });
  expect(paramsOf({ temperature: 'warm', maxTokens: '1.5' }).problems).toHaveProperty('maxTokens');
});

test('a run asks for its source with the prompt id, only the variables its text uses, the model and the parameters', () => {
  const variables = new Map([
    ['name', 'Ada'],
    ['__proto__', 'x'],
    ['unused', 'y'],
  ]);
  const request = runRequest({
    promptId: 'welcome',
    source: { kind: 'label', label: 'production' },
    draft: undefined,
    variables,
    names: ['name', '__proto__', 'topic'],
    model: 'gpt-4o-mini',
    params: { maxTokens: 100 },
  });
  expect(request?.source).toEqual({ promptId: 'welcome', label: 'production' });
  expect(Object.entries(request?.variables ?? {})).toEqual([
    ['name', 'Ada'],
    ['__proto__', 'x'],
    ['topic', ''],
  ]);
  expect([request?.model, request?.params]).toEqual(['gpt-4o-mini', { maxTokens: 100 }]);
  const draft = { systemMessage: 's', userMessage: 'u', config: { model: 'm', temperature: 1 } };
  expect(runRequest({ promptId: 'welcome', source: { kind: 'draft' }, draft, variables, names: [], model: undefined, params: { maxTokens: 5 } })).toEqual({
    source: { prompt: draft, promptId: 'welcome' },
    variables: {},
    params: { maxTokens: 5 },
  });
  expect(
    runRequest({ promptId: 'welcome', source: { kind: 'draft' }, draft: undefined, variables, names: [], model: undefined, params: { maxTokens: 5 } }),
  ).toBe(undefined);
});

test('variables start from what was typed for the prompt, else its input data (under its root name when it has one)', () => {
  const samples = new Map([['name', 'Typed']]);
  expect([...startingValues(['name', 'topic', 'count'], samples, { inputData: { name: 'Data', topic: 'billing', count: 3 } })]).toEqual([
    ['name', 'Typed'],
    ['topic', 'billing'],
    ['count', '3'],
  ]);
  expect([...startingValues(['topic'], new Map(), { inputData: { customer: { topic: 'refunds' } }, inputDataRootName: 'customer' })]).toEqual([
    ['topic', 'refunds'],
  ]);
  expect([...startingValues(['toString'], new Map(), { inputData: {} })]).toEqual([]);
  expect([...startingValues(['topic'], new Map(), { inputData: null })]).toEqual([]);
});

test('the model is the prompt’s own when the catalog has it, else the catalog’s first', () => {
  const model = (modelId: string) => ({
    modelId,
    provider: 'local' as const,
    name: modelId,
    streaming: true,
    structuredOutput: true,
    inputUsdPerMTok: 1,
    outputUsdPerMTok: 5,
  });
  expect(defaultModel([model('a'), model('b')], 'b')).toBe('b');
  expect(defaultModel([model('a'), model('b')], 'gone')).toBe('a');
  expect(defaultModel([], 'b')).toBeUndefined();
});

test('numbers in words: a cost never shows a fraction of a cent as 0, times in ms or s, what a run ran', () => {
  expect([usd(0), usd(0.0000123), usd(0.0011), usd(0.25)]).toEqual(['$0', '$0.000012', '$0.0011', '$0.2500']);
  expect([milliseconds(null), milliseconds(850), milliseconds(1530)]).toEqual(['—', '850 ms', '1.53 s']);
  expect([ranWhat({ version: '1.0.0', label: 'production' }), ranWhat({ version: '1.0.0', label: null }), ranWhat({ version: null, label: null })]).toEqual([
    'label production (1.0.0)',
    'version 1.0.0',
    'unsaved draft',
  ]);
});
