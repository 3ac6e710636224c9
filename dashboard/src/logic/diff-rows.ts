import { diffLines, diffWordsWithSpace } from 'diff';

/** One row of a side-by-side diff: a line on the left (before), on the right (after), or both. */
export interface DiffRow {
  readonly kind: 'same' | 'changed' | 'removed' | 'added';
  readonly left?: { readonly line: number; readonly text: string };
  readonly right?: { readonly line: number; readonly text: string };
}

function linesOf(value: string): string[] {
  const lines = value.split('\n');
  // diffLines keeps each line's newline; the last one leaves an empty piece that is not a line.
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/**
 * The rows of a side-by-side diff of two texts: unchanged lines side by side, a removed run next to
 * the added run that replaced it (changed rows), and what is left over on its own side.
 */
export function sideBySideRows(before: string, after: string): DiffRow[] {
  const rows: DiffRow[] = [];
  let leftLine = 0;
  let rightLine = 0;
  let removed: string[] = [];
  const flushRemoved = (added: string[]) => {
    const pairs = Math.max(removed.length, added.length);
    for (let i = 0; i < pairs; i += 1) {
      const left = removed[i];
      const right = added[i];
      rows.push({
        kind: left !== undefined && right !== undefined ? 'changed' : left !== undefined ? 'removed' : 'added',
        ...(left !== undefined ? { left: { line: ++leftLine, text: left } } : {}),
        ...(right !== undefined ? { right: { line: ++rightLine, text: right } } : {}),
      });
    }
    removed = [];
  };
  for (const change of diffLines(before, after)) {
    const lines = linesOf(change.value);
    if (change.removed) {
      removed.push(...lines);
    } else if (change.added) {
      flushRemoved(lines);
    } else {
      flushRemoved([]);
      for (const text of lines) rows.push({ kind: 'same', left: { line: ++leftLine, text }, right: { line: ++rightLine, text } });
    }
  }
  flushRemoved([]);
  return rows;
}

/** A piece of a changed line: words both sides share, or words only one side has. */
export interface WordPiece {
  readonly kind: 'same' | 'removed' | 'added';
  readonly text: string;
}

/**
 * The words that changed between two texts (a changed line's two sides, or a field's): each side of a diff shows
 * its own pieces (the same and the removed ones before, the same and the added ones after) with the changes marked.
 */
export function wordPieces(before: string, after: string): WordPiece[] {
  return diffWordsWithSpace(before, after).map((change) => ({
    kind: change.added ? 'added' : change.removed ? 'removed' : 'same',
    text: change.value,
  }));
}

/** How many rows differ: 0 means the texts are the same line for line. */
export const changedRowCount = (rows: readonly DiffRow[]): number => rows.filter((row) => row.kind !== 'same').length;

/** What a version holds, as the parts a diff compares: the config as stable, indented JSON. */
export interface ComparableContent {
  readonly systemMessage: string;
  readonly userMessage: string;
  readonly config: Readonly<Record<string, unknown>>;
}

export interface DiffSection {
  readonly title: string;
  readonly rows: DiffRow[];
}

export function contentDiff(before: ComparableContent | undefined, after: ComparableContent): DiffSection[] {
  return [
    { title: 'System message', rows: sideBySideRows(before?.systemMessage ?? '', after.systemMessage) },
    { title: 'User message', rows: sideBySideRows(before?.userMessage ?? '', after.userMessage) },
    { title: 'Config', rows: sideBySideRows(before ? stableJson(before.config) : '', stableJson(after.config)) },
  ];
}

/** JSON with object keys sorted, so two configs differ only where their values do. */
export function stableJson(value: unknown): string {
  return JSON.stringify(sortKeys(value), null, 2);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}
