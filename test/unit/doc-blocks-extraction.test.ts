import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blocksOf, kindOf, programOf } from '../e2e/support/doc-blocks';

/**
 * How the doc-blocks test (test/e2e/doc-blocks.test.ts) reads a document: which blocks it finds, the marker
 * before each, and the kind that decides how it is run. What it cannot classify fails that test.
 */

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'doc-blocks-extraction-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function blocksOfText(markdown: string) {
  writeFileSync(join(root, 'page.md'), markdown);
  return blocksOf(root, 'page.md');
}

test('each fenced block is found with its line, language and text', () => {
  const blocks = blocksOfText(['# Page', '', '```sh', 'curl "$PROMPTS_URL/prompts"', '```', '', '~~~python', 'print(1)', '~~~'].join('\n'));

  expect(blocks.map(({ line, language, text }) => ({ line, language, text }))).toEqual([
    { line: 3, language: 'sh', text: 'curl "$PROMPTS_URL/prompts"\n' },
    { line: 7, language: 'python', text: 'print(1)\n' },
  ]);
});

test("a longer fence holds a shorter one as text, and a list item's indented block loses its indent", () => {
  const blocks = blocksOfText(['````md', '```ts', 'inner', '```', '````', '', '- item', '  ```ts', '  const a = 1;', '  ```'].join('\n'));

  expect(blocks.map(({ language, text }) => ({ language, text }))).toEqual([
    { language: 'md', text: '```ts\ninner\n```\n' },
    { language: 'ts', text: 'const a = 1;\n' },
  ]);
});

test('a not-run marker right before a block, blank lines between, is read with its reason', () => {
  const [block] = blocksOfText(['<!-- not run: deploys to AWS -->', '', '```sh', 'npx cdk deploy', '```'].join('\n'));

  expect(block?.marker).toEqual({ kind: 'not run', reason: 'deploys to AWS' });
});

test('a marker with prose between it and the block does not mark it', () => {
  const [block] = blocksOfText(['<!-- not run: deploys to AWS -->', 'Then:', '```sh', 'npx cdk deploy', '```'].join('\n'));

  expect(block?.marker).toBeUndefined();
});

test('a not-run marker without a reason is read with an empty one, which the doc-blocks test refuses', () => {
  const [block] = blocksOfText(['<!-- not run: -->', '```sh', 'npx cdk deploy', '```'].join('\n'));

  expect(block?.marker).toEqual({ kind: 'not run', reason: '' });
});

test('a block without a language, or with one the test does not know, has no kind', () => {
  const blocks = blocksOfText(['```', 'npm start', '```', '```ruby', 'puts 1', '```'].join('\n'));

  expect(blocks.map(kindOf)).toEqual([undefined, undefined]);
});

test('JSON is data, unless it is an MCP configuration; shell, TypeScript and Python blocks are run', () => {
  const blocks = blocksOfText(
    ['```json', '{"a": 1}', '```', '```json', '{"mcpServers": {}}', '```', '```bash', 'ls', '```', '```js', 'x', '```', '```py', 'x', '```'].join('\n'),
  );

  expect(blocks.map(kindOf)).toEqual(['data', 'mcp configuration', 'shell', 'typescript', 'python']);
});

test('a block that continues the one above runs after the previous block of its kind, through a chain', () => {
  const all = blocksOfText(
    [
      '```python',
      'a = 1',
      '```',
      '```sh',
      'echo between',
      '```',
      '<!-- continues the block above -->',
      '```python',
      'b = a + 1',
      '```',
      '<!-- continues the block above -->',
      '```python',
      'print(b)',
      '```',
    ].join('\n'),
  );
  const last = all[all.length - 1];
  if (last === undefined) throw new Error('no block');

  expect(programOf(last, all)).toBe('a = 1\n\nb = a + 1\n\nprint(b)\n');
});

test('a block that continues nothing is an error naming it', () => {
  const all = blocksOfText(['<!-- continues the block above -->', '```ts', 'x', '```'].join('\n'));
  const [block] = all;
  if (block === undefined) throw new Error('no block');

  expect(() => programOf(block, all)).toThrow('page.md:2 continues a block above, but no ts block comes before it');
});
