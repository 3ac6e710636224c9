import { ALL_ROUTES } from '../../lambda/management-api/routes';
import type { Role } from '../../lambda/domain/roles';
import { prompt, version } from '../support/fixtures';
import { assertFuzz, fuzzRuns } from '../support/fuzz';
import { ManagementHarness, type Person, type SendOptions } from '../support/management-harness';
import {
  type Caller,
  describeRequest,
  encodedSegment,
  type FuzzManagementRequest,
  fuzzManagementRequests,
  pathOf,
  stateChanges,
  tableState,
} from '../support/management-fuzz';
import { registerApiKey } from '../support/log-capture';
import { listApiKeys } from '../../lambda/features/keys/keys';
import { findMember } from '../../lambda/features/members/members';
import { restorePrompt } from '../../lambda/features/prompts/operations';
import { addMember, setMemberRole } from '../../lambda/features/members/operations';

/**
 * Every route of the management API, fuzzed in-process (test/support/management-fuzz.ts): whatever the
 * caller, path, query, headers and body, the answer is never a 5xx and is one openapi-management.yaml
 * documents (the harness checks every answer); a refused request changes nothing in the table but the one
 * audit entry that records it; an answered change has its entry; no other account is ever touched; no
 * key's secret is stored. `FUZZ_SEED=<seed> FUZZ_RUNS=<n>` replays a run, as the read API's suites do.
 */
const api = new ManagementHarness();
const people = {} as Record<Role | 'outsider', Person>;
const secrets: string[] = [];
let keyId: string;
/** The newest audit entry seen: each state is read from there on. */
let newest = 'AUDIT#';

beforeAll(async () => {
  await api.start();
  await api.fixtures.account('acme', 'free');
  await api.fixtures.account('globex', 'pro');
  await api.fixtures.prompts(
    'acme',
    prompt('welcome', [version('1.0.0'), version('1.1.0'), version('2.0.0', { published: false })]),
    prompt('drafty', [version('1.0.0', { published: false })]),
    prompt('constructor', [version('1.0.0')]),
    prompt('__proto__', [version('1.0.0')]),
  );
  await api.fixtures.prompts('globex', prompt('welcome', [version('1.0.0')]));
  for (const role of ['owner', 'admin', 'editor', 'viewer'] as const) people[role] = await api.person(`${role}@acme.test`, 'acme', role);
  people.outsider = await api.person('outsider@globex.test', 'globex', 'owner');
  const ops = api.operations();
  await ops.labels.set('acme', 'welcome', 'staging', '1.0.0');
  await ops.labels.set('acme', 'welcome', 'production', '1.1.0');
  await ops.labels.set('acme', 'constructor', 'constructor', '1.0.0');
  await ops.labels.set('globex', 'welcome', 'production', '1.0.0');
  await newFixtureKey();
});

async function newFixtureKey(): Promise<void> {
  const { key, apiKey } = await api.operations().keys.create('acme', { name: 'fixture', monthlyLimit: 100 });
  registerApiKey(apiKey);
  secrets.push(apiKey);
  keyId = key.keyId;
}

/**
 * The cast back as the fixture made it, between requests: the four members in their roles, the prompt
 * shown, a key that can be changed. Without it, a removal early in a run would turn the rest into 404s.
 */
async function restoreCast(): Promise<void> {
  const table = api.table;
  for (const role of ['owner', 'admin', 'editor', 'viewer'] as const) {
    const person = people[role];
    const member = await findMember(table, 'acme', person.userId);
    if (!member) await addMember(table, 'acme', { userId: person.userId, email: person.email, role }, 'cli:fuzz');
    else if (member.role !== role) await setMemberRole(table, 'acme', person.userId, role);
  }
  await restorePrompt(table, 'acme', 'welcome');
  const key = (await listApiKeys(table, 'acme')).find((candidate) => candidate.keyId === keyId);
  if (key?.status !== 'active' || key.expiresAt !== undefined) await newFixtureKey();
}
afterAll(() => api.stop());

const ACTIONS = new Map(ALL_ROUTES.map((route) => [`${route.method} ${route.path}`, route.action]));

/** `<keyId>`, `<owner>`...: the fixture's values, known once it is made. */
function resolve(value: string): string {
  if (value === '<keyId>') return keyId;
  const person = /^<(owner|admin|editor|viewer|outsider)>$/.exec(value)?.[1] as keyof typeof people | undefined;
  return person ? people[person].userId : value;
}

function identity(caller: Caller): Pick<SendOptions, 'as' | 'claims'> {
  if (caller === 'no claims') return { as: null };
  if (caller === 'access token') return { claims: { sub: people.owner.userId, token_use: 'access' } };
  if (caller === 'empty sub') return { claims: { sub: '', email: 'owner@acme.test', token_use: 'id' } };
  return { as: people[caller] };
}

