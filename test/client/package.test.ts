import { execFile } from 'node:child_process';
import { readdir, readFile, writeFile, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { temporaryFolder } from '../e2e/support/processes';
import { prompt, version } from '../support/fixtures';
import { ClientStack } from './support/client-stack';

/**
 * The package as an application gets it: `npm pack ./client` (which builds it with its own build script,
 * the TypeScript it declares found in the repository's node_modules), the tarball installed offline in a
 * fresh project outside the repository, used from plain JavaScript as an ES module and as CommonJS, its bin
 * run, and its declarations type-checked under each module setting TypeScript projects use.
 */
const run = promisify(execFile);
const CLIENT_DIR = resolve(__dirname, '..', '..', 'client');
const stack = new ClientStack();
let folder: Awaited<ReturnType<typeof temporaryFolder>>;
let app: string;
let tarball: string;
let apiKey: string;

/** The environment as a developer's shell has it, without the settings of the npm process that may be running these tests. */
function withoutNpmSettings(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.toLowerCase().startsWith('npm_')) env[name] = value;
  return env;
}

/** npm as a developer runs it. */
function npm(args: string[], cwd: string) {
  return run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, env: withoutNpmSettings(), maxBuffer: 16 * 1024 * 1024 });
}

beforeAll(async () => {
  await stack.start();
  await stack.fixtures.account('acme');
  await stack.fixtures.prompts(
    'acme',
    prompt(
      'welcome-email',
      [
        version('1.0.0', { systemMessage: 'Be brief.', userMessage: 'Welcome ${name}.' }),
        version('1.1.0', { systemMessage: 'Write as ${company}.', userMessage: 'Welcome ${name} to ${company}.' }),
      ],
      { labels: { production: '1.0.0' } },
    ),
    prompt('no-variables', [version('1.0.0', { systemMessage: 'Hi.', userMessage: 'Say hello.' })]),
  );
  apiKey = await stack.fixtures.apiKey('acme');

  folder = await temporaryFolder('client-package');
  const { stdout } = await npm(['pack', './client', '--pack-destination', folder.path], join(CLIENT_DIR, '..'));
  tarball = join(folder.path, stdout.trim().split('\n').at(-1) ?? '');
  app = join(folder.path, 'app');
  await mkdir(app);
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'consumer-app', private: true, type: 'module' }));
  await npm(['install', '--offline', tarball], app);
}, 180_000);

afterAll(async () => {
  await stack.remove();
  await folder?.remove();
});

test('npm pack builds a tarball of an ESM and a CommonJS entry, the declarations of each and the bin, with no runtime dependencies', async () => {
  const { stdout } = await run('tar', ['-tzf', tarball]);
  const files = stdout.trim().split('\n').sort();

  expect(files).toEqual(
    expect.arrayContaining([
      'package/package.json',
      'package/README.md',
      'package/dist/esm/index.js',
      'package/dist/esm/index.d.ts',
      'package/dist/cjs/index.js',
      'package/dist/cjs/index.d.ts',
      'package/dist/cjs/package.json',
      'package/dist/esm/bin/prompt-types.js',
    ]),
  );
  expect(files.filter((file) => !/^package\/(package\.json|README\.md|dist\/cjs\/package\.json|dist\/(esm|cjs)\/[\w/-]+\.(js|d\.ts))$/.test(file))).toEqual([]);
  const manifest = JSON.parse(await readFile(join(app, 'node_modules/@prompt-retrieval/client/package.json'), 'utf8'));
  expect(manifest).toMatchObject({ name: '@prompt-retrieval/client', type: 'module' });
  expect(manifest.dependencies).toBeUndefined();
  expect(JSON.parse(await readFile(join(app, 'node_modules/@prompt-retrieval/client/dist/cjs/package.json'), 'utf8'))).toEqual({
    type: 'commonjs',
  });
});

test('client/package.json declares and client/package-lock.json locks the TypeScript its build script runs, as the repository does, so it builds from its own folder', async () => {
  const client = JSON.parse(await readFile(join(CLIENT_DIR, 'package.json'), 'utf8'));
  const root = JSON.parse(await readFile(join(CLIENT_DIR, '..', 'package.json'), 'utf8'));

  expect(client.scripts.build).toMatch(/^tsc /);
  expect(client.devDependencies).toEqual({ typescript: root.devDependencies.typescript, '@types/node': root.devDependencies['@types/node'] });
  const locked = JSON.parse(await readFile(join(CLIENT_DIR, 'package-lock.json'), 'utf8')).packages;
  const rootLocked = JSON.parse(await readFile(join(CLIENT_DIR, '..', 'package-lock.json'), 'utf8')).packages;
  for (const name of ['node_modules/typescript', 'node_modules/@types/node']) expect(locked[name].integrity).toBe(rootLocked[name].integrity);
});

