import { type WordPiece, wordPieces } from './diff-rows';

/**
 * Two outputs of a prompt compared word by word (the Playground's diff between two columns): one run of text, the
 * words only the first has marked removed and the words only the second has marked added, with a count of each so
 * the difference is said in words as well as shown.
 */
export interface WordDiff {
  readonly pieces: readonly WordPiece[];
  readonly removedWords: number;
  readonly addedWords: number;
  readonly same: boolean;
}

const wordsIn = (text: string): number => text.split(/\s+/).filter(Boolean).length;

export function wordDiff(before: string, after: string): WordDiff {
  const pieces = wordPieces(before, after).filter((piece) => piece.text !== '');
  const count = (kind: WordPiece['kind']) => pieces.filter((piece) => piece.kind === kind).reduce((sum, piece) => sum + wordsIn(piece.text), 0);
  const removedWords = count('removed');
  const addedWords = count('added');
  // Outputs that differ in spaces alone hold no word of difference, yet are not the same text.
  return { pieces, removedWords, addedWords, same: before === after };
}

const words = (n: number) => `${n} ${n === 1 ? 'word' : 'words'}`;

/** The difference in one sentence, `first` and `second` naming the two outputs. */
export function wordDiffSummary(diff: WordDiff, first: string, second: string): string {
  if (diff.same) return `${first} and ${second} wrote the same text.`;
  if (diff.removedWords === 0 && diff.addedWords === 0) return `${first} and ${second} differ in spacing only.`;
  return `${words(diff.removedWords)} of ${first} not in ${second}; ${words(diff.addedWords)} of ${second} not in ${first}.`;
}