/** The draft's ETag as it is now, for requests that send `<current>`: some of them then get through. */
async function currentEtag(request: FuzzManagementRequest): Promise<string> {
  const { promptId, version: number } = request.parameters;
  if (promptId === undefined || number === undefined) return '"none"';
  const read = await api.send('GET', `/api/accounts/acme/prompts/${encodedSegment(promptId)}/versions/${encodedSegment(number)}`, { as: people.owner });
  return read.headers.etag ?? '"none"';
}

async function check(request: FuzzManagementRequest): Promise<void> {
  const path = pathOf(request, resolve);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name] = value === '<current>' ? await currentEtag(request) : value;
  const before = await tableState(api, newest);
  let response: Awaited<ReturnType<typeof api.send>>;
  try {
    response = await api.send(request.method, request.query ? `${path}?${request.query}` : path, {
      ...identity(request.caller),
      headers,
      ...(request.body === undefined ? {} : { rawBody: request.body }),
    });
  } catch (error) {
    throw new Error(`${describeRequest(request, path)}\n  ${(error as Error).message}`);
  }
  const after = await tableState(api, before.newest);
  newest = after.newest;
  const apiKey = (response.body as { apiKey?: unknown } | undefined)?.apiKey;
  if (typeof apiKey === 'string') secrets.push(apiKey);

  const action = ACTIONS.get(`${request.method} ${request.resource}`);
  const { items, newEntries } = stateChanges(before, after);
  const problems: string[] = [];
  if (response.status >= 500) problems.push(`status ${response.status}: ${response.rawBody}`);
  // A change reaches the account its path names, and only that one: globex only for its own owner, the outsider.
  const named = resolve(request.parameters.accountId ?? 'acme');
  const reachable = named === 'acme' || (named === 'globex' && request.caller === 'outsider') ? named : 'acme';
  const otherAccounts = items.filter((id) => !id.startsWith(`ACCOUNT#${reachable} `) && !id.startsWith('APIKEY#'));
  if (otherAccounts.length > 0) problems.push(`items outside the account changed: ${otherAccounts.join(', ')}`);
  const written = JSON.stringify([...newEntries, ...items.map((id) => after.items.get(id))]);
  if (secrets.some((secret) => written.includes(secret))) problems.push("a key's secret was stored");
  if (response.status < 400) {
    if (action === undefined && (items.length > 0 || newEntries.length > 0))
      problems.push(`a read changed ${items.length} items and wrote ${newEntries.length} audit entries`);
    if (action !== undefined && (newEntries.length !== 1 || newEntries[0]?.outcome !== 'succeeded')) {
      problems.push(`a change answered ${response.status} with ${newEntries.length} audit entries: ${JSON.stringify(newEntries)}`);
    }
  } else {
    if (items.length > 0) problems.push(`a refusal (${response.status}) changed: ${items.join(', ')}`);
    if (newEntries.length > 1 || newEntries.some((entry) => entry.outcome !== 'refused' && entry.outcome !== 'failed')) {
      problems.push(`a refusal (${response.status}) wrote: ${JSON.stringify(newEntries)}`);
    }
    const caller = request.caller in people ? people[request.caller as keyof typeof people] : undefined;
    const member = caller !== undefined && before.items.has(`ACCOUNT#acme MEMBER#${caller.userId}`);
    if (action !== undefined && member && resolve(request.parameters.accountId ?? '') === 'acme') {
      const [entry] = newEntries;
      if (newEntries.length !== 1) problems.push(`a member's refused attempt (${response.status}) left ${newEntries.length} audit entries`);
      else if (Object.keys((entry?.target ?? {}) as object).length === 0)
        problems.push(`a refused attempt was audited without its target: ${JSON.stringify(entry)}`);
    }
  }
  if (problems.length > 0) throw new Error(`${describeRequest(request, path)} -> ${response.status}\n  ${problems.join('\n  ')}`);
  // Only an answered change can have changed the cast.
  if (response.status < 400 && action !== undefined) await restoreCast();
}

test('every management route, fuzzed: never a 5xx, always a documented answer, a refusal changes nothing but its audit entry', async () => {
  const first = await tableState(api);
  await assertFuzz('test/management/fuzz.test.ts', fuzzManagementRequests(), check, fuzzRuns(300));
  // Entries are written once: none of those there before the run was changed or removed by it.
  const last = await tableState(api);
  const changed = [...first.audit].filter(([id, entry]) => JSON.stringify(last.audit.get(id)) !== JSON.stringify(entry)).map(([id]) => id);
  expect(changed).toEqual([]);
}, 240_000);