test.each([
  ['esm', /(?:import|export)[^'"]*from\s*['"]([^'"]+)['"]/g],
  ['cjs', /require\(\s*['"]([^'"]+)['"]\s*\)/g],
])('the main entry (%s) imports nothing but its own files, so it runs in browsers and on edge runtimes', async (flavour, imports) => {
  const dist = join(app, 'node_modules/@prompt-retrieval/client/dist', flavour);
  const entryFiles = (await readdir(dist)).filter((file) => file.endsWith('.js'));
  const specifiers = await Promise.all(entryFiles.map(async (file) => [...(await readFile(join(dist, file), 'utf8')).matchAll(imports)].map((m) => m[1])));
  expect(specifiers.flat().length).toBeGreaterThan(0);
  expect(specifiers.flat().filter((specifier) => !specifier?.startsWith('./'))).toEqual([]);
});

test('installed in a fresh project, it works from plain JavaScript', async () => {
  await writeFile(
    join(app, 'use.mjs'),
    `import { createPromptClient, NotFoundError } from '@prompt-retrieval/client';
const prompts = createPromptClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.API_KEY });
const first = await prompts.get('welcome-email');
const again = await prompts.get('welcome-email');
const pinned = await prompts.get('welcome-email', { version: '1.0.0' });
const missing = await prompts.get('nope').catch((error) => ({ isNotFound: error instanceof NotFoundError, code: error.code }));
const listed = await prompts.list();
console.log(JSON.stringify({
  first: [first.version, first.source, first.variables],
  again: again.source,
  pinned: pinned.compile({ name: 'Ada' }).userMessage,
  filled: first.compile({ name: 'Ada', company: 'Acme' }),
  missing,
  listed: listed.map((p) => p.promptId),
  remaining: prompts.quota.remaining,
}));
`,
  );

  const { stdout } = await run(process.execPath, ['use.mjs'], { cwd: app, env: { ...process.env, BASE_URL: stack.url, API_KEY: apiKey } });

  expect(JSON.parse(stdout)).toEqual({
    first: ['1.1.0', 'network', ['company', 'name']],
    again: 'cache',
    pinned: 'Welcome Ada.',
    filled: { systemMessage: 'Write as Acme.', userMessage: 'Welcome Ada to Acme.' },
    missing: { isNotFound: true, code: 'NOT_FOUND' },
    listed: ['no-variables', 'welcome-email'],
    remaining: 4996,
  });
});

test('installed in a fresh project, it works from CommonJS: require() gets the same API', async () => {
  await writeFile(
    join(app, 'use.cjs'),
    `const { createPromptClient, NotFoundError } = require('@prompt-retrieval/client');
const prompts = createPromptClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.API_KEY });
(async () => {
  const pinned = await prompts.get('welcome-email', { version: '1.0.0' });
  const missing = await prompts.get('nope').catch((error) => error instanceof NotFoundError);
  console.log(JSON.stringify({ pinned: pinned.compile({ name: 'Ada' }).userMessage, missing, resolved: require.resolve('@prompt-retrieval/client') }));
})();
`,
  );

  const { stdout } = await run(process.execPath, ['use.cjs'], { cwd: app, env: { ...process.env, BASE_URL: stack.url, API_KEY: apiKey } });

  expect(JSON.parse(stdout)).toEqual({
    pinned: 'Welcome Ada.',
    missing: true,
    resolved: join(app, 'node_modules/@prompt-retrieval/client/dist/cjs/index.js'),
  });
});

/** The module settings of a Node project that type-checks with TypeScript's Node resolution. */
const NODENEXT: ts.CompilerOptions = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext };

