import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../../admin/table/ensure-table';
import { createDocumentClient } from '../../lambda/table/client';
import { type EmbeddedStore, startEmbeddedStore } from '../../local/embedded-store';
import { type RawRequest, sendRaw } from '../support/raw-http';

/**
 * docs/behaviour-rules.md, "The local stack is a guest on the developer's machine": the embedded store answers this
 * machine's programs only. A web page (any request with Origin) and a DNS-rebinding page (a Host that is
 * not a loopback name with the store's port) are refused with 403, get no CORS headers, and change nothing.
 */

const TABLE = 'prompts-guard-test';
let folder: string;
let store: EmbeddedStore;
let port: string;
const client = () => createDocumentClient({ region: 'us-east-1', endpoint: store.endpoint });

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'store-guard-'));
  store = await startEmbeddedStore({ dataDir: folder, port: 0 });
  port = new URL(store.endpoint).port;
  const documents = client();
  await ensureTable(documents, TABLE);
  await documents.send(new PutCommand({ TableName: TABLE, Item: { pk: 'ACCOUNT#acme', sk: 'MEMBER#u1', role: 'viewer' } }));
  documents.destroy();
});

afterAll(async () => {
  await store.close();
  await rm(folder, { recursive: true, force: true });
});

/** What a page would send: raise its own role to owner. */
function putItem(headers: readonly (readonly [string, string])[]): RawRequest {
  return {
    method: 'POST',
    target: '/',
    headers: [
      ['Content-Type', 'application/x-amz-json-1.0'],
      ['X-Amz-Target', 'DynamoDB_20120810.PutItem'],
      ['Authorization', 'AWS4-HMAC-SHA256 Credential=page/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00'],
      ...headers,
    ],
    body: Buffer.from(JSON.stringify({ TableName: TABLE, Item: { pk: { S: 'ACCOUNT#acme' }, sk: { S: 'MEMBER#u1' }, role: { S: 'owner' } } })),
  };
}

async function storedRole(): Promise<unknown> {
  const documents = client();
  try {
    const { Item } = await documents.send(new GetCommand({ TableName: TABLE, Key: { pk: 'ACCOUNT#acme', sk: 'MEMBER#u1' } }));
    return Item?.role;
  } finally {
    documents.destroy();
  }
}

function corsHeadersOf(headers: Readonly<Record<string, string>>): string[] {
  return Object.keys(headers).filter((name) => name.startsWith('access-control-'));
}

test.each([
  ['a page on another origin', [['Origin', 'https://attacker.example']]],
  ['a sandboxed page (Origin: null)', [['Origin', 'null']]],
  ['a page on the same loopback origin', [['Origin', 'http://127.0.0.1:3002']]],
] as const)('a write from %s is refused with 403 and changes nothing', async (_, headers) => {
  const answer = await sendRaw(store.endpoint, putItem(headers));
  expect(answer.status).toBe(403);
  expect(JSON.parse(answer.body)).toMatchObject({ __type: expect.stringContaining('AccessDenied') });
  expect(corsHeadersOf(answer.headers)).toEqual([]);
  expect(await storedRole()).toBe('viewer');
});

test('a CORS preflight from a page gets 403 and no CORS headers, so the browser never sends the write', async () => {
  const answer = await sendRaw(store.endpoint, {
    method: 'OPTIONS',
    target: '/',
    headers: [
      ['Origin', 'https://attacker.example'],
      ['Access-Control-Request-Method', 'POST'],
      ['Access-Control-Request-Headers', 'content-type,x-amz-target,authorization'],
    ],
  });
  expect(answer.status).toBe(403);
  expect(corsHeadersOf(answer.headers)).toEqual([]);
});

test.each([
  ['a DNS-rebinding name', 'attacker.example'],
  ['the rebinding name with the store port', 'attacker.example:PORT'],
  ['a loopback name with another port', '127.0.0.1:1'],
  ['an address on the LAN', '192.168.1.10:PORT'],
])('a request for %s (Host) is refused with 403 and changes nothing', async (_, host) => {
  const request = putItem([]);
  const bytes = Buffer.concat([
    Buffer.from(
      [
        'POST / HTTP/1.1',
        `Host: ${host.replace('PORT', port)}`,
        ...request.headers.map(([name, value]) => `${name}: ${value}`),
        `Content-Length: ${request.body?.length ?? 0}`,
        'Connection: close',
        '',
        '',
      ].join('\r\n'),
      'latin1',
    ),
    request.body ?? Buffer.alloc(0),
  ]);
  const answer = await sendRaw(store.endpoint, bytes);
  expect(answer.status).toBe(403);
  expect(await storedRole()).toBe('viewer');
});

test('two Host headers are refused, whatever they say', async () => {
  const request = putItem([['Host', `127.0.0.1:${port}`]]);
  const answer = await sendRaw(store.endpoint, request);
  expect(answer.status).toBe(403);
  expect(await storedRole()).toBe('viewer');
});

test.each(['127.0.0.1', 'localhost'])("this machine's programs reach it by %s, as the SDK and the CLI do", async (name) => {
  const documents = createDocumentClient({ region: 'us-east-1', endpoint: `http://${name}:${port}` });
  try {
    const { Item } = await documents.send(new GetCommand({ TableName: TABLE, Key: { pk: 'ACCOUNT#acme', sk: 'MEMBER#u1' } }));
    expect(Item?.role).toBe('viewer');
  } finally {
    documents.destroy();
  }
});
