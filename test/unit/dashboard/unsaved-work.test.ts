import type { DraftForm } from '../../../dashboard/src/features/versions/draft-form';
import {
  differingFields,
  mergeForms,
  readSampleValues,
  readUnsavedDraft,
  sampleValuesKey,
  unsavedDraftKey,
  writeSampleValues,
  writeUnsavedDraft,
} from '../../../dashboard/src/features/versions/unsaved-work';

/** docs/management-api.md, "The dashboard" (No lost work): what a tab keeps, under which name, and how a conflict is settled field by field. */

class MemoryStorage {
  readonly items = new Map<string, string>();
  getItem = (key: string) => this.items.get(key) ?? null;
  setItem = (key: string, value: string) => void this.items.set(key, value);
  removeItem = (key: string) => void this.items.delete(key);
}

const form = (change: Partial<DraftForm> = {}): DraftForm => ({
  systemMessage: 'You are kind.',
  userMessage: 'Hello ${name}',
  model: 'gpt-4o-mini',
  temperature: '0.7',
  schema: '[]',
  inputData: '',
  inputDataRootName: '',
  ...change,
});

test('unsaved text is kept per person, account, prompt and version, and ids cannot run into each other', () => {
  const place = { userId: 'u1', accountId: 'acme', promptId: 'welcome', version: '1.0.0' };
  expect(unsavedDraftKey(place)).not.toBe(unsavedDraftKey({ ...place, userId: 'u2' }));
  expect(unsavedDraftKey(place)).not.toBe(unsavedDraftKey({ ...place, version: '1.0.1' }));
  expect(unsavedDraftKey({ ...place, accountId: 'a/b', promptId: 'c' })).not.toBe(unsavedDraftKey({ ...place, accountId: 'a', promptId: 'b/c' }));
});

test('unsaved text is read back with the ETag it was typed over; anything else in storage reads as nothing', () => {
  const storage = new MemoryStorage();
  writeUnsavedDraft(storage, 'k', { form: form({ userMessage: 'mine' }), baseEtag: '"abc"' });
  expect(readUnsavedDraft(storage, 'k')).toEqual({ form: form({ userMessage: 'mine' }), baseEtag: '"abc"' });
  for (const text of ['not json', '{"form":{}}', '{"form":null,"baseEtag":"x"}', '[]']) {
    storage.setItem('bad', text);
    expect(readUnsavedDraft(storage, 'bad')).toBeUndefined();
  }
});

test('only the fields that differ are offered, in the order of the editor', () => {
  expect(differingFields(form(), form({ userMessage: 'other', model: 'gpt-4o' }))).toEqual(['userMessage', 'model']);
  expect(differingFields(form(), form())).toEqual([]);
});

test('a merge is their form with the fields the person chose to keep as they wrote them', () => {
  const theirs = form({ systemMessage: 'theirs', userMessage: 'theirs' });
  const mine = form({ systemMessage: 'mine', userMessage: 'mine' });
  expect(
    mergeForms(
      theirs,
      mine,
      new Map([
        ['userMessage', 'mine'],
        ['systemMessage', 'theirs'],
      ]),
    ),
  ).toEqual(form({ systemMessage: 'theirs', userMessage: 'mine' }));
});

test('sample values are kept per person, account and prompt, names such as __proto__ included, empty ones dropped', () => {
  const storage = new MemoryStorage();
  const key = sampleValuesKey({ userId: 'u1', accountId: 'acme', promptId: 'welcome' });
  writeSampleValues(
    storage,
    key,
    new Map([
      ['name', 'Ada'],
      ['__proto__', 'x'],
      ['plan', ''],
    ]),
  );
  expect([...readSampleValues(storage, key)]).toEqual([
    ['name', 'Ada'],
    ['__proto__', 'x'],
  ]);
  writeSampleValues(storage, key, new Map([['name', '']]));
  expect(storage.items.has(key)).toBe(false);
});
