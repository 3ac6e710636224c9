import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { MANAGEMENT_FUNCTIONS } from '../../lambda/management-api/routes';
import { PROTOTYPE_NAMES } from './fuzz';
import type { ManagementHarness } from './management-harness';

/**
 * Property-based fuzzing of the management API (test/management/fuzz.test.ts): requests on every route
 * of routes.ts, from every kind of caller, with path parameters, query strings, headers and bodies as an
 * attacker or a careless client sends them, and a snapshot of the whole table to compare before and after.
 * Runs are seeded like the read API's (test/support/fuzz.ts: FUZZ_SEED, FUZZ_RUNS).
 */

/** Who sends a request: a member by role, someone in no account, or claims a valid ID token never has. */
export const CALLERS = ['owner', 'admin', 'editor', 'viewer', 'outsider', 'no claims', 'access token', 'empty sub'] as const;
export type Caller = (typeof CALLERS)[number];

export interface FuzzManagementRequest {
  readonly method: string;
  /** The REST API resource, as routes.ts lists it. */
  readonly resource: string;
  readonly caller: Caller;
  /** Each `{name}` of the resource, before encoding; `<...>` names a value of the fixture (a key id, a user id). */
  readonly parameters: Readonly<Record<string, string>>;
  readonly query: string;
  /** `<current>` as a value stands for the draft's ETag as it is when the request is sent. */
  readonly headers: Readonly<Record<string, string>>;
  /** As sent: JSON or not, any depth. */
  readonly body: string | undefined;
}

const ROUTES = MANAGEMENT_FUNCTIONS.flatMap((fn) => fn.routes);

const prototypeName = fc.constantFrom(...PROTOTYPE_NAMES);
const anyText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.stringMatching(/^[\x20-\x7e]{0,40}$/),
  fc.constantFrom('', ' ', '%', '%zz', '..', '.', '/', 'a/b', '\u0000', 'é', '\ud800'),
);

/** Values for each path parameter: the fixture's own, names every object inherits, and garbage. */
const PARAMETER_VALUES: Readonly<Record<string, fc.Arbitrary<string>>> = {
  accountId: fc.oneof(
    { weight: 12, arbitrary: fc.constant('acme') },
    { weight: 1, arbitrary: fc.constantFrom('globex', 'nowhere', 'ACME') },
    { weight: 1, arbitrary: prototypeName },
    { weight: 1, arbitrary: anyText },
  ),
  promptId: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('welcome', 'welcome', 'drafty', 'constructor', '__proto__', 'fuzz-new', 'nope') },
    { weight: 2, arbitrary: prototypeName },
    { weight: 1, arbitrary: fc.stringMatching(/^[-A-Za-z0-9_.]{1,140}$/) },
    { weight: 1, arbitrary: anyText },
  ),
  version: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('1.0.0', '1.1.0', '2.0.0', '3.0.0', '3.0.0', '9.9.9') },
    { weight: 2, arbitrary: fc.constantFrom('01.0.0', '1.0', '1.0.0.0', '1000000000.0.0', 'latest', '-1.0.0') },
    { weight: 1, arbitrary: prototypeName },
    { weight: 1, arbitrary: anyText },
  ),
  label: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('staging', 'production', 'constructor', 'canary', 'absent') },
    { weight: 2, arbitrary: fc.constantFrom('latest', 'Production', 'prod.v2', 'x'.repeat(33), '1st', 'a-b_c') },
    { weight: 2, arbitrary: prototypeName },
    { weight: 1, arbitrary: anyText },
  ),
  keyId: fc.oneof(
    { weight: 6, arbitrary: fc.constant('<keyId>') },
    { weight: 2, arbitrary: fc.constantFrom('key_0000000000000000', 'key_', 'KEY_0000000000000000') },
    { weight: 1, arbitrary: prototypeName },
    { weight: 1, arbitrary: anyText },
  ),
  userId: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('<owner>', '<admin>', '<editor>', '<viewer>', '<outsider>') },
    { weight: 2, arbitrary: prototypeName },
    { weight: 1, arbitrary: anyText },
  ),
  requestId: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('req_20260101000000000_00000000', 'req_99999999999999999_ffffffff') },
    { weight: 2, arbitrary: fc.constantFrom('req_', 'REQ_20260101000000000_00000000', 'req_2026_0', 'req_20260101000000000_0000000g') },
    { weight: 1, arbitrary: prototypeName },
    { weight: 1, arbitrary: anyText },
  ),
  webhookId: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('wh_0000000000000000', 'wh_ffffffffffffffff') },
    { weight: 2, arbitrary: fc.constantFrom('wh_', 'WH_0000000000000000', 'wh_000000000000000g', 'key_0000000000000000') },
    { weight: 1, arbitrary: prototypeName },
    { weight: 1, arbitrary: anyText },
  ),
};

