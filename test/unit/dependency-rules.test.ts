import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, resolve } from 'node:path';
import * as ts from 'typescript';

/**
 * docs/layout.md "Dependencies": the table there is the rule. Each row is read from the document, and every import
 * of every .ts/.tsx file under the folders the rows name is checked against it.
 */

const ROOT = resolve(__dirname, '..', '..');
const LAYOUT = 'docs/layout.md';

interface Rule {
  /** The files the row holds: folders (`x/`), files, or patterns with `*` for one folder name. */
  readonly files: readonly string[];
  /** When given, an import must lead into one of these. */
  readonly only: readonly string[];
  readonly forbidden: readonly string[];
  /** What an import may lead to though `forbidden` names it. */
  readonly allowed: readonly string[];
  /** Files the row does not hold, though `files` names them. */
  readonly except: readonly string[];
}

interface Source {
  /** From the repository's root, with `/`. */
  readonly path: string;
  readonly text: string;
}

/** The backquoted names of a table cell. */
const namesIn = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? '');

/** The rows of the first table under the `## Dependencies` heading. */
function rulesOf(markdown: string): Rule[] {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('Dependencies\n'));
  if (!section) throw new Error(`${LAYOUT} has no "Dependencies" section`);
  const rows = section
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) => line.split('|').slice(1, -1));
  const [header, divider, ...body] = rows;
  if (header?.length !== 6 || !divider?.every((cell) => /^\s*-+\s*$/.test(cell))) throw new Error(`${LAYOUT} "Dependencies": not the six-column table`);
  return body.map(([files = '', only = '', forbidden = '', allowed = '', except = '']) => ({
    files: namesIn(files),
    only: namesIn(only),
    forbidden: namesIn(forbidden),
    allowed: namesIn(allowed),
    except: namesIn(except),
  }));
}

/** Whether `path` is one that `name` names: under a folder (`x/`), the file itself, or a match of `*` (one folder name). */
function names(name: string, path: string): boolean {
  if (name.endsWith('/')) return path.startsWith(name);
  if (!name.includes('*')) return path === name;
  const pattern = name
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return new RegExp(`^${pattern}$`).test(path);
}

const namedBy = (list: readonly string[], path: string): boolean => list.some((name) => names(name, path));

/** What an import's specifier leads to, as the bundler resolves it: the file, with `.ts`, `.tsx` or `/index.ts` found. */
function resolved(from: string, specifier: string, exists: (path: string) => boolean): string {
  const base = posix.normalize(posix.join(posix.dirname(from), specifier));
  const candidates = [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, base.replace(/\.js$/, '.ts')];
  return candidates.find(exists) ?? base;
}

/** Every module specifier of a file: import and export declarations (types too), import(), require() and import types. */
function specifiersOf(source: Source): { specifiers: string[]; unchecked: string[] } {
  const file = ts.createSourceFile(
    source.path,
    source.text,
    ts.ScriptTarget.Latest,
    false,
    source.path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const specifiers: string[] = [];
  const unchecked: string[] = [];
  const take = (node: ts.Node | undefined) => {
    if (node && ts.isStringLiteralLike(node)) specifiers.push(node.text);
    else if (node) unchecked.push(node.getText(file));
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) take(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) take(node.moduleReference.expression);
    else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))
    ) {
      take(node.arguments[0]);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) take(node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return { specifiers, unchecked };
}

/** Each import that breaks a row holding its file, as `file -> the file it imports` (or the expression no rule can read). */
function violations(rules: readonly Rule[], sources: readonly Source[], exists: (path: string) => boolean): string[] {
  return sources.flatMap((source) => {
    const holding = rules.filter((rule) => namedBy(rule.files, source.path) && !namedBy(rule.except, source.path));
    if (holding.length === 0) return [];
    const { specifiers, unchecked } = specifiersOf(source);
    const targets = specifiers.filter((specifier) => specifier.startsWith('.')).map((specifier) => resolved(source.path, specifier, exists));
    return [
      ...unchecked.map((expression) => `${source.path} -> ${expression} (not a string: no rule can check it)`),
      ...targets
        .filter((target) =>
          holding.some((rule) => (namedBy(rule.forbidden, target) && !namedBy(rule.allowed, target)) || (rule.only.length > 0 && !namedBy(rule.only, target))),
        )
        .map((target) => `${source.path} -> ${target}`),
    ];
  });
}

