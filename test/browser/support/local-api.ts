import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hashApiKey, keyIdFromHash } from '../../../lambda/domain/api-key';
import type { Plan } from '../../../lambda/domain/plans';
import type { PromptInput } from '../../../lambda/data/dynamo-admin-store';
import { ApiHarness, UPGRADE_URL } from '../../support/api-harness';

/** The part of the seed file format (README "Seed file format") these tests use. */
export interface BrowserSeed {
  accounts: {
    accountId: string;
    name: string;
    plan: Plan;
    keys: { apiKey: string; monthlyLimit?: number }[];
    prompts: PromptInput[];
  }[];
}

export interface LocalApi {
  readonly url: string;
  readonly upgradeUrl: string;
  /** Anything the gateway could not answer, including a response openapi.yaml does not document. */
  readonly failures: string[];
  close(): Promise<void>;
}

export async function readBrowserSeed(path: string): Promise<BrowserSeed> {
  return JSON.parse(await readFile(path, 'utf8')) as BrowserSeed;
}

function requestHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/**
 * The API's handlers behind a loopback HTTP server that turns each request into the payload 2.0
 * event the HTTP API sends, on the route table it is deployed with (ApiHarness), over dynalite.
 */
export async function startLocalApi(seed: BrowserSeed): Promise<LocalApi> {
  const harness = await new ApiHarness().start();
  harness.clock = new Date();
  for (const account of seed.accounts) {
    await harness.fixtures.admin.putAccount({ accountId: account.accountId, name: account.name, plan: account.plan });
    for (const { apiKey, monthlyLimit } of account.keys) {
      const keyHash = hashApiKey(apiKey);
      await harness.fixtures.admin.putApiKey({
        keyHash,
        keyId: keyIdFromHash(keyHash),
        accountId: account.accountId,
        displayPrefix: apiKey.slice(0, 8),
        ...(monthlyLimit === undefined ? {} : { monthlyLimit }),
      });
    }
    await harness.fixtures.prompts(account.accountId, ...account.prompts);
  }

  const failures: string[] = [];
  const server = createServer((request, response) => {
    const method = request.method ?? 'GET';
    const path = request.url ?? '/';
    harness
      .request(method, path, { headers: requestHeaders(request) })
      .then((answer) => {
        response.writeHead(answer.status, answer.headers);
        response.end(answer.rawBody);
      })
      .catch((error: unknown) => {
        failures.push(`${method} ${path}: ${error instanceof Error ? error.message : String(error)}`);
        response.writeHead(500, { 'Content-Type': 'application/json', 'Access-Control-Allow-Origin': '*' });
        response.end(JSON.stringify({ error: 'The test gateway failed; see the test output', code: 'INTERNAL_ERROR' }));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    upgradeUrl: UPGRADE_URL,
    failures,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await harness.stop();
    },
  };
}
