import { execFileSync } from 'node:child_process';
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

test.each(DOCUMENTS)('%s links only headings its targets have', (document) => {
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

/** Every file git tracks, as text; binary files (images, the Python client's wheels) are left out. */
function trackedTextFiles(): { path: string; text: string }[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((path) => path !== '' && !path.split('/').includes('node_modules') && existsSync(join(ROOT, path)))
    .map((path) => ({ path, bytes: readFileSync(join(ROOT, path)) }))
    .filter(({ bytes }) => !bytes.includes(0))
    .map(({ path, bytes }) => ({ path, text: bytes.toString('utf8') }));
}

test('no tracked file points outside the repository: no shared spec, no relative path that leaves it', () => {
  const sharedSpec = ['shared', 'spec'].join('/');
  const outside = trackedTextFiles().flatMap(({ path, text }) => [
    ...(text.includes(sharedSpec) ? [`${path}: names ${sharedSpec}`] : []),
    // `../` steps, read from the file's own folder, as a link, an import or a shell line in it would be.
    ...[...text.matchAll(/(?:\.\.\/)+[^\s'"`)\]}>,;]*/g)]
      .filter((match) => relative(ROOT, resolve(ROOT, dirname(path), match[0])).startsWith('..'))
      .map((match) => `${path}: ${match[0]}`),
  ]);
  expect(outside).toEqual([]);
});

/** `docs/<page>.md, "<Section>"` (or without the comma) in code, tests and the dashboard: each cited section. */
const docCitations = [...sourceFiles, ...filesUnder(join(ROOT, 'dashboard', 'src'))].flatMap((path) =>
  [...readFileSync(path, 'utf8').matchAll(/\b(docs\/[\w-]+\.md),? "([^"]+)"/g)].map((match) => ({
    file: relative(ROOT, path),
    page: match[1] as string,
    section: match[2] as string,
  })),
);

test('every section of a docs/ page that code and tests cite is a heading of that page', () => {
  // A heading is cited whole, or by its words before a colon ("Store faults" for "Store faults: an answer within 5 s").
  const cites = (page: string, section: string) =>
    existsSync(join(ROOT, page)) &&
    [...prose(readFileSync(join(ROOT, page), 'utf8')).matchAll(/^#{1,6} (.+)$/gm)].some(
      (heading) => heading[1] === section || heading[1]?.startsWith(`${section}:`),
    );
  expect(docCitations.length).toBeGreaterThan(0);
  expect(docCitations.filter(({ page, section }) => !cites(page, section))).toEqual([]);
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
