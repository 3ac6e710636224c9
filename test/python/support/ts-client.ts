/**
 * The TypeScript client, driven from the Python client's tests (client-python/tests/cross/), so that one
 * test can check that a snapshot written by either client serves in the other.
 *
 *   take <baseUrl> <out.json> <request>...    gets each request, then writes client.snapshot() to out.json
 *   serve <baseUrl> <snapshot.json> <request>...  prints, as JSON, what a client given that snapshot serves
 *
 * A request is `id`, `id@version` or `id#label` (`id#label~subject` for a subject's side of a rollout),
 * optionally followed by `=` and JSON values to compile with. The key is read from PROMPTS_API_KEY only.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createPromptClient, type PromptClient } from '../../../client/src/index';

interface Served {
  readonly request: string;
  readonly promptId?: string;
  readonly version?: string;
  readonly source?: string;
  readonly compiled?: unknown;
  readonly error?: string;
}

async function get(client: PromptClient, request: string): Promise<Served> {
  const [target = '', valuesText] = splitOnce(request, '=');
  const [promptId = '', version] = splitOnce(target, '@');
  const [id = '', labelled] = splitOnce(promptId, '#');
  const [label, subject] = labelled === undefined ? [undefined, undefined] : splitOnce(labelled, '~');
  try {
    const prompt = await client.get(id, version !== undefined ? { version } : label !== undefined ? { label, subject } : {});
    const compiled = valuesText === undefined ? undefined : prompt.compile(JSON.parse(valuesText), { strict: true });
    return { request, promptId: prompt.promptId, version: prompt.version, source: prompt.source, compiled };
  } catch (error) {
    return { request, error: (error as { code?: string }).code ?? String(error) };
  }
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at === -1 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

async function main(): Promise<void> {
  const [command, baseUrl = '', file = '', ...requests] = process.argv.slice(2);
  const apiKey = process.env.PROMPTS_API_KEY ?? '';
  if (command === 'take') {
    const client = createPromptClient({ baseUrl, apiKey });
    for (const request of requests) await get(client, request);
    await writeFile(file, JSON.stringify(await client.snapshot(), null, 2));
  } else if (command === 'serve') {
    const client = createPromptClient({ baseUrl, apiKey, snapshot: await readFile(file, 'utf8'), timeoutMs: 2_000 });
    const served: Served[] = [];
    for (const request of requests) served.push(await get(client, request));
    process.stdout.write(JSON.stringify(served));
  } else {
    throw new Error(`unknown command ${command}: take or serve`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exitCode = 1;
});