function sourcesUnder(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = posix.join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sourcesUnder(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const existsInRepository = (path: string): boolean => existsSync(join(ROOT, path)) && statSync(join(ROOT, path)).isFile();
const rules = rulesOf(readFileSync(join(ROOT, LAYOUT), 'utf8'));
const topFolders = [...new Set(rules.flatMap((rule) => rule.files).map((name) => name.split('/')[0] ?? ''))];
const sources: Source[] = topFolders.flatMap(sourcesUnder).map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }));

test('docs/layout.md states the rules: storage, the shared HTTP layer, the read API, MCP, the management API, delivery and the commit functions each have a row', () => {
  const rowOf = (name: string) => rules.find((rule) => rule.files.includes(name));
  expect(rowOf('lambda/table/')?.only).toEqual(['lambda/table/', 'lambda/domain/']);
  expect(rowOf('lambda/http/')?.forbidden).toEqual(expect.arrayContaining(['lambda/read-api/', 'lambda/management-api/', 'lambda/mcp/']));
  expect(rowOf('lambda/read-api/')?.forbidden).toContain('lambda/mcp/');
  expect(rowOf('lambda/mcp/')?.forbidden).toContain('lambda/table/');
  expect(rowOf('lambda/management-api/')).toMatchObject({
    forbidden: ['lambda/table/'],
    allowed: ['lambda/table/table.ts', 'lambda/table/client.ts'],
    except: [],
  });
  expect(rowOf('lambda/webhook-delivery/')?.forbidden).toEqual(expect.arrayContaining(['lambda/operations/', 'lambda/features/*/operations.ts']));
  expect(rowOf('lambda/')).toMatchObject({ forbidden: ['lambda/operations/commit.ts'], except: ['lambda/operations/', 'lambda/features/*/operations.ts'] });
});

test('every folder and file the table names exists', () => {
  const named = [...new Set(rules.flatMap((rule) => [...rule.files, ...rule.only, ...rule.forbidden, ...rule.allowed, ...rule.except]))];
  const missing = named.filter((name) => {
    if (name.endsWith('/')) return !existsSync(join(ROOT, name)) || !statSync(join(ROOT, name)).isDirectory();
    if (name.includes('*')) return !sourcesUnder(name.slice(0, name.indexOf('*'))).some((path) => names(name, path));
    return !existsInRepository(name);
  });
  expect(missing).toEqual([]);
});

test('the rules hold many files: the checker reads the whole of lambda/, admin/, local/, bin/ and dashboard/src/', () => {
  expect(sources.filter((source) => source.path.startsWith('lambda/table/')).length).toBeGreaterThan(10);
  expect(sources.filter((source) => source.path.startsWith('dashboard/src/')).length).toBeGreaterThan(10);
  expect(sources.filter((source) => source.path.startsWith('admin/')).length).toBeGreaterThan(10);
});

test('every import of every file keeps the rules of docs/layout.md "Dependencies"', () => {
  expect(violations(rules, sources, existsInRepository)).toEqual([]);
});