/** Each UTF-8 byte outside the unreserved characters as %XX, as a client encodes (a lone surrogate as U+FFFD's bytes). */
const percentEncoded = (value: string): string =>
  [...Buffer.from(value, 'utf8')]
    .map((byte) => (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');

const QUERY_NAMES = fc.oneof(fc.constantFrom('before', 'month', 'before', 'month', 'state'), prototypeName, fc.string({ maxLength: 8 }));
const QUERY_VALUES = fc.oneof(
  fc.constantFrom(
    'QVVESVQj',
    'QVVESVQjeA',
    'AUDIT#',
    '2026-11',
    '2026-13',
    '1999-01',
    '',
    '__proto__',
    'constructor',
    'nonsense',
    'open',
    'stale',
    'req_20260101000000000_00000000',
  ),
  fc.base64String({ maxLength: 80 }).map((text) => text.replace(/=+$/, '').replaceAll('+', '-').replaceAll('/', '_')),
  fc.integer({ min: 1_000, max: 8_000 }).map((length) => 'Q'.repeat(length)),
  anyText,
);
const query = fc
  .tuple(fc.array(fc.tuple(QUERY_NAMES, QUERY_VALUES), { maxLength: 4 }), fc.constantFrom('', '', '&', '%', 'before', '__proto__[x]=1'))
  .map(([pairs, tail]) => [...pairs.map(([name, value]) => `${percentEncoded(name)}=${percentEncoded(value)}`), ...(tail ? [tail] : [])].join('&'));

const precondition = fc.oneof(
  { weight: 4, arbitrary: fc.constant('<current>') },
  { weight: 3, arbitrary: fc.constantFrom('*', '"x"', 'W/"x"', '""', '"a", "b"', '', 'constructor', '__proto__') },
  { weight: 1, arbitrary: anyText.filter((text) => !/[\r\n]/.test(text)) },
);
const headers = fc.record(
  {
    'If-Match': precondition,
    'If-None-Match': fc.oneof(fc.constant('*'), precondition),
    'Content-Type': fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', '', 'application/json; charset=latin1'),
  },
  { requiredKeys: [] },
);

/** A body each route accepts, to mutate: most fuzzed bodies are near a valid one, where the checks are. */
const VALID_BODIES: Readonly<Record<string, Record<string, unknown>>> = {
  'PATCH /api/accounts/{accountId}': { name: 'Acme', protectedLabels: ['production', 'staging'] },
  'POST /api/accounts/{accountId}/prompts': { promptId: 'fuzz-new', promptName: 'New' },
  'PUT /api/accounts/{accountId}/prompts/{promptId}/versions/{version}': {
    systemMessage: 'You are kind.',
    userMessage: 'Greet ${name}.',
    config: { model: 'gpt-4o-mini', temperature: 0.5, schema: [], inputData: { name: 'Ada' } },
  },
  'POST /api/accounts/{accountId}/prompts/{promptId}/versions/{version}/publish': { note: 'fuzzed' },
  'PUT /api/accounts/{accountId}/prompts/{promptId}/labels/{label}': { version: '1.0.0', note: 'fuzzed' },
  'POST /api/accounts/{accountId}/requests/{requestId}/approve': { comment: 'fuzzed' },
  'POST /api/accounts/{accountId}/requests/{requestId}/reject': { comment: 'fuzzed' },
  'POST /api/accounts/{accountId}/keys': { name: 'fuzzed', monthlyLimit: 10, scope: ['welcome'], expiresAt: '2031-01-01T00:00:00Z' },
  'PATCH /api/accounts/{accountId}/keys/{keyId}': { name: 'renamed', disabled: true },
  'POST /api/accounts/{accountId}/keys/{keyId}/rotate': { graceSeconds: 60 },
  'POST /api/accounts/{accountId}/members': { email: 'new@acme.test', role: 'viewer' },
  'PATCH /api/accounts/{accountId}/members/{userId}': { role: 'editor' },
  'POST /api/accounts/{accountId}/webhooks': { url: 'http://127.0.0.1:9/fuzz', events: ['prompt.label.moved'], description: 'fuzzed' },
  'PATCH /api/accounts/{accountId}/webhooks/{webhookId}': { url: 'http://localhost:9/fuzz', events: ['*'], enabled: false },
};

/** JSON text nested `depth` levels, as text: JSON.stringify cannot write the deepest. */
const nestedText = (depth: number, open: '[' | '{"a":'): string => `${open.repeat(depth)}1${(open === '[' ? ']' : '}').repeat(depth)}`;

/** What goes where a field's value goes: any JSON, deep JSON, long strings (within a body's limits), extreme numbers. */
const fieldValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value) ?? 'null') },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.integer({ min: 20, max: 60_000 }), fc.constantFrom('[' as const, '{"a":' as const)).map(([depth, open]) => nestedText(depth, open)),
  },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 320_000 }).map((length) => JSON.stringify('x'.repeat(length))) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('1e308', '-0', '9007199254740993', '-1', '0.5', 'true', 'null', '[]', '{}', '""', '"__proto__"', '{"__proto__":{"admin":true}}'),
  },
);

