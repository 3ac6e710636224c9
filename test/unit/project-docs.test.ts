import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** The project describes itself: its documents link only its own files, and what the tests cite is there. */

const ROOT = resolve(__dirname, '..', '..');
const RULES = 'docs/behaviour-rules.md';
const SOURCE_FOLDERS = ['admin', 'bin', 'lambda', 'lib', 'local', 'test'];

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const sourceFiles = SOURCE_FOLDERS.flatMap((folder) => filesUnder(join(ROOT, folder))).filter((path) => /\.(ts|js|cjs)$/.test(path));

/** Relative Markdown links, without their #fragment. */
function relativeLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => (match[1] ?? '').split('#')[0] ?? '')
    .filter((target) => target !== '' && !/^[a-z]+:/i.test(target));
}

test.each(['README.md', RULES])('%s links only files of the repository', (document) => {
  const links = relativeLinks(readFileSync(join(ROOT, document), 'utf8'));
  const outside = links.filter((link) => {
    const target = resolve(ROOT, dirname(document), link);
    return relative(ROOT, target).startsWith('..') || !existsSync(target);
  });
  expect(outside).toEqual([]);
});

test('no code, test or README cites a rules file outside the repository', () => {
  const outsideRules = ['decisions', 'md'].join('.');
  const citing = [...sourceFiles, join(ROOT, 'README.md')]
    .filter((path) => readFileSync(path, 'utf8').includes(outsideRules))
    .map((path) => relative(ROOT, path));
  expect(citing).toEqual([]);
});

test(`every section of ${RULES} that code and tests cite is a heading of it`, () => {
  const headings = new Set([...readFileSync(join(ROOT, RULES), 'utf8').matchAll(/^## (.+)$/gm)].map((match) => match[1]));
  const cited = sourceFiles.flatMap((path) =>
    [...readFileSync(path, 'utf8').matchAll(/docs\/behaviour-rules\.md, ((?:"[^"]+"(?:,? and |, )?)+)/g)].flatMap((match) =>
      [...(match[1] ?? '').matchAll(/"([^"]+)"/g)].map((section) => ({ file: relative(ROOT, path), section: section[1] })),
    ),
  );
  expect(cited.length).toBeGreaterThan(0);
  expect(cited.filter(({ section }) => !headings.has(section))).toEqual([]);
});
