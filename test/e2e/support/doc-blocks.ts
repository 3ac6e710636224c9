import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The fenced code blocks of the documents a user reads, as the doc-blocks test runs them. Each block is
 * placed by file and line, with its language and the marker written right before it (if any):
 *
 * - `<!-- not run: <why> -->`: a block the test must not run (a deploy, a download, a synopsis); the reason
 *   is required, so a reader of the Markdown sees why the block is not proved.
 * - `<!-- continues the block above -->`: a block that uses what the previous block of its language in the
 *   same file defined (a client, a prompt); the test runs the two as one program.
 */

export interface DocBlock {
  /** Relative to the repository root, as a reader names it. */
  readonly file: string;
  /** The line of the opening fence, 1-based. */
  readonly line: number;
  readonly language: string;
  readonly text: string;
  readonly marker: Marker | undefined;
}

export type Marker = { readonly kind: 'not run'; readonly reason: string } | { readonly kind: 'continues' };

/** What the test does with a block of each language; a language missing here fails the test, so none is skipped unseen. */
export type BlockKind = 'typescript' | 'python' | 'shell' | 'mcp configuration' | 'data';

const KIND_OF_LANGUAGE: Readonly<Record<string, BlockKind>> = {
  ts: 'typescript',
  typescript: 'typescript',
  js: 'typescript',
  javascript: 'typescript',
  python: 'python',
  py: 'python',
  sh: 'shell',
  bash: 'shell',
  shell: 'shell',
  // Data and pictures: files a reader writes or reads, never commands. A JSON block with `mcpServers` is an
  // MCP client's configuration, and is run by connecting with it (kindOf).
  json: 'data',
  yaml: 'data',
  ini: 'data',
  text: 'data',
};

/** The documents whose blocks are run: the README, every page of docs/, and the clients' READMEs. */
export function documentedFiles(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs, 'client/README.md', 'client-python/README.md'];
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/;
const NOT_RUN = /^<!--\s*not run:\s*(.*?)\s*-->$/;
const CONTINUES = /^<!--\s*continues the block above\s*-->$/;

export function blocksOf(root: string, file: string): DocBlock[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] ?? '');
    if (!open) continue;
    const fence = open[1] ?? '```';
    const indent = (lines[i] ?? '').length - (lines[i] ?? '').trimStart().length;
    const body: string[] = [];
    let end = i + 1;
    while (end < lines.length && !closes(lines[end] ?? '', fence)) {
      body.push((lines[end] ?? '').slice(indent));
      end++;
    }
    blocks.push({ file, line: i + 1, language: (open[2] ?? '').toLowerCase(), text: `${body.join('\n')}\n`, marker: markerBefore(lines, i) });
    i = end;
  }
  return blocks;
}

function closes(line: string, fence: string): boolean {
  const trimmed = line.trim();
  return trimmed.startsWith(fence) && trimmed.slice(fence.length).replaceAll(fence[0] ?? '`', '') === '';
}

function markerBefore(lines: readonly string[], fenceIndex: number): Marker | undefined {
  let i = fenceIndex - 1;
  while (i >= 0 && (lines[i] ?? '').trim() === '') i--;
  const line = (lines[i] ?? '').trim();
  const notRun = NOT_RUN.exec(line);
  if (notRun) return { kind: 'not run', reason: notRun[1] ?? '' };
  return CONTINUES.test(line) ? { kind: 'continues' } : undefined;
}

/** The kind of a block, or undefined when its language is not one the test knows (a block without one included). */
export function kindOf(block: DocBlock): BlockKind | undefined {
  const kind = Object.hasOwn(KIND_OF_LANGUAGE, block.language) ? KIND_OF_LANGUAGE[block.language] : undefined;
  return kind === 'data' && block.language === 'json' && block.text.includes('"mcpServers"') ? 'mcp configuration' : kind;
}

/** The program a block stands for: with a `continues` marker, the blocks it continues first. */
export function programOf(block: DocBlock, all: readonly DocBlock[]): string {
  if (block.marker?.kind !== 'continues') return block.text;
  const kind = kindOf(block);
  const earlier = all.filter((other) => other.file === block.file && other.line < block.line && kindOf(other) === kind);
  const previous = earlier[earlier.length - 1];
  if (previous === undefined) throw new Error(`${block.file}:${block.line} continues a block above, but no ${block.language} block comes before it`);
  return `${programOf(previous, all)}\n${block.text}`;
}
