import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CognitoIdentityProviderClient, ListUsersCommand } from '@aws-sdk/client-cognito-identity-provider';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { ensureTable } from '../../admin/table/ensure-table';
import { createDocumentClient } from '../../lambda/table/client';
import { type EmbeddedStore, startEmbeddedStore } from '../../local/embedded-store';
import { type DemoUser, ensureDemoUser } from '../../local/identity/demo-user';
import { type IdentityStandIn, startIdentityStandIn } from '../../local/identity/stand-in';
import { assertFuzz, fuzzRuns, PROTOTYPE_NAMES } from '../support/fuzz';
import { signIn } from '../support/oauth-sign-in';
import { sendRaw } from '../support/raw-http';

/**
 * Property-based fuzzing of the local stand-ins of what AWS runs (docs/behaviour-rules.md, "The local stack is a guest on the developer's machine"):
 * requests generated as a hostile web page or a careless program sends them (Origin and Host in every form,
 * X-Amz-Target names from Object.prototype, JSON bodies of any shape, OAuth parameters of any kind) never get a
 * 5xx, and a refused one never changes anything: the store's items and the pool's users are read back after each.
 * Seeded like the API's suites (test/support/fuzz.ts): a failure prints the line that replays it.
 */

jest.setTimeout(120_000);

const TABLE = 'prompts-fuzz-stand-ins';
const CALLBACK = 'http://127.0.0.1:41901/';
let folder: string;
let store: EmbeddedStore;
let standIn: IdentityStandIn;
let demo: DemoUser;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'fuzz-stand-ins-'));
  store = await startEmbeddedStore({ dataDir: join(folder, 'store'), port: 0 });
  const documents = createDocumentClient({ region: 'us-east-1', endpoint: store.endpoint });
  await ensureTable(documents, TABLE);
  documents.destroy();
  standIn = await startIdentityStandIn({ dataDir: folder, port: 0, callbackUrls: [CALLBACK] });
  demo = await ensureDemoUser({ endpoint: standIn.endpoint, userPoolId: standIn.userPoolId, dataDir: folder });
});

afterAll(async () => {
  await standIn.stop();
  await store.close();
  await rm(folder, { recursive: true, force: true });
});

const portOf = (endpoint: string) => new URL(endpoint).port;

/** A Host header as a page or a program might send it: the server's own name (allowed) or anything else. */
const hostFor = (port: string) =>
  fc.oneof(
    fc.constantFrom(`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`),
    fc.constantFrom('attacker.example', `attacker.example:${port}`, `127.0.0.1:1`, `127.0.0.1`, `10.0.0.1:${port}`, `127.0.0.1.nip.io:${port}`, ''),
    fc.stringMatching(/^[a-z0-9.:[\]-]{1,30}$/),
  );

const originValue = fc.oneof(fc.constant('null'), fc.constantFrom('https://attacker.example', 'http://127.0.0.1:3002', ''), fc.webUrl());

const jsonValue = fc.jsonValue({ maxDepth: 4 });
const jsonBody = fc.oneof(
  jsonValue.map((value) => JSON.stringify(value)),
  fc.dictionary(fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES), fc.string({ maxLength: 12 })), jsonValue, { maxKeys: 5 }).map((value) => JSON.stringify(value)),
  fc.string({ maxLength: 200 }),
);

interface Generated {
  readonly method: string;
  readonly target: string;
  readonly host: string;
  readonly origin: string | undefined;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: string;
}

function raw({ method, target, host, origin, headers, body }: Generated): Buffer {
  const bytes = Buffer.from(body, 'utf8');
  const lines = [`${method} ${target} HTTP/1.1`, `Host: ${host}`];
  if (origin !== undefined) lines.push(`Origin: ${origin}`);
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  lines.push(`Content-Length: ${bytes.length}`, 'Connection: close', '', '');
  return Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), bytes]);
}

const allowed = (host: string, port: string) => [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].includes(host.toLowerCase());