/** An object's members as JSON text, so `__proto__` stays an own name however it is spelled. */
const objectText = (members: readonly (readonly [string, string])[]) => `{${members.map(([name, value]) => `${JSON.stringify(name)}:${value}`).join(',')}}`;

function bodyFor(routeKey: string): fc.Arbitrary<string | undefined> {
  const valid = VALID_BODIES[routeKey] ?? {};
  const fields = Object.keys(valid);
  const validMembers = Object.entries(valid).map(([name, value]) => [name, JSON.stringify(value)] as const);
  const name = fc.oneof(
    { weight: 3, arbitrary: fields.length > 0 ? fc.constantFrom(...fields) : prototypeName },
    { weight: 2, arbitrary: prototypeName },
    { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
  );
  // A valid body with some members replaced or added: the checks of each field, one at a time or a few.
  const mutated = fc.array(fc.tuple(name, fieldValue), { minLength: 1, maxLength: 3 }).map((changes) => {
    const members = new Map<string, string>(validMembers);
    for (const [field, value] of changes) members.set(field, value);
    return objectText([...members]);
  });
  const config = fc
    .record({ field: fc.constantFrom('model', 'temperature', 'schema', 'inputData', 'inputDataRootName', '__proto__', 'constructor'), value: fieldValue })
    .map(({ field, value }) =>
      objectText([
        ...validMembers.filter(([member]) => member !== 'config'),
        [
          'config',
          objectText([
            ['model', '"m"'],
            ['temperature', '1'],
            [field, value],
          ]),
        ],
      ]),
    );
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant(fields.length > 0 ? JSON.stringify(valid) : undefined) },
    { weight: 6, arbitrary: mutated },
    { weight: routeKey.includes('/versions/{version}') ? 3 : 0, arbitrary: config },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 5 }).map((value) => JSON.stringify(value) ?? 'null') },
    { weight: 1, arbitrary: fc.constantFrom(undefined, '', ' ', '{', '{"a":}', 'null', '[]', '"text"', '\u0000', nestedText(200_000, '[')) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 60 }) },
  );
}

