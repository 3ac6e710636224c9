import { wordDiff, wordDiffSummary } from '../../../dashboard/src/logic/word-diff';

/** Two outputs compared word by word (dashboard/src/logic/word-diff.ts), and the difference said in words. */

test('words only the first output has are removed, words only the second has are added, the rest stays', () => {
  const diff = wordDiff('Hello Ada, welcome to Acme!', 'Hello Bob, welcome to Acme!');
  expect(diff.pieces).toEqual([
    { kind: 'same', text: 'Hello ' },
    { kind: 'removed', text: 'Ada' },
    { kind: 'added', text: 'Bob' },
    { kind: 'same', text: ', welcome to Acme!' },
  ]);
  expect([diff.removedWords, diff.addedWords, diff.same]).toEqual([1, 1, false]);
});

test('the pieces of each side put back together are that side', () => {
  const before = 'The quick brown fox\njumps over the dog.';
  const after = 'A quick red fox\njumps over the lazy dog!';
  const { pieces } = wordDiff(before, after);
  expect(
    pieces
      .filter((piece) => piece.kind !== 'added')
      .map((piece) => piece.text)
      .join(''),
  ).toBe(before);
  expect(
    pieces
      .filter((piece) => piece.kind !== 'removed')
      .map((piece) => piece.text)
      .join(''),
  ).toBe(after);
});

test('added words are counted as words, not pieces', () => {
  const diff = wordDiff('Thanks.', 'Thanks. We will write again tomorrow.');
  expect([diff.removedWords, diff.addedWords]).toEqual([0, 5]);
});

test('the summary says the same text, spacing only, or how many words each has that the other has not', () => {
  expect(wordDiffSummary(wordDiff('a b', 'a b'), 'column 1', 'column 2')).toBe('column 1 and column 2 wrote the same text.');
  expect(wordDiffSummary(wordDiff('a b', 'a  b'), 'column 1', 'column 2')).toBe('column 1 and column 2 differ in spacing only.');
  expect(wordDiffSummary(wordDiff('a b c', 'a d'), 'column 1', 'column 2')).toBe('2 words of column 1 not in column 2; 1 word of column 2 not in column 1.');
});

test('an empty output against another is all added', () => {
  const diff = wordDiff('', 'Hi there');
  expect(diff.pieces).toEqual([{ kind: 'added', text: 'Hi there' }]);
  expect(diff.addedWords).toBe(2);
});
