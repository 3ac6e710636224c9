import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/**
 * dashboard/README.md "Where things are": the shared folders are shared, so none of them reaches into a feature;
 * every dialog is components/dialog.tsx's; every label change goes through the label-move hook.
 */

const SRC = resolve(__dirname, '../../../dashboard/src');

function sourcesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourcesUnder(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const sources = sourcesUnder(SRC).map((path) => ({ path: relative(SRC, path), text: readFileSync(path, 'utf8') }));

/** Where each relative import of a file leads, from dashboard/src. */
const importsOf = (file: { path: string; text: string }): string[] =>
  [...file.text.matchAll(/from '(\.{1,2}\/[^']+)'/g)].map((match) => relative(SRC, resolve(SRC, file.path, '..', match[1] ?? '')));

test('components/, logic/ and auth/ import no feature', () => {
  const reaching = sources
    .filter((file) => /^(components|logic|auth)\//.test(file.path))
    .flatMap((file) =>
      importsOf(file)
        .filter((target) => target.startsWith('features/'))
        .map((target) => `${file.path} -> ${target}`),
    );
  expect(reaching).toEqual([]);
});

test('the one <dialog> element is components/dialog.tsx’s', () => {
  expect(sources.filter((file) => file.text.includes('<dialog')).map((file) => file.path)).toEqual(['components/dialog.tsx']);
});

test('only the label-move hook sends a label change to the API', () => {
  const senders = sources.filter((file) => /\bapi\.(setLabel|removeLabel|startRollout)\(/.test(file.text)).map((file) => file.path);
  expect(senders).toEqual(['features/labels/use-label-move.ts']);
});

test('no source file of the dashboard is over 450 lines', () => {
  const long = sources.map((file) => ({ path: file.path, lines: file.text.split('\n').length })).filter((file) => file.lines > 450);
  expect(long).toEqual([]);
});
