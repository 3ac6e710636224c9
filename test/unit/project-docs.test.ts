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

/** Every Markdown document of the project: the README, docs/, and each folder's README. */
const DOCUMENTS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  ...[...SOURCE_FOLDERS, 'client', 'client-python', 'dashboard']
    .flatMap((folder) => (existsSync(join(ROOT, folder)) ? filesUnder(join(ROOT, folder)) : []))
    .filter((path) => path.endsWith('README.md') && !path.includes('node_modules'))
    .map((path) => relative(ROOT, path)),
];

/** Markdown outside fenced code blocks, where a link is a link. */
const prose = (markdown: string): string => markdown.replace(/^```[\s\S]*?^```/gm, '');

/** Relative Markdown links, each as its target file (the document itself for `#x`) and fragment. */
function relativeLinks(document: string): { file: string; fragment: string | undefined }[] {
  return [...prose(readFileSync(join(ROOT, document), 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] ?? '')
    .filter((target) => target !== '' && !/^[a-z]+:/i.test(target))
    .map((target) => {
      const [path = '', fragment] = target.split('#');
      return { file: path === '' ? document : relative(ROOT, resolve(ROOT, dirname(document), path)), fragment };
    });
}

/** The anchors GitHub gives a document's headings: lower case, punctuation dropped, spaces as hyphens. */
function anchorsOf(document: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of prose(readFileSync(join(ROOT, document), 'utf8')).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = (match[1] ?? '')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\- _]/gu, '')
      .replaceAll(' ', '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

test.each(DOCUMENTS)('%s links only files of the repository', (document) => {
  const outside = relativeLinks(document)
    .map(({ file }) => file)
    .filter((file) => file.startsWith('..') || !existsSync(join(ROOT, file)));
  expect(outside).toEqual([]);
});

test.each(DOCUMENTS)("%s links only headings its targets have", (document) => {
  const broken = relativeLinks(document)
    .filter(({ file, fragment }) => fragment !== undefined && file.endsWith('.md') && existsSync(join(ROOT, file)))
    .filter(({ file, fragment }) => !anchorsOf(file).has(fragment as string))
    .map(({ file, fragment }) => `${file}#${fragment}`);
  expect(broken).toEqual([]);
});

test('the documents include every page of docs/ and every folder README', () => {
  expect(DOCUMENTS).toEqual(expect.arrayContaining(['README.md', 'docs/deploy.md', 'lambda/README.md', 'client-python/README.md']));
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
