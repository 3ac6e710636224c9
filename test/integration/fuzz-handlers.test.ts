import fc from 'fast-check';
import { hashApiKey } from '../../lambda/domain/api-key';
import type { ApiEvent } from '../../lambda/http/http-event';
import { ApiHarness } from '../support/api-harness';
import { restApiEvent } from '../support/events';
import { prompt, version } from '../support/fixtures';
import {
  answerProblems,
  assertFuzz,
  countProblems,
  type FuzzKeys,
  type FuzzRequest,
  fuzzRequests,
  fuzzRuns,
  KEY_ROLES,
  type KeyRole,
  withKeys,
} from '../support/fuzz';

/**
 * The handlers in-process, fuzzed (test/support/fuzz.ts): each generated request as the deployed REST
 * API hands it to a function, as the local gateway builds it, or as parsed JSON (how Lambda delivers
 * it, where `__proto__` is an own name), with case variants of a header merged or kept apart.
 */

const api = new ApiHarness();
let keys: FuzzKeys;

beforeAll(async () => {
  await api.start();
  await api.fixtures.account('acme');
  await api.fixtures.account('globex');
  await api.fixtures.prompts(
    'acme',
    prompt('welcome', [version('1.0.0'), version('1.1.0'), version('2.0.0', { published: false })]),
    prompt('draft-only', [version('1.0.0', { published: false })]),
    prompt('retired', [version('1.0.0')], { deleted: true }),
    prompt('constructor', [version('1.0.0')]),
  );
  await api.fixtures.prompts('globex', prompt('other', [version('1.0.0')]));
  keys = {
    valid: await api.fixtures.apiKey('acme', { monthlyLimit: 1_000_000 }),
    limited: await api.fixtures.apiKey('acme', { monthlyLimit: 3 }),
    revoked: await api.fixtures.apiKey('acme', { revoked: true }),
  };
});
afterAll(() => api.stop());

async function counts(): Promise<Record<KeyRole, number>> {
  const entries = await Promise.all(KEY_ROLES.map(async (role) => [role, await api.fixtures.admin.usage(hashApiKey(keys[role]), '2026-11')] as const));
  return Object.fromEntries(entries) as Record<KeyRole, number>;
}

type Form = 'gateway' | 'json' | 'json, case variants apart';

/** The event in one of the forms a function may get it. */
function eventFor(request: FuzzRequest, form: Form): ApiEvent {
  const rawHeaders = withKeys(request, keys).flat();
  const event = restApiEvent({
    method: request.method,
    rawPath: request.path,
    rawQueryString: request.query,
    rawHeaders,
    body: Buffer.from(request.body),
  });
  if (form === 'gateway') return event;
  const parsed = JSON.parse(JSON.stringify(event)) as ApiEvent;
  if (form === 'json, case variants apart') {
    // A gateway that keeps each spelling of a name as a name of its own.
    const lists = new Map<string, string[]>();
    for (const [name, value] of withKeys(request, keys)) lists.set(name, [...(lists.get(name) ?? []), value]);
    const entries = [...lists.entries()];
    parsed.headers = JSON.parse(JSON.stringify(Object.fromEntries(entries.map(([name, values]) => [name, values.at(-1)]))));
    parsed.multiValueHeaders = JSON.parse(JSON.stringify(Object.fromEntries(entries)));
  }
  return parsed;
}

test('every generated request is answered in the API format or with a body openapi.yaml documents, and counted at most once', async () => {
  const forms = fc.constantFrom<Form>('gateway', 'json', 'json, case variants apart');
  await assertFuzz(
    'test/integration/fuzz-handlers.test.ts',
    fc.tuple(fuzzRequests(), forms),
    async ([request, form]) => {
      const before = await counts();
      const response = await api.send(eventFor(request, form));
      const after = await counts();
      const answer = { status: response.status, headers: response.headers, body: response.rawBody };
      const problems = [...answerProblems(request, answer, keys, true), ...countProblems(request, answer, before, after)];
      if (problems.length > 0) throw new Error(`${form} event -> ${response.status}:\n  ${problems.join('\n  ')}`);
    },
    fuzzRuns(300),
  );
}, 120_000);

test('several Authorization headers are refused whatever they hold, in every form of the event, and nothing is counted', async () => {
  const values = fc.constantFrom('Bearer <valid>', 'Bearer <limited>', 'bearer <valid>', '', 'Bearer');
  const several = fc.array(fc.tuple(fc.mixedCase(fc.constant('authorization')), values), { minLength: 2, maxLength: 4 });
  await assertFuzz(
    'test/integration/fuzz-handlers.test.ts',
    fc.tuple(several, fc.constantFrom<Form>('gateway', 'json', 'json, case variants apart'), fc.constantFrom('/prompts', '/prompts/welcome')),
    async ([headers, form, path]) => {
      const request: FuzzRequest = { method: 'GET', path, query: '', headers, body: new Uint8Array(0) };
      const before = await counts();
      const response = await api.send(eventFor(request, form));
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ error: 'Invalid Authorization header format', code: 'UNAUTHORIZED' });
      expect(await counts()).toEqual(before);
    },
    fuzzRuns(60),
  );
}, 60_000);
