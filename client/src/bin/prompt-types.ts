#!/usr/bin/env node
/**
 * prompt-types: writes a TypeScript module mapping each promptId to its variables, from the API with
 * a key, so that `compile({ nmae: 'Ada' })` fails to type-check. Optionally writes a snapshot too.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createPromptClient, PromptClientError } from '../index.js';
import { type TypedPrompt, typesModule, variablesOfPrompt } from '../typegen.js';

const USAGE = `Usage: PROMPTS_API_KEY=<key> prompt-types --base-url <url> --out <file.ts> [options]

Writes a TypeScript module that maps each promptId of the key's account to its latest version and that
version's variables. Use it as createPromptClient<Prompts>({ baseUrl, apiKey }).

Options:
  --base-url <url>      the API's base URL (or PROMPTS_BASE_URL)
  --out <file.ts>       where to write the module
  --type-name <name>    the exported type's name (default Prompts)
  --all-versions        also type every other published version (one request per version)
  --label <name>        also type the version each prompt's label points at (one request per label;
                        repeat it for several labels), for get(id, { label })
  --snapshot <file>     also write a snapshot of every prompt, for the client's snapshot option
  --help                show this help

The key is read from PROMPTS_API_KEY only, so it never appears in a command line or a shell history.
One request for the list (one unit of the key's quota), plus one per version with --all-versions and
one per --label.
`;

class UsageError extends Error {}

async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<string> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      'base-url': { type: 'string' },
      out: { type: 'string' },
      'type-name': { type: 'string' },
      'all-versions': { type: 'boolean' },
      label: { type: 'string', multiple: true },
      snapshot: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help === true) return USAGE;
  const baseUrl = values['base-url'] ?? env.PROMPTS_BASE_URL;
  const apiKey = env.PROMPTS_API_KEY;
  const typeName = values['type-name'] ?? 'Prompts';
  if (!baseUrl) throw new UsageError('--base-url (or PROMPTS_BASE_URL) is required');
  if (!values.out) throw new UsageError('--out <file.ts> is required');
  if (!apiKey) throw new UsageError('PROMPTS_API_KEY is not set: the key is read from the environment only');
  if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(typeName)) throw new UsageError('--type-name must be a TypeScript identifier');

  const prompts = createPromptClient({ baseUrl, apiKey });
  const latest = await prompts.list();
  const labelled = new Map<string, Record<string, readonly string[]>>();
  for (const label of values.label ?? []) {
    for (const prompt of await prompts.list({ label })) {
      labelled.set(prompt.promptId, { ...labelled.get(prompt.promptId), [label]: prompt.variables });
    }
  }
  const typed: TypedPrompt[] = [];
  for (const prompt of latest) {
    let versions: Record<string, readonly string[]> | undefined;
    if (values['all-versions'] === true) {
      const entries: [string, readonly string[]][] = [];
      for (const version of await publishedVersions(baseUrl, apiKey, prompt.promptId)) {
        if (version === prompt.version) continue;
        entries.push([version, variablesOfPrompt(await prompts.get(prompt.promptId, { version }))]);
      }
      // The server's names are data: fromEntries defines each one, where `versions[name] = ...` may set a prototype.
      versions = Object.fromEntries(entries);
    }
    const labels = labelled.get(prompt.promptId);
    typed.push({
      promptId: prompt.promptId,
      version: prompt.version,
      variables: prompt.variables,
      ...(versions ? { versions } : {}),
      ...(labels ? { labels } : {}),
    });
  }
  const out = resolve(values.out);
  await writeAtomically(out, typesModule(typed, { typeName, source: `${new URL(baseUrl).origin}/prompts`, generatedAt: new Date() }));
  const written = [`${out}: ${typed.length} prompt(s)`];
  if (values.snapshot) {
    const snapshotFile = resolve(values.snapshot);
    const snapshot = await prompts.snapshot();
    await writeAtomically(snapshotFile, `${JSON.stringify(snapshot, null, 2)}\n`);
    written.push(`${snapshotFile}: ${snapshot.prompts.length} prompt(s), ${snapshot.versions.length} other version(s)`);
  }
  return `Wrote ${written.join('; ')}\n`;
}

/** The versions list is not something the client keeps, so it is asked for once, here. */
async function publishedVersions(baseUrl: string, apiKey: string, promptId: string): Promise<string[]> {
  versionsByPrompt ??= (async () => {
    const response = await fetch(`${baseUrl.replace(/\/+$/, '')}/prompts?include_versions=true`, {
      headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json' },
    });
    if (response.status !== 200) throw new Error(`GET /prompts?include_versions=true answered ${response.status}`);
    const body = (await response.json()) as Array<{ promptId: string; publishedVersions: Array<{ version: string }> }>;
    return new Map(body.map((prompt) => [prompt.promptId, prompt.publishedVersions.map(({ version }) => version)]));
  })();
  return (await versionsByPrompt).get(promptId) ?? [];
}
let versionsByPrompt: Promise<Map<string, string[]>> | undefined;

/** A half-written types file would break the app's build; write beside it, then move it in place. */
async function writeAtomically(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, file);
}

main(process.argv.slice(2), process.env).then(
  (output) => {
    process.stdout.write(output);
  },
  (error: unknown) => {
    const code = (error as { code?: unknown })?.code;
    const usage = error instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'));
    const message = error instanceof PromptClientError ? `${error.code}: ${error.message}` : ((error as Error)?.message ?? String(error));
    process.stderr.write(`prompt-types: ${message}${usage ? ' (see --help)' : ''}\n`);
    process.exitCode = usage ? 2 : 1;
  },
);