describe('the embedded store', () => {
  const dynamoTarget = fc.oneof(
    fc.constantFrom('PutItem', 'UpdateItem', 'DeleteItem', 'DeleteTable', 'CreateTable', 'BatchWriteItem', 'Scan').map((op) => `DynamoDB_20120810.${op}`),
    fc.constantFrom(...PROTOTYPE_NAMES).map((name) => `DynamoDB_20120810.${name}`),
  );
  const writeBody = fc.constantFrom(
    JSON.stringify({ TableName: TABLE, Item: { pk: { S: 'ACCOUNT#x' }, sk: { S: 'MEMBER#y' }, role: { S: 'owner' } } }),
    JSON.stringify({ TableName: TABLE }),
    JSON.stringify({ RequestItems: { [TABLE]: [{ PutRequest: { Item: { pk: { S: 'a' }, sk: { S: 'b' } } } }] } }),
  );

  test('a request from a page (any Origin) or for another Host is refused with 403, and the table is as it was', async () => {
    const port = portOf(store.endpoint);
    const documents = createDocumentClient({ region: 'us-east-1', endpoint: store.endpoint });
    const itemsBefore = (await documents.send(new ScanCommand({ TableName: TABLE }))).Items ?? [];
    const request = fc
      .record({
        method: fc.constantFrom('POST', 'OPTIONS', 'GET', 'PUT'),
        target: fc.constantFrom('/', '/?X-Amz-Algorithm=x', '/shell'),
        host: hostFor(port),
        origin: fc.option(originValue, { nil: undefined }),
        headers: fc.tuple(dynamoTarget, fc.mixedCase(fc.constant('content-type'))).map(
          ([target, name]) =>
            [
              ['X-Amz-Target', target],
              [name, 'application/x-amz-json-1.0'],
              ['Authorization', 'AWS4-HMAC-SHA256 Credential=page/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00'],
            ] as const,
        ),
        body: writeBody,
      })
      .filter((generated) => generated.origin !== undefined || !allowed(generated.host, port));
    try {
      await assertFuzz(
        'test/integration/fuzz-stand-ins.test.ts',
        request,
        async (generated) => {
          const answer = await sendRaw(store.endpoint, raw(generated));
          expect(answer.status).toBe(403);
          expect(Object.keys(answer.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
        },
        fuzzRuns(150),
      );
      const { Items: itemsAfter = [] } = await documents.send(new ScanCommand({ TableName: TABLE }));
      expect(itemsAfter).toEqual(itemsBefore);
    } finally {
      documents.destroy();
    }
  });
});

describe('the embedded store, from programs on this machine', () => {
  test('any body, of any JSON shape, answers without a 5xx, and the store (the process npm start runs) keeps serving', async () => {
    const port = portOf(store.endpoint);
    const request = fc.record({
      method: fc.constant('POST'),
      target: fc.constant('/'),
      host: fc.constantFrom(`127.0.0.1:${port}`, `localhost:${port}`),
      origin: fc.constant(undefined),
      headers: fc.constantFrom('GetItem', 'PutItem', 'UpdateItem', 'Query', 'Scan', 'BatchWriteItem', 'ListTables').map(
        (op) =>
          [
            ['X-Amz-Target', `DynamoDB_20120810.${op}`],
            ['Content-Type', 'application/x-amz-json-1.0'],
            ['Authorization', 'AWS4-HMAC-SHA256 Credential=cli/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00'],
            ['X-Amz-Date', '20260101T000000Z'],
          ] as const,
      ),
      body: fc.oneof(jsonBody, fc.constantFrom('null', '[]', '5', 'true', '"text"')),
    });
    await assertFuzz(
      'test/integration/fuzz-stand-ins.test.ts',
      request,
      async (generated) => {
        const answer = await sendRaw(store.endpoint, raw(generated));
        expect(answer.status).toBeLessThan(500);
      },
      fuzzRuns(150),
    );
    const documents = createDocumentClient({ region: 'us-east-1', endpoint: store.endpoint });
    try {
      await expect(documents.send(new ScanCommand({ TableName: TABLE }))).resolves.toBeDefined();
    } finally {
      documents.destroy();
    }
  });
});

describe("the user pool's stand-in", () => {
  async function userSnapshot(): Promise<string> {
    const client = new CognitoIdentityProviderClient({
      region: 'us-east-1',
      endpoint: standIn.endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    try {
      const { Users = [] } = await client.send(new ListUsersCommand({ UserPoolId: standIn.userPoolId }));
      return JSON.stringify(Users.map((user) => [user.Username, user.UserStatus, user.Enabled, user.UserLastModifiedDate]).sort());
    } finally {
      client.destroy();
    }
  }

  const cognitoTarget = fc.oneof(
    fc
      .constantFrom('AdminCreateUser', 'AdminSetUserPassword', 'AdminDeleteUser', 'ListUsers', 'AdminGetUser')
      .map((op) => `AWSCognitoIdentityProviderService.${op}`),
    fc.constantFrom(...PROTOTYPE_NAMES).map((name) => `AWSCognitoIdentityProviderService.${name}`),
    fc.constantFrom(...PROTOTYPE_NAMES).map((name) => `.${name}`),
    fc.string({ maxLength: 40 }).filter((text) => !/[\r\n]/.test(text)),
  );
  const oauthParams = fc
    .dictionary(
      fc.oneof(
        fc.constantFrom(
          'client_id',
          'redirect_uri',
          'response_type',
          'code_challenge',
          'code_challenge_method',
          'scope',
          'state',
          'username',
          'password',
          'grant_type',
          'code',
          'code_verifier',
          'refresh_token',
          'token',
          'logout_uri',
          'challenge',
          'new_password',
        ),
        fc.constantFrom(...PROTOTYPE_NAMES),
      ),
      fc.oneof(
        fc.string({ maxLength: 60 }),
        fc.constantFrom('localdashboardclient', CALLBACK, 'code', 'S256', 'openid', 'authorization_code', 'refresh_token'),
      ),
      { maxKeys: 8 },
    )
    .map((params) => new URLSearchParams(Object.entries(params)).toString());

  test('no request gets a 5xx; a refused one changes no user, and the demo password still signs in', async () => {
    const port = portOf(standIn.endpoint);
    const adminCall = (body: fc.Arbitrary<string>) =>
      fc.record({
        method: fc.constant('POST'),
        target: fc.constant('/'),
        host: hostFor(port),
        origin: fc.option(originValue, { nil: undefined }),
        headers: cognitoTarget.map(
          (target) =>
            [
              ['X-Amz-Target', target],
              ['Content-Type', 'application/x-amz-json-1.1'],
            ] as const,
        ),
        body,
      });
    const request = fc.oneof(
      // A page's attempt to take over the pool: refused whatever it says.
      adminCall(
        fc.constantFrom(
          JSON.stringify({ UserPoolId: 'local_PromptsDev', Username: 'demo@example.com', Password: 'Attacker-Chosen-1!', Permanent: true }),
          JSON.stringify({ UserPoolId: 'local_PromptsDev', Username: 'mallory@example.com' }),
          JSON.stringify({ UserPoolId: 'local_PromptsDev', Username: 'demo@example.com' }),
        ),
      ).filter((generated) => generated.origin !== undefined || !allowed(generated.host, port)),
      // Any other administrative call: garbage, prototype-named operations, bodies of any shape.
      adminCall(jsonBody),
      fc.record({
        method: fc.constantFrom('GET', 'POST', 'OPTIONS', 'PUT', 'DELETE'),
        target: fc.oneof(
          fc
            .tuple(
              fc.constantFrom(
                '/oauth2/authorize',
                '/oauth2/token',
                '/oauth2/revoke',
                '/login',
                '/login/new-password',
                '/logout',
                '/local_PromptsDev/.well-known/jwks.json',
                '/__proto__',
                '/constructor',
              ),
              oauthParams,
            )
            .map(([path, query]) => (query ? `${path}?${query}` : path)),
          // Absolute-form targets, some of them no URL at all.
          fc.constantFrom('http://[', 'http://a:b:c/', '*', '//attacker.example/logout'),
        ),
        host: hostFor(port),
        origin: fc.option(originValue, { nil: undefined }),
        headers: fc.constant([['Content-Type', 'application/x-www-form-urlencoded']] as const),
        body: oauthParams,
      }),
    );
    const before = await userSnapshot();
    await assertFuzz(
      'test/integration/fuzz-stand-ins.test.ts',
      request,
      async (generated) => {
        const answer = await sendRaw(standIn.endpoint, raw(generated));
        expect(answer.status).toBeLessThan(500);
        if (answer.status === 403) expect(await userSnapshot()).toBe(before);
      },
      fuzzRuns(250),
    );
    expect(await userSnapshot()).toBe(before);
    await expect(
      signIn({ authorizeUrl: standIn.authorizeUrl, tokenUrl: standIn.tokenUrl, clientId: standIn.clientId, redirectUri: CALLBACK }, demo.email, demo.password),
    ).resolves.toEqual(expect.any(String));
  });
});
