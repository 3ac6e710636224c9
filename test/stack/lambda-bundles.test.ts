import { build, transform } from 'esbuild';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { preProcessFile } from 'typescript';
import { MANAGEMENT_FUNCTIONS } from '../../lambda/management-api/routes';
import { FUNCTION_IDS } from '../../lib/prompt-service-stack';
import { EVENT_DELIVERY_FUNCTIONS } from '../../lib/event-delivery';
import { ROLLOUT_AUTOMATION_FUNCTIONS } from '../../lib/rollout-automation';

/**
 * lambda/ holds what the Lambda functions ship, and nothing else: every source file under it is in
 * some function's bundle. Code that only the admin CLI, the local stack, the benchmark or the tests use
 * lives beside them (admin/table/, local/, test/support/).
 */

const ROOT = path.join(__dirname, '../..');
const LAMBDA_DIR = 'lambda';

/**
 * Files written ahead of the function that will ship them, each with what will import it. The test fails again
 * once one ships, or is gone: then it leaves this list.
 */
const AWAITING_THEIR_FUNCTION: ReadonlyMap<string, string> = new Map([
  [
    'lambda/domain/judge-request.ts',
    'the judge scorer of experiments builds its model calls with it (the local stand-in model recognises them with it already)',
  ],
]);

/** The entries the stack gives its functions (lib/prompt-service-stack.ts), one per function. */
function stackEntries(): string[] {
  const source = readFileSync(path.join(ROOT, 'lib/prompt-service-stack.ts'), 'utf8');
  return [...source.matchAll(/'(lambda\/[^']+\.ts)'/g)].map((match) => match[1] as string);
}

function sourceFilesUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFilesUnder(relative);
    return entry.name.endsWith('.ts') ? [relative] : [];
  });
}

/** The source files in each function's bundle, bundled as lib/api-function.ts has NodejsFunction do it. */
async function bundledInputs(entries: readonly string[]): Promise<Set<string>> {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: [...entries],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    mainFields: ['module', 'main'],
    outdir: 'bundles',
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  const outputs = Object.values(result.metafile.outputs).filter((output) => output.entryPoint !== undefined);
  expect(outputs.map((output) => output.entryPoint).sort()).toEqual([...entries].sort());
  return new Set(outputs.flatMap((output) => Object.keys(output.inputs)));
}

/** Files that compile to nothing: declarations of types, which leave no trace in a bundle. */
async function typeOnly(file: string): Promise<boolean> {
  const { code } = await transform(readFileSync(path.join(ROOT, file), 'utf8'), { loader: 'ts', format: 'esm' });
  return code.trim() === '';
}

/** The lambda/ files a file imports, `import type` included (which esbuild drops before it resolves anything). */
function lambdaImportsOf(file: string, candidates: ReadonlySet<string>): string[] {
  const { importedFiles } = preProcessFile(readFileSync(path.join(ROOT, file), 'utf8'), true, true);
  return importedFiles
    .map(({ fileName }) => fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => path.posix.join(path.posix.dirname(file), specifier))
    .flatMap((target) => [`${target}.ts`, `${target}/index.ts`])
    .filter((target) => candidates.has(target));
}

describe('lambda/', () => {
  it('holds only what the function bundles contain: every .ts file is in some bundle', async () => {
    const readApi = stackEntries();
    expect(readApi).toHaveLength(Object.keys(FUNCTION_IDS).length);
    // The management API's functions (lib/management-api.ts builds them from the same table), and the rollout automation's.
    const entries = [
      ...readApi,
      ...MANAGEMENT_FUNCTIONS.map((fn) => fn.entry),
      ...ROLLOUT_AUTOMATION_FUNCTIONS.map((fn) => fn.entry),
      ...EVENT_DELIVERY_FUNCTIONS.map((fn) => fn.entry),
    ];
    const files = sourceFilesUnder(LAMBDA_DIR);
    const shipped = await bundledInputs(entries);

    // A file of types only is never an input, yet ships as what it describes: it counts when code that
    // ships (or other such types) imports it.
    const typeFiles = new Set<string>();
    for (const file of files) if (!shipped.has(file) && (await typeOnly(file))) typeFiles.add(file);
    const reached = new Set<string>();
    let frontier = [...shipped].filter((file) => file.startsWith(`${LAMBDA_DIR}/`));
    while (frontier.length > 0) {
      frontier = frontier.flatMap((file) => lambdaImportsOf(file, typeFiles)).filter((file) => !reached.has(file));
      for (const file of frontier) reached.add(file);
    }

    const notShipped = files.filter((file) => !shipped.has(file) && !reached.has(file) && !AWAITING_THEIR_FUNCTION.has(file));
    const awaitingNoMore = [...AWAITING_THEIR_FUNCTION.keys()].filter((file) => shipped.has(file) || reached.has(file) || !files.includes(file));
    expect(awaitingNoMore).toEqual([]);
    if (notShipped.length > 0) {
      throw new Error(`in no function bundle, so not for lambda/ (move them where their users are: admin/, local/, test/support/): ${notShipped.join(', ')}`);
    }
  }, 30_000);
});
