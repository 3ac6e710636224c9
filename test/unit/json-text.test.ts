import { JsonSyntaxError, parseJsonText } from '../../admin/json-text';

/** Where a JSON file is broken, as line and column, and what is wrong there, without quoting the text. */

function refusal(text: string): JsonSyntaxError {
  try {
    parseJsonText(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) return error;
    throw error;
  }
  throw new Error('the text parsed');
}

test.each([
  ['a missing comma', '{\n  "a": 1\n  "b": 2\n}', 3, 3, 'unexpected """: expected "," or "}" after a property value (is a comma missing?)'],
  ['a trailing comma', '{\n  "a": [1, 2,]\n}', 2, 14, 'a comma before "]" (JSON allows no trailing comma)'],
  ['single quotes', "{'a': 1}", 1, 2, 'strings and names take double quotes, not single ones'],
  ['a misspelt literal', '{"a": tru}', 1, 7, 'unexpected word: did you mean true? (or a string in double quotes)'],
  ['a line break inside a string', '{"a": "x\ny"}', 1, 9, 'a line break or control character inside a string (write it as \\n or \\u00XX)'],
  ['a text that ends too early', '{\n  "a": {\n', 3, 1, 'the text ends too early (is a closing bracket missing?)'],
  ['text after the value', '{}\n}', 2, 1, 'unexpected "}" after the end of the JSON value'],
])('%s is placed at its line and column', (_name, text, line, column, reason) => {
  const error = refusal(text);
  expect({ line: error.line, column: error.column, reason: error.reason }).toEqual({ line, column, reason });
  expect(error.message).toBe(`not valid JSON at line ${line}, column ${column}: ${reason}`);
});

test('an unexpected token never quotes the text around it, which may hold a key', () => {
  const secret = 'prs_ThisIsASecretKeyValue0123456789';
  expect(refusal(`{"apiKey": "${secret}", "x": nope}`).message).not.toContain(secret);
});

test('a byte-order mark before the JSON is accepted', () => {
  expect(parseJsonText('\uFEFF{"a": 1}')).toEqual({ a: 1 });
});

test('a broken text nested 100,000 levels deep is refused with a place and a reason, never a stack overflow', () => {
  const error = refusal(`${'['.repeat(100_000)}x`);
  expect(error).toMatchObject({ line: 1, column: 1_001, reason: 'nests deeper than 1000 levels: no file this tool reads needs that' });
});
