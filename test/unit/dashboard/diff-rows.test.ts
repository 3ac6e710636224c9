import { changedRowCount, contentDiff, sideBySideRows, stableJson, wordPieces } from '../../../dashboard/src/logic/diff-rows';

describe('side-by-side diff rows', () => {
  test('the same text is all unchanged rows, numbered on both sides', () => {
    expect(sideBySideRows('a\nb', 'a\nb')).toEqual([
      { kind: 'same', left: { line: 1, text: 'a' }, right: { line: 1, text: 'a' } },
      { kind: 'same', left: { line: 2, text: 'b' }, right: { line: 2, text: 'b' } },
    ]);
  });

  test('a replaced line sits next to its replacement', () => {
    expect(sideBySideRows('a\nold\nc', 'a\nnew\nc')).toEqual([
      { kind: 'same', left: { line: 1, text: 'a' }, right: { line: 1, text: 'a' } },
      { kind: 'changed', left: { line: 2, text: 'old' }, right: { line: 2, text: 'new' } },
      { kind: 'same', left: { line: 3, text: 'c' }, right: { line: 3, text: 'c' } },
    ]);
  });

  test('an added line has nothing on the left, and the line numbers stay true on each side', () => {
    expect(sideBySideRows('a\nc', 'a\nb\nc')).toEqual([
      { kind: 'same', left: { line: 1, text: 'a' }, right: { line: 1, text: 'a' } },
      { kind: 'added', right: { line: 2, text: 'b' } },
      { kind: 'same', left: { line: 2, text: 'c' }, right: { line: 3, text: 'c' } },
    ]);
  });

  test('a removed line has nothing on the right', () => {
    expect(sideBySideRows('a\nb\nc', 'a\nc')).toEqual([
      { kind: 'same', left: { line: 1, text: 'a' }, right: { line: 1, text: 'a' } },
      { kind: 'removed', left: { line: 2, text: 'b' } },
      { kind: 'same', left: { line: 3, text: 'c' }, right: { line: 2, text: 'c' } },
    ]);
  });

  test('two lines replaced by three: two changed rows and one added', () => {
    const rows = sideBySideRows('x\ny', 'p\nq\nr');
    expect(rows.map((row) => row.kind)).toEqual(['changed', 'changed', 'added']);
    expect(changedRowCount(rows)).toBe(3);
  });

  test('from nothing, every line is added', () => {
    expect(sideBySideRows('', 'one\ntwo').map((row) => row.kind)).toEqual(['added', 'added']);
  });
});

describe('a diff of two versions', () => {
  const base = { systemMessage: 'You are kind.', userMessage: 'Hi ${name}', config: { temperature: 0.7, model: 'gpt-4o-mini' } };

  test('compares system message, user message and config, in that order', () => {
    const sections = contentDiff(base, { ...base, userMessage: 'Hello ${name}' });
    expect(sections.map((section) => [section.title, changedRowCount(section.rows)])).toEqual([
      ['System message', 0],
      ['User message', 1],
      ['Config', 0],
    ]);
  });

  test('configs are compared as data: key order does not make a difference', () => {
    const sections = contentDiff(base, { ...base, config: { model: 'gpt-4o-mini', temperature: 0.7 } });
    expect(changedRowCount(sections[2]?.rows ?? [])).toBe(0);
  });

  test('stable JSON sorts keys at every depth', () => {
    expect(stableJson({ b: 1, a: { d: 2, c: [{ f: 1, e: 2 }] } })).toBe(JSON.stringify({ a: { c: [{ e: 2, f: 1 }], d: 2 }, b: 1 }, null, 2));
  });
});

describe('words inside a changed line', () => {
  test('only the words that changed are marked', () => {
    expect(wordPieces('Hello dear ${name}', 'Hello kind ${name}')).toEqual([
      { kind: 'same', text: 'Hello ' },
      { kind: 'removed', text: 'dear' },
      { kind: 'added', text: 'kind' },
      { kind: 'same', text: ' ${name}' },
    ]);
  });
});
