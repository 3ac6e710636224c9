import type { PromptListEntry } from '../../../dashboard/src/api/types';
import { ALL_PROMPTS, facetsOf, promptsShown, tagsFromText } from '../../../dashboard/src/features/prompts/prompt-list';

/** docs/management-api.md, "The dashboard" (Prompts): the list filters by text, label and tag, and sorts by id, name or last change. */

const entry = (promptId: string, fields: Partial<PromptListEntry> = {}): PromptListEntry => ({
  promptId,
  promptName: promptId,
  description: null,
  tags: [],
  deleted: false,
  latestVersion: '1.0.0',
  labels: {},
  drafts: [],
  updatedAt: null,
  updatedBy: null,
  ...fields,
});

const prompts = [
  entry('welcome', {
    promptName: 'Zebra welcome',
    description: 'Greets a new customer',
    tags: ['email'],
    labels: { production: '1.0.0' },
    updatedAt: '2026-11-01T00:00:00Z',
  }),
  entry('farewell', { promptName: 'Alpha farewell', tags: ['email', 'churn'], updatedAt: '2026-11-20T00:00:00Z' }),
  entry('search', { promptName: 'Middle search', description: 'Finds products' }),
];
const ids = (list: readonly PromptListEntry[]) => list.map((prompt) => prompt.promptId);

test('text is found in ids, names, descriptions, tags and labels, every word of it', () => {
  expect(ids(promptsShown(prompts, { ...ALL_PROMPTS, text: 'customer' }))).toEqual(['welcome']);
  expect(ids(promptsShown(prompts, { ...ALL_PROMPTS, text: 'churn' }))).toEqual(['farewell']);
  expect(ids(promptsShown(prompts, { ...ALL_PROMPTS, text: 'production' }))).toEqual(['welcome']);
  expect(ids(promptsShown(prompts, { ...ALL_PROMPTS, text: 'EMAIL alpha' }))).toEqual(['farewell']);
});

test('a label and a tag narrow the list; names such as constructor are labels like any other', () => {
  expect(ids(promptsShown(prompts, { ...ALL_PROMPTS, label: 'production' }))).toEqual(['welcome']);
  expect(ids(promptsShown(prompts, { ...ALL_PROMPTS, tag: 'email' }))).toEqual(['farewell', 'welcome']);
  expect(ids(promptsShown(prompts, { ...ALL_PROMPTS, label: 'constructor' }))).toEqual([]);
});

test('sorted by id, by name, or by last change with the newest first and never-changed last', () => {
  expect(ids(promptsShown(prompts, ALL_PROMPTS))).toEqual(['farewell', 'search', 'welcome']);
  expect(ids(promptsShown(prompts, { ...ALL_PROMPTS, sort: 'name' }))).toEqual(['farewell', 'search', 'welcome']);
  expect(ids(promptsShown(prompts, { ...ALL_PROMPTS, sort: 'changed' }))).toEqual(['farewell', 'welcome', 'search']);
});

test('the labels and tags to filter by are those the prompts carry, each once', () => {
  expect(facetsOf(prompts)).toEqual({ labels: ['production'], tags: ['churn', 'email'] });
});

test('tags are typed separated by commas or spaces, each kept once', () => {
  expect(tagsFromText(' email, churn  email ')).toEqual(['email', 'churn']);
  expect(tagsFromText('')).toEqual([]);
});
