import { readdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { failedStart, runNpm, StackSet, type StackProcess, temporaryFolder } from './support/processes';
import { fetchApi } from './support/api-fetch';
import { signIn } from '../support/oauth-sign-in';

/** `npm start` end to end: a child process, spoken to over HTTP as a developer's curl would. */

const stacks = new StackSet();
let dataDir: { path: string; remove(): Promise<void> };

beforeAll(async () => {
  dataDir = await temporaryFolder('local-stack-e2e');
});

afterAll(async () => {
  await stacks.stopAll();
  await dataDir.remove();
});

/** The line the banner prints, taken apart: `curl -H "Authorization: Bearer <key>" <url>`. */
function printedCurl(output: string): { apiKey: string; url: string } {
  const match = /curl -H "Authorization: Bearer (\S+)" (http:\/\/\S+)/.exec(output);
  if (!match?.[1] || !match[2]) throw new Error(`no curl line in:\n${output}`);
  return { apiKey: match[1], url: match[2] };
}

/** The lowest X-RateLimit-Remaining seen: what the key has left, whatever order responses came in. */
let lowestRemaining = Number.POSITIVE_INFINITY;

async function fetchWithKey(url: string, apiKey: string, method = 'GET'): Promise<Response> {
  const response = await fetchApi(url, { method, headers: { Authorization: `Bearer ${apiKey}` } });
  const remaining = response.headers.get('x-ratelimit-remaining');
  if (remaining !== null) lowestRemaining = Math.min(lowestRemaining, Number(remaining));
  return response;
}

describe('npm start from an empty DATA_DIR, with the demo seed', () => {
  let stack: StackProcess;

  beforeAll(async () => {
    stack = await stacks.start({ DATA_DIR: `${dataDir.path}/data` });
  }, 60_000);

  it('serves the playground on its own origin, pointed at the API', async () => {
    const playground = /^\s*Playground\s+(http:\/\/\S+)/m.exec(stack.output())?.[1];
    expect(playground).toBeDefined();
    expect(new URL(playground ?? '').origin).not.toBe(new URL(stack.apiUrl).origin);
    expect((await fetch(`${playground}/`)).status).toBe(200);
    expect(await (await fetch(`${playground}/config.js`)).text()).toContain(stack.apiUrl);
  });

  it('prints the dashboard URL and a demo user who signs in there through the local user pool', async () => {
    const printed = /Sign in as (\S+) with password (\S+)/.exec(stack.output());
    const [email, password] = [printed?.[1] ?? '', printed?.[2] ?? ''];
    const config = (await (await fetch(`${stack.dashboardUrl}/config.json`)).json()) as { authorizeUrl: string; tokenUrl: string; clientId: string };

    const idToken = await signIn({ ...config, redirectUri: `${stack.dashboardUrl}/` }, email, password);

    expect(email).toBe('demo@example.com');
    expect(new URL(config.tokenUrl).origin).toBe(stack.identityUrl);
    expect(idToken.split('.')).toHaveLength(3);
    expect((await fetch(`${stack.dashboardUrl}/`)).status).toBe(200);
  });

  it("answers the management API on the dashboard's origin with the signed-in demo user's token: the demo account is theirs", async () => {
    const printed = /Sign in as (\S+) with password (\S+)/.exec(stack.output());
    const config = (await (await fetch(`${stack.dashboardUrl}/config.json`)).json()) as { authorizeUrl: string; tokenUrl: string; clientId: string };
    const idToken = await signIn({ ...config, redirectUri: `${stack.dashboardUrl}/` }, printed?.[1] ?? '', printed?.[2] ?? '');
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${stack.dashboardUrl}/api${path}`, {
        ...init,
        headers: { Authorization: `Bearer ${idToken}`, 'Content-Type': 'application/json', ...init.headers },
      });

    const me = (await (await api('/me')).json()) as { email: string; accounts: { accountId: string; role: string }[] };
    expect(me.email).toBe('demo@example.com');
    expect(me.accounts).toEqual([expect.objectContaining({ accountId: 'acct_demo', role: 'owner' })]);

    const created = await api('/accounts/acct_demo/keys', { method: 'POST', body: JSON.stringify({ name: 'from the e2e test' }) });
    expect(created.status).toBe(201);
    const { apiKey } = (await created.json()) as { apiKey: string };
    const read = await fetch(`${stack.apiUrl}/prompts?label=production`, { headers: { Authorization: `Bearer ${apiKey}` } });
    expect(read.status).toBe(200);
    expect((await api('/me', { headers: { Authorization: 'Bearer not-a-token' } })).status).toBe(401);
  });

  it('creates the table and loads the demo seed', () => {
    expect(stack.output()).toMatch(/Table\s+prompts-local \(created\)/);
    expect(stack.output()).toMatch(/accounts 1 created, 0 updated, 0 unchanged/);
  });

  it("says that it applies rollouts' due steps itself, and that a guard alarm has no local stand-in", () => {
    expect(stack.output()).toMatch(/^\s*Rollouts\s+due steps applied every 15 s; a guard alarm runs deployed only/m);
  });

  it('serves the demo prompt to the printed curl line', async () => {
    const { apiKey, url } = printedCurl(stack.output());
    expect(url.startsWith(`${stack.apiUrl}/prompts/`)).toBe(true);

    const response = await fetchWithKey(url, apiKey);

    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ promptId: 'welcome-email', version: '1.1.0' });
    expect(response.headers.get('x-ratelimit-remaining')).toBe('4999');
  });

  it('prints the demo account, and a prompts pull line that, run as printed, writes its prompt files', async () => {
    expect(stack.output()).toMatch(/^\s*Account\s+acct_demo \(the demo account/m);
    const line = /^\s*(.*npm run admin -- prompts pull .*)$/m.exec(stack.output())?.[1] ?? '';
    const printed =
      /^DYNAMODB_ENDPOINT=(\S+) TABLE_NAME=(\S+) AWS_ENDPOINT_URL_BEDROCK_RUNTIME=(\S+) npm run admin -- (prompts pull --account acct_demo --dir prompts\/acct_demo)$/.exec(
        line,
      );
    expect(printed).not.toBeNull();
    const [, endpoint = '', tableName = '', modelEndpoint = '', command = ''] = printed ?? [];
    expect(modelEndpoint).toBe(stack.modelUrl);
    // The printed line, but for the folder: the test writes into its own, not into the clone.
    const dir = join(dataDir.path, 'pulled', 'acct_demo');
    const args = ['run', 'admin', '--', ...command.replace('prompts/acct_demo', dir).split(' ')];

    const pulled = await runNpm(args, { DYNAMODB_ENDPOINT: endpoint, TABLE_NAME: tableName });

    expect([pulled.code, pulled.stderr]).toEqual([0, expect.not.stringContaining('warning')]);
    expect((await readdir(dir)).sort()).toEqual(['product-description.prompt.yaml', 'support-reply.prompt.yaml', 'welcome-email.prompt.yaml']);
  });

  it.each([
    ['GET /prompts (the list function)', 'GET', '/prompts', 200],
    ['a repeated query parameter, comma-joined from the REST API multi-value parameters', 'GET', '/prompts/welcome-email?version=1.0.0&version=1.1.0', 400],
    ['a version that is only a draft', 'GET', '/prompts/welcome-email?version=1.2.0', 404],
    ['OPTIONS on any path (the fallback)', 'OPTIONS', '/anything/at/all', 204],
    ['DELETE (the fallback)', 'DELETE', '/prompts/welcome-email', 405],
    ['an unknown path (the fallback)', 'GET', '/nothing-here', 404],
    ['a trailing slash, which no route matches', 'GET', '/prompts/', 400],
  ])('routes %s like the deployed REST API', async (_name, method, path, status) => {
    const { apiKey } = printedCurl(stack.output());
    const response = await fetchWithKey(`${stack.apiUrl}${path}`, apiKey, method);
    expect(response.status).toBe(status);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers HEAD with 405 and no body', async () => {
    // Not held to the document: HTTP strips a HEAD answer's body, which the 405 the document describes has.
    const response = await fetch(`${stack.apiUrl}/prompts`, { method: 'HEAD' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, OPTIONS');
    expect(await response.text()).toBe('');
  });

  it('serves concurrent requests', async () => {
    const { apiKey, url } = printedCurl(stack.output());
    const responses = await Promise.all(Array.from({ length: 20 }, () => fetchWithKey(url, apiKey)));
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200));
  });

  it('refuses a second stack on the same DATA_DIR with a one-line reason', async () => {
    const failure = await failedStart({ DATA_DIR: `${dataDir.path}/data` });
    expect(failure.code).toBe(1);
    expect(failure.output.trim()).toMatch(/^npm start: DATA_DIR \S+ is in use by another process.*$/);
  });

  it('stops cleanly on SIGINT', async () => {
    const { code, output } = await stack.stop('SIGINT');
    expect(code).toBe(0);
    expect(output).toContain('Stopped.');
  });

  describe('started again on the same DATA_DIR', () => {
    let again: StackProcess;

    beforeAll(async () => {
      again = await stacks.start({ DATA_DIR: `${dataDir.path}/data` });
    }, 60_000);

    it('keeps the table and re-seeds without changing anything', () => {
      expect(again.output()).toMatch(/Table\s+prompts-local\n/);
      expect(again.output()).toMatch(
        /accounts 0 created, 0 updated, 1 unchanged; keys 0 created, 0 updated, 1 unchanged; prompts 0 created, 0 updated, 3 unchanged; versions 0 created, 0 updated, 7 unchanged/,
      );
    });

    it('keeps the usage counted before the restart', async () => {
      const { apiKey, url } = printedCurl(again.output());
      const before = lowestRemaining;
      const response = await fetchWithKey(url, apiKey);
      expect(response.status).toBe(200);
      expect(Number(response.headers.get('x-ratelimit-remaining'))).toBe(before - 1);
    });

    it('stops cleanly on SIGTERM', async () => {
      const { code } = await again.stop('SIGTERM');
      expect(code).toBe(0);
    });
  });
});

describe('npm start with a port in use', () => {
  let blocker: Server;
  let port: number;

  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    port = (blocker.address() as { port: number }).port;
  });

  afterAll(async () => {
    await new Promise((resolve) => blocker.close(resolve));
  });

  it.each(['PORT', 'DYNAMODB_PORT', 'PLAYGROUND_PORT', 'DASHBOARD_PORT', 'IDENTITY_PORT', 'MODEL_PORT'])(
    'fails with one line naming %s and a port to use instead',
    async (variable) => {
      const failure = await failedStart({ DATA_DIR: `${dataDir.path}/ports-${variable}`, [variable]: String(port) });
      expect(failure.code).toBe(1);
      expect(failure.output.trim()).toMatch(new RegExp(`^npm start: port ${port} is in use: set ${variable} to a free port \\(e\\.g\\. ${variable}=\\d+\\)$`));
    },
    60_000,
  );

  it("suggests a port for PORT that is neither taken nor the playground's", async () => {
    const next = port + 1;
    const failure = await failedStart({ DATA_DIR: `${dataDir.path}/ports-suggestion`, PORT: String(port), PLAYGROUND_PORT: String(next) });

    const suggested = Number(/\(e\.g\. PORT=(\d+)\)/.exec(failure.output)?.[1]);
    expect(suggested).toBeGreaterThan(next);
    const probe = createServer();
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen(suggested, '127.0.0.1', resolve);
    });
    await new Promise((resolve) => probe.close(resolve));
  }, 60_000);
});
