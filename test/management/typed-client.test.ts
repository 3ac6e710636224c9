import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCaller } from '../../dashboard/src/api/call';
import { ApiProblem } from '../../dashboard/src/logic/api-errors';
import * as accounts from '../../lambda/management-api/handlers/account-contracts';
import * as keys from '../../lambda/management-api/handlers/key-contracts';
import * as prompts from '../../lambda/management-api/handlers/prompt-contracts';
import { createManagementGateway } from '../../local/management-gateway';
import { idTokenClaims, ManagementHarness, type Person } from '../support/management-harness';

/**
 * The dashboard's typed calls (dashboard/src/api/call.ts) from Node, as the admin CLI will make them: each by its
 * route's contract over HTTP (local/management-gateway.ts), every answer parsed with the schema the contract gives
 * its status, and one the contract does not allow refused rather than handed on.
 */

const api = new ManagementHarness();
let gateway: Server;
let owner: Person;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

let call: ReturnType<typeof createCaller>;

beforeAll(async () => {
  await api.start();
  await api.fixtures.account('acme', 'pro');
  owner = await api.person('owner@acme.test', 'acme', 'owner');
  gateway = createServer(
    createManagementGateway({ dependencies: api.deps, verifyToken: async (token) => (token === 'token-of-owner' ? idTokenClaims(owner) : undefined) }),
  );
  call = createCaller({ baseUrl: await listen(gateway), token: () => 'token-of-owner' });
});
afterAll(async () => {
  await close(gateway);
  await api.stop();
});

test('a call answers the body its contract gives the status, typed by it', async () => {
  const me = await call(accounts.readMe, { params: {} });
  expect(me).toMatchObject({ status: 200, body: { email: 'owner@acme.test', accounts: [{ accountId: 'acme', role: 'owner' }] } });

  const created = await call(prompts.createPrompt, { params: { accountId: 'acme' }, body: { promptId: 'typed', promptName: 'Typed' } });
  expect([created.status, created.body.promptId, created.body.drafts]).toEqual([201, 'typed', []]);

  const content = { systemMessage: 's', userMessage: 'Hi ${name}', config: { model: 'm', temperature: 1 } };
  const saved = await call(prompts.saveDraft, {
    params: { accountId: 'acme', promptId: 'typed', version: '1.0.0' },
    body: content,
    headers: { 'If-None-Match': '*' },
  });
  expect([saved.status, saved.body.config.schema, saved.etag]).toEqual([201, [], saved.body.etag]);
});

test('a refusal is an ApiProblem with the error body: its status, code and message', async () => {
  const missing = call(prompts.readPrompt, { params: { accountId: 'acme', promptId: 'nothing-here' } });
  await expect(missing).rejects.toBeInstanceOf(ApiProblem);
  await expect(missing).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
});

test('an answer its contract does not allow is refused, never handed on', async () => {
  const impostor = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify({ keys: [{ keyId: 1 }] }));
  });
  const baseUrl = await listen(impostor);
  try {
    const answer = createCaller({ baseUrl, token: () => 'token-of-owner' })(keys.listKeys, { params: { accountId: 'acme' } });
    await expect(answer).rejects.toMatchObject({
      status: 200,
      code: 'INTERNAL_ERROR',
      message: "the service's answer to GET /api/accounts/{accountId}/keys was not understood",
    });
  } finally {
    await close(impostor);
  }
});