/** Requests on every route of routes.ts: the route first, then what fills it. */
export function fuzzManagementRequests(): fc.Arbitrary<FuzzManagementRequest> {
  return fc.constantFrom(...ROUTES).chain(({ method, path }) => {
    const names = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name as string);
    // `.` and `..` are no segments a URL can carry: a client resolves them before sending.
    const segment = (values: fc.Arbitrary<string>) => values.filter((value) => value !== '.' && value !== '..');
    const parameters = fc.record(
      Object.fromEntries(names.map((name) => [name, segment(PARAMETER_VALUES[name] ?? anyText)])) as Record<string, fc.Arbitrary<string>>,
    );
    return fc.record({
      method: fc.constant(method),
      resource: fc.constant(path),
      caller: fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom<Caller>('owner', 'admin', 'editor', 'viewer') },
        { weight: 2, arbitrary: fc.constantFrom(...CALLERS) },
      ),
      parameters,
      query: fc.oneof({ weight: 2, arbitrary: fc.constant('') }, { weight: 1, arbitrary: query }),
      headers,
      body: bodyFor(`${method} ${path}`),
    });
  });
}

/** A path parameter as sent (an empty one as a space: an empty segment is no parameter). */
export const encodedSegment = (value: string): string => percentEncoded(value) || '%20';

/** The path as sent: each parameter percent-encoded, as a client builds it. */
export function pathOf(request: FuzzManagementRequest, resolve: (value: string) => string): string {
  return request.resource.replace(/\{(\w+)\}/g, (_, name: string) => encodedSegment(resolve(request.parameters[name] ?? '')));
}

/** A short line of the request for a failure report: never a body of 300 KB. */
export function describeRequest(request: FuzzManagementRequest, path: string): string {
  const body =
    request.body === undefined
      ? 'no body'
      : `body ${JSON.stringify(request.body.slice(0, 160))}${request.body.length > 160 ? `... (${request.body.length} characters)` : ''}`;
  return `${request.caller}: ${request.method} ${path.slice(0, 200)}${request.query ? `?${request.query.slice(0, 120)}` : ''} ${JSON.stringify(request.headers)} ${body}`;
}

// ---- the state, read back

export interface TableState {
  /** Every item but the audit log's, as comparable text, by `pk sk`. */
  readonly items: ReadonlyMap<string, string>;
  /** The audit log's entries written after the `since` the state was read with, by `pk sk`. */
  readonly audit: ReadonlyMap<string, Record<string, unknown>>;
  /** The newest audit entry's sort key, to read the next state since. */
  readonly newest: string;
}

/** An item as comparable text: names sorted, sets (an account's owners) as sorted lists. */
const snapshotOf = (item: unknown): string =>
  JSON.stringify(item, (_, value: unknown) => {
    if (value instanceof Set) return [...value].map(String).sort();
    if (value !== null && typeof value === 'object' && !Array.isArray(value))
      return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    return value;
  });

/**
 * The whole table, read with a consistent scan (the fixture's table is small): what no refusal may
 * change. Audit entries only from `since` on: the log grows with every refusal, and entries are written
 * once (their settling is checked on the entries a request adds).
 */
export async function tableState(api: ManagementHarness, since = 'AUDIT#'): Promise<TableState> {
  const items = new Map<string, string>();
  const audit = new Map<string, Record<string, unknown>>();
  let newest = since;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await api.local.client.send(
      new ScanCommand({
        TableName: api.local.tableName,
        ConsistentRead: true,
        ExclusiveStartKey: start,
        FilterExpression: 'NOT begins_with(sk, :audit) OR sk > :since',
        ExpressionAttributeValues: { ':audit': 'AUDIT#', ':since': since },
      }),
    );
    for (const item of page.Items ?? []) {
      const [pk, sk] = [String(item.pk), String(item.sk)];
      if (sk.startsWith('AUDIT#')) {
        audit.set(`${pk} ${sk}`, item);
        if (sk > newest) newest = sk;
      } else items.set(`${pk} ${sk}`, snapshotOf(item));
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return { items, audit, newest };
}

/** What changed between two states: items added, removed or rewritten, and the audit entries added since the first. */
export function stateChanges(before: TableState, after: TableState): { items: string[]; newEntries: Record<string, unknown>[] } {
  const items = [...new Set([...before.items.keys(), ...after.items.keys()])].filter((id) => before.items.get(id) !== after.items.get(id));
  return { items, newEntries: [...after.audit.values()] };
}
