import { paginateScan } from '@aws-sdk/lib-dynamodb';
import { ApiHarness } from '../support/api-harness';
import { prompt, version } from '../support/fixtures';
import { apiEvent } from '../support/events';

/** docs/behaviour-rules.md, "API keys": a key never appears in a log line, an error body or a stored item. */
const api = new ApiHarness();
const plaintextKeys: string[] = [];

beforeAll(async () => {
  await api.start();
  await api.fixtures.account('acme');
  await api.fixtures.prompts('acme', prompt('welcome', [version('1.0.0')]));
  for (const options of [{}, { monthlyLimit: 1 }, { revoked: true }]) {
    plaintextKeys.push(await api.fixtures.apiKey('acme', options));
  }
  const [active, limited, revoked] = plaintextKeys as [string, string, string];
  const unknown = 'prs_neverIssuedneverIssuedneverIssued000000000';
  plaintextKeys.push(unknown);
  // Every kind of outcome, so every log and error path has had a key to leak.
  for (const apiKey of [active, limited, limited, revoked, unknown]) {
    await api.get('/prompts/welcome', apiKey);
    await api.get('/prompts/welcome?version=bad', apiKey);
    await api.get('/prompts', apiKey);
    await api.request('POST', '/prompts', { apiKey });
  }
});
afterAll(() => api.stop());

test('every request wrote exactly one log line', () => {
  expect(api.logs).toHaveLength(20);
});

test('no log line contains a key', () => {
  const logged = JSON.stringify(api.logs);
  for (const apiKey of plaintextKeys) expect(logged).not.toContain(apiKey);
  expect(logged).not.toContain('prs_');
});

test('log lines name the key by its public id', () => {
  const authenticated = api.logs.filter((line) => line.status === '200');
  expect(authenticated.length).toBeGreaterThan(0);
  for (const line of authenticated) expect(line.keyId).toMatch(/^key_[0-9a-f]{16}$/);
});

test('no error body echoes a key', async () => {
  for (const apiKey of plaintextKeys) {
    for (const response of [
      await api.get('/prompts/welcome', apiKey),
      await api.get('/prompts/x?version=bad', apiKey),
      await api.request('DELETE', '/prompts', { apiKey }),
    ]) {
      expect(response.rawBody).not.toContain(apiKey);
      expect(JSON.stringify(response.headers)).not.toContain(apiKey);
    }
  }
});

test('no stored item contains a key, only its SHA-256 hash', async () => {
  const { client, tableName } = api.localStore;
  const items: unknown[] = [];
  for await (const page of paginateScan({ client }, { TableName: tableName })) items.push(...(page.Items ?? []));
  const stored = JSON.stringify(items);
  expect(items.length).toBeGreaterThan(0);
  for (const apiKey of plaintextKeys) expect(stored).not.toContain(apiKey);
  expect(stored).toMatch(/APIKEY#[0-9a-f]{64}/);
});

test('REST API (payload 1.0) events are served the same way', async () => {
  const [active] = plaintextKeys as [string];
  const ok = await api.send(apiEvent('GET', '/prompts/welcome', { apiKey: active, query: { version: '1.0.0' } }));
  expect(ok.status).toBe(200);
  expect(ok.json<{ version: string }>().version).toBe('1.0.0');
  expect((await api.send(apiEvent('POST', '/prompts', { apiKey: active }))).status).toBe(405);
  expect((await api.send(apiEvent('OPTIONS', '/prompts'))).status).toBe(204);
});