/** tsc over one file of the app, against the installed package's declarations: its errors, and which declarations it read. */
function typeCheck(file: string, source: string, settings: ts.CompilerOptions): { errors: string[]; declarations: string[] } {
  const path = join(app, 'src', file);
  const host = ts.createCompilerHost({});
  const readFileFromDisk = host.readFile.bind(host);
  host.readFile = (name) => (resolve(name) === path ? source : readFileFromDisk(name));
  const program = ts.createProgram({
    rootNames: [path],
    options: { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'], types: [], ...settings },
    host,
  });
  const installed = join(app, 'node_modules/@prompt-retrieval/client/');
  return {
    errors: ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')),
    declarations: program
      .getSourceFiles()
      .map((sourceFile) => resolve(sourceFile.fileName))
      .filter((name) => name.startsWith(installed) && name.endsWith('index.d.ts'))
      .map((name) => name.slice(installed.length)),
  };
}

const consumer = `import { createPromptClient, NotFoundError } from '@prompt-retrieval/client';
const prompts = createPromptClient({ baseUrl: 'https://prompts.example.com', apiKey: 'key' });
export async function greeting(): Promise<string | undefined> {
  try {
    return (await prompts.get('welcome-email')).compile({ name: 'Ada' }).userMessage;
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}
`;

describe('a TypeScript project type-checks against the installed package, with the declarations of the entry it loads', () => {
  const node16 = { module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16 };
  const bundler = { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler };
  const preserve = { module: ts.ModuleKind.Preserve, moduleResolution: ts.ModuleResolutionKind.Bundler };

  test.each([
    ['module node16, an ES module (.mts)', 'consumer.mts', node16, 'dist/esm/index.d.ts'],
    ['module node16, CommonJS (.cts): no TS1479', 'consumer.cts', node16, 'dist/cjs/index.d.ts'],
    ['module nodenext, an ES module (.mts)', 'consumer.mts', NODENEXT, 'dist/esm/index.d.ts'],
    ['module nodenext, CommonJS (.cts): no TS1479', 'consumer.cts', NODENEXT, 'dist/cjs/index.d.ts'],
    ['moduleResolution bundler, module esnext', 'consumer.ts', bundler, 'dist/esm/index.d.ts'],
    ['moduleResolution bundler, module preserve', 'consumer.ts', preserve, 'dist/esm/index.d.ts'],
  ])('%s', (_name, file, settings, declarations) => {
    expect(typeCheck(file, consumer, settings)).toEqual({ errors: [], declarations: [declarations] });
  });
});

describe('typed variables', () => {
  let generated: string;
  let output: string;

  beforeAll(async () => {
    // As docs/install.md and client/README.md run it: `npx --no --` finds the installed bin and never downloads one.
    const result = await run(
      'npx',
      ['--no', '--', 'prompt-types', '--base-url', stack.url, '--out', 'src/prompts.generated.ts', '--all-versions', '--label', 'production'],
      {
        cwd: app,
        env: { ...withoutNpmSettings(), npm_config_offline: 'true', PROMPTS_API_KEY: apiKey },
      },
    );
    output = result.stdout + result.stderr;
    generated = await readFile(join(app, 'src/prompts.generated.ts'), 'utf8');
  }, 60_000);

  test('the prompt-types bin writes a module mapping each promptId to its version and variables, without echoing the key', () => {
    expect(generated).toContain(
      [
        'export type Prompts = {',
        '  readonly "no-variables": {',
        '    readonly version: "1.0.0";',
        '    readonly variables: never;',
        '  };',
        '  readonly "welcome-email": {',
        '    readonly version: "1.1.0";',
        '    readonly variables: "company" | "name";',
        '    readonly versions: {',
        '      readonly "1.0.0": "name";',
        '    };',
        '    readonly labels: {',
        '      readonly "production": "name";',
        '    };',
        '  };',
        '};',
      ].join('\n'),
    );
    expect(output).toMatch(/^Wrote \S+prompts\.generated\.ts: 2 prompt\(s\)\n$/);
    expect(output + generated).not.toContain(apiKey);
  });

  const typeErrors = (file: string, source: string) => typeCheck(file, source, NODENEXT).errors;

  const usage = (body: string) => `import { createPromptClient } from '@prompt-retrieval/client';
import type { Prompts } from './prompts.generated.js';
const prompts = createPromptClient<Prompts>({ baseUrl: 'https://prompts.example.com', apiKey: 'key' });
export async function use(dynamicId: string) {
${body}
}
`;

  test('with the generated types, right calls type-check and each wrong one is an error (@ts-expect-error)', () => {
    const errors = typeErrors(
      'typed.ts',
      usage(`  const welcome = await prompts.get('welcome-email');
  welcome.compile({ name: 'Ada', company: 'Acme' });
  const name: 'name' | 'company' = welcome.variables[0]!;
  // @ts-expect-error a misspelt variable
  welcome.compile({ nmae: 'Ada', company: 'Acme' });
  // @ts-expect-error a missing variable
  welcome.compile({ name: 'Ada' });
  const old = await prompts.get('welcome-email', { version: '1.0.0' });
  old.compile({ name: 'Ada' });
  // @ts-expect-error 1.0.0 has no company
  old.compile({ name: 'Ada', company: 'Acme' });
  const production = await prompts.get('welcome-email', { label: 'production' });
  production.compile({ name: 'Ada' });
  // @ts-expect-error production points at 1.0.0, which has no company
  production.compile({ name: 'Ada', company: 'Acme' });
  (await prompts.get('welcome-email', { label: 'untyped-label' })).compile({ anything: 'goes' });
  (await prompts.get('no-variables')).compile({});
  // @ts-expect-error a misspelt prompt id
  await prompts.get('welcome-emial');
  (await prompts.get(dynamicId)).compile({ anything: 'goes' });
  return name;`),
    );
    expect(errors).toEqual([]);
  });

  test("prompts.get('welcome-email').compile({ nmae: 'Ada' }) fails to type-check, naming the misspelt variable", () => {
    const errors = typeErrors('misspelt.ts', usage(`  (await prompts.get('welcome-email')).compile({ nmae: 'Ada', company: 'Acme' });`));
    expect(errors).toEqual([expect.stringContaining('\'nmae\' does not exist in type \'TemplateValues<"name" | "company">\'')]);
  });
});