describe('the checker fails on an import that breaks a row', () => {
  const check = (path: string, text: string) => violations(rules, [{ path, text }], existsInRepository);

  test('storage importing a feature, the read API’s store, a client module or the operations, by any kind of import', () => {
    const text = [
      "import { planSetLabel } from '../features/labels/labels';",
      "import type { Operations } from '../operations';",
      "export { findLatestPrompt } from '../read-api/store/dynamo-prompt-store';",
      "const template = await import('../../client/src/template');",
      "const { commitChange } = require('../operations/commit');",
      "type Route = import('../management-api/route').ManagementRoute;",
      "// import { ignored } from '../mcp/mcp-handler';",
      "import { keys } from './schema';",
      "import { isValidLabel } from '../domain/label';",
    ].join('\n');
    expect(check('lambda/table/planted.ts', text)).toEqual([
      'lambda/table/planted.ts -> lambda/features/labels/labels.ts',
      'lambda/table/planted.ts -> lambda/operations/index.ts',
      'lambda/table/planted.ts -> lambda/read-api/store/dynamo-prompt-store.ts',
      'lambda/table/planted.ts -> client/src/template.ts',
      'lambda/table/planted.ts -> lambda/operations/commit.ts',
      'lambda/table/planted.ts -> lambda/management-api/route.ts',
    ]);
  });

  test('the HTTP layer importing an API, the read API importing MCP, delivery importing an operation', () => {
    expect(check('lambda/http/planted.ts', "import type { ApiContext } from '../read-api/api-context';")).toEqual([
      'lambda/http/planted.ts -> lambda/read-api/api-context.ts',
    ]);
    expect(check('lambda/read-api/planted.ts', "import { messageOf } from '../mcp/mcp-message';")).toEqual([
      'lambda/read-api/planted.ts -> lambda/mcp/mcp-message.ts',
    ]);
    expect(check('lambda/webhook-delivery/planted.ts', "import { WebhookOperations } from '../features/webhooks/operations';")).toEqual([
      'lambda/webhook-delivery/planted.ts -> lambda/features/webhooks/operations.ts',
    ]);
  });

  test('the management API or MCP reading storage itself, while the management API may name the Table it is handed', () => {
    const text = [
      "import type { Table } from '../../table/table';",
      "import { listAudit } from '../../table/audit-log';",
      "import type { WebhookItem } from '../../table/item-types';",
      "import { readAuditLog } from '../../features/audit/audit-log';",
    ].join('\n');
    expect(check('lambda/management-api/handlers/planted-routes.ts', text)).toEqual([
      'lambda/management-api/handlers/planted-routes.ts -> lambda/table/audit-log.ts',
      'lambda/management-api/handlers/planted-routes.ts -> lambda/table/item-types.ts',
    ]);
    expect(check('lambda/mcp/planted.ts', "import type { Table } from '../table/table';")).toEqual(['lambda/mcp/planted.ts -> lambda/table/table.ts']);
  });

  test('the commit functions imported by anything but an operation module, and by an operation module', () => {
    const text = "import { commitChange } from '../../operations/commit';";
    expect(check('lambda/features/labels/labels.ts', text)).toEqual(['lambda/features/labels/labels.ts -> lambda/operations/commit.ts']);
    expect(check('lambda/features/labels/operations.ts', text)).toEqual([]);
    expect(check('admin/planted.ts', "import { commitUnaudited } from '../lambda/operations/commit';")).toEqual([
      'admin/planted.ts -> lambda/operations/commit.ts',
    ]);
  });

  test('a contract importing a feature or a route, and the dashboard importing a route rather than its contract', () => {
    expect(
      check('lambda/management-api/handlers/planted-contracts.ts', "import { keyBody } from './key-routes';\nimport { Version } from '../fields';"),
    ).toEqual(['lambda/management-api/handlers/planted-contracts.ts -> lambda/management-api/handlers/key-routes.ts']);
    expect(check('lambda/management-api/fields.ts', "import type { Rollout } from '../features/rollouts/rollouts';")).toEqual([
      'lambda/management-api/fields.ts -> lambda/features/rollouts/rollouts.ts',
    ]);
    expect(
      check(
        'dashboard/src/planted.ts',
        "import * as keys from '../../lambda/management-api/handlers/key-contracts';\nimport type { Reply } from '../../lambda/management-api/route';",
      ),
    ).toEqual(['dashboard/src/planted.ts -> lambda/management-api/route.ts']);
  });

  test('an import no rule can read', () => {
    expect(check('lambda/table/planted.ts', 'const module = await import(where);')).toEqual([
      'lambda/table/planted.ts -> where (not a string: no rule can check it)',
    ]);
  });
});

test('a layout without the section is refused rather than read as no rules', () => {
  expect(() => rulesOf('# Layout\n')).toThrow('no "Dependencies" section');
  expect(() => rulesOf('## Dependencies\n\n| a | b |\n|---|---|\n')).toThrow('six-column');
});

// The paths above are the repository's own: a check of the checker that named files which moved would prove nothing.
test('the files the planted imports lead to are there', () => {
  const planted = [
    'lambda/features/labels/labels.ts',
    'lambda/operations/index.ts',
    'lambda/read-api/store/dynamo-prompt-store.ts',
    'client/src/template.ts',
    'lambda/operations/commit.ts',
    'lambda/management-api/route.ts',
    'lambda/read-api/api-context.ts',
    'lambda/mcp/mcp-message.ts',
    'lambda/features/webhooks/operations.ts',
    'lambda/management-api/handlers/key-routes.ts',
    'lambda/management-api/handlers/key-contracts.ts',
    'lambda/features/rollouts/rollouts.ts',
    'lambda/table/table.ts',
    'lambda/table/audit-log.ts',
    'lambda/table/item-types.ts',
    'lambda/features/audit/audit-log.ts',
  ];
  expect(planted.filter((path) => !existsInRepository(path))).toEqual([]);
});
