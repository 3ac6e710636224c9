import { prefixSuggestions, scopeEntryOf, scopeMatch } from '../../../dashboard/src/features/keys/key-scope';

/** docs/management-api.md, "The dashboard" (Keys): a key's scope is picked from the account's prompt ids and prefixes. */

const ids = ['web.home', 'web.checkout', 'email-welcome', 'email-reset'];

test('an exact id that no prompt has is pointed out', () => {
  expect(scopeMatch('web.home', ids)).toEqual({ matches: 1, words: 'this prompt' });
  expect(scopeMatch('web.hmoe', ids)).toEqual({ matches: 0, words: 'no prompt has this id in this account' });
});

test('a prefix says how many prompts it reads today', () => {
  expect(scopeMatch('web.*', ids).words).toBe('2 prompts today');
  expect(scopeMatch('sms.*', ids)).toEqual({ matches: 0, words: 'no prompt starts with sms. yet' });
});

test('prefixes are offered from the ids, each once', () => {
  expect(prefixSuggestions(ids)).toEqual(['email-*', 'web.*']);
});

test('an entry is one word: blanks and spaces are not entries', () => {
  expect(scopeEntryOf('  web.* ')).toBe('web.*');
  expect(scopeEntryOf('')).toBeUndefined();
  expect(scopeEntryOf('two words')).toBeUndefined();
});
