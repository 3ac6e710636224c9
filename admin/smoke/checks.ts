import { type Answer, describe, field, request } from './http';

/** What the smoke run is pointed at: a deployed `ApiUrl` (or `npm start`'s API), a key of an account with prompts. */
export interface SmokeTarget {
  /** The read API's base URL, with or without its trailing slash. */
  readonly apiUrl: string;
  readonly apiKey: string;
  /** A label some prompt of the account carries. */
  readonly label: string;
  /** The web origin the CORS checks send: one the API must answer for a browser. */
  readonly origin: string;
}

export interface CheckResult {
  readonly name: string;
  readonly ok: boolean;
  /** What was asked and what came back, or why it failed. */
  readonly detail: string;
}

/** Thrown by a check to fail with a reason; any other error (a network failure) fails it the same way. */
class CheckFailed extends Error {}

function expect(condition: boolean, reason: string): asserts condition {
  if (!condition) throw new CheckFailed(reason);
}

const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] as const;
const MCP_PROTOCOL_VERSION = '2025-06-18';
/** A prompt id no account has: valid in form, so the answer must be the 404 of an unknown prompt. */
const UNKNOWN_PROMPT = 'smoke-check-no-such-prompt';
/** A key in the service's format that no account has: the answer must be the 401 of an unknown key. */
const BAD_KEY = 'prs_smoke_check_not_a_key_000000000000';

interface Listed {
  readonly promptId: string;
  readonly version: string;
}

/**
 * Every check, in order, each one line of the report. Later checks use what earlier ones learnt (a prompt
 * id, its version); when that is missing they fail saying which check to read first, so nothing is skipped
 * silently.
 */
export async function runSmokeChecks(target: SmokeTarget): Promise<CheckResult[]> {
  const base = new URL(target.apiUrl.endsWith('/') ? target.apiUrl : `${target.apiUrl}/`);
  const at = (path: string) => new URL(path, base);
  const withKey = (key = target.apiKey, extra: Record<string, string> = {}) => ({ headers: { Authorization: `Bearer ${key}`, ...extra } });
  const results: CheckResult[] = [];
  let first: Listed | undefined;
  let labelled: Listed | undefined;
  let lastAuthenticated: Answer | undefined;

  const check = async (name: string, run: () => Promise<string>): Promise<void> => {
    try {
      results.push({ name, ok: true, detail: await run() });
    } catch (error) {
      results.push({ name, ok: false, detail: error instanceof Error ? error.message : String(error) });
    }
  };
  const needFirst = (): Listed => {
    expect(first !== undefined, 'no prompt to ask for: the list check found none');
    return first;
  };

  await check('list', async () => {
    const answer = await request(at('prompts'), withKey());
    lastAuthenticated = answer;
    expect(answer.status === 200, `GET /prompts answered ${describe(answer)}, expected 200`);
    const prompts = listedPrompts(answer.json);
    expect(prompts.length > 0, "GET /prompts answered 200 with no prompt: the key's account has nothing published");
    first = prompts[0];
    return `GET /prompts: 200, ${prompts.length} prompt(s)`;
  });

  await check('get latest', async () => {
    const { promptId, version } = needFirst();
    const answer = await request(at(`prompts/${encodeURIComponent(promptId)}`), withKey());
    expect(answer.status === 200, `GET /prompts/${promptId} answered ${describe(answer)}, expected 200`);
    expect(
      field(answer.json, 'version') === version,
      `GET /prompts/${promptId} answered version ${String(field(answer.json, 'version'))}, the list says ${version}`,
    );
    return `GET /prompts/${promptId}: 200, version ${version}`;
  });

  await check('get pinned version', async () => {
    const { promptId, version } = needFirst();
    const answer = await request(at(`prompts/${encodeURIComponent(promptId)}?version=${encodeURIComponent(version)}`), withKey());
    expect(answer.status === 200, `GET /prompts/${promptId}?version=${version} answered ${describe(answer)}, expected 200`);
    expect(field(answer.json, 'version') === version, `the pinned answer is version ${String(field(answer.json, 'version'))}`);
    const cacheControl = answer.headers.get('Cache-Control') ?? '';
    expect(cacheControl.includes('immutable'), `a pinned version is immutable, but Cache-Control is "${cacheControl}"`);
    return `GET /prompts/${promptId}?version=${version}: 200, immutable`;
  });

  await check(`list at label ${target.label}`, async () => {
    const answer = await request(at(`prompts?label=${encodeURIComponent(target.label)}`), withKey());
    expect(answer.status === 200, `GET /prompts?label=${target.label} answered ${describe(answer)}, expected 200`);
    const prompts = listedPrompts(answer.json);
    expect(prompts.length > 0, `no prompt carries the label ${target.label} (name one that some prompt carries with --label)`);
    labelled = prompts[0];
    return `GET /prompts?label=${target.label}: 200, ${prompts.length} prompt(s)`;
  });

  await check(`get at label ${target.label}`, async () => {
    expect(labelled !== undefined, `no prompt to ask for: the list at label ${target.label} found none`);
    const { promptId, version } = labelled;
    const answer = await request(at(`prompts/${encodeURIComponent(promptId)}?label=${encodeURIComponent(target.label)}`), withKey());
    expect(answer.status === 200, `GET /prompts/${promptId}?label=${target.label} answered ${describe(answer)}, expected 200`);
    expect(field(answer.json, 'version') === version, `the label answered version ${String(field(answer.json, 'version'))}, its list says ${version}`);
    return `GET /prompts/${promptId}?label=${target.label}: 200, version ${version}`;
  });

  await check('rate-limit headers', async () => {
    expect(lastAuthenticated !== undefined, 'no authenticated answer to read them from');
    const answer = lastAuthenticated;
    const missing = RATE_LIMIT_HEADERS.filter((name) => !/^\d+$/.test(answer.headers.get(name) ?? ''));
    expect(missing.length === 0, `GET /prompts answered without a whole number in ${missing.join(', ')}`);
    return RATE_LIMIT_HEADERS.map((name) => `${name}: ${answer.headers.get(name)}`).join(', ');
  });

  await check('MCP', async () => {
    const mcp = at('mcp');
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    const initialize = await request(mcp, {
      method: 'POST',
      ...withKey(target.apiKey, headers),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: MCP_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'prompts-smoke', version: '1.0.0' } },
      }),
    });
    const capabilities = field(field(initialize.json, 'result'), 'capabilities');
    expect(initialize.status === 200, `POST /mcp initialize answered ${describe(initialize)}, expected 200`);
    expect(field(capabilities, 'prompts') !== undefined, `initialize answered without the prompts capability: ${JSON.stringify(initialize.json)}`);
    const list = await request(mcp, {
      method: 'POST',
      ...withKey(target.apiKey, { ...headers, 'MCP-Protocol-Version': MCP_PROTOCOL_VERSION }),
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'prompts/list', params: {} }),
    });
    expect(list.status === 200, `POST /mcp prompts/list answered ${describe(list)}, expected 200`);
    const prompts = field(field(list.json, 'result'), 'prompts');
    expect(Array.isArray(prompts), `prompts/list answered no prompts: ${JSON.stringify(list.json)}`);
    return `POST /mcp: initialize, then prompts/list: ${prompts.length} prompt(s)`;
  });

  await check('CORS preflight', async () => {
    const answer = await request(at('prompts'), {
      method: 'OPTIONS',
      headers: { Origin: target.origin, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization' },
    });
    expect(answer.status >= 200 && answer.status < 300, `OPTIONS /prompts from ${target.origin} answered ${describe(answer)}, expected 204`);
    expectAllowed(answer, target.origin);
    const allowedHeaders = (answer.headers.get('Access-Control-Allow-Headers') ?? '').toLowerCase();
    expect(
      allowedHeaders.includes('authorization'),
      `the preflight does not allow the Authorization header (Access-Control-Allow-Headers: "${allowedHeaders}")`,
    );
    return `OPTIONS /prompts from ${target.origin}: ${answer.status}, Authorization allowed`;
  });

  await check('CORS answer', async () => {
    const answer = await request(at('prompts'), withKey(target.apiKey, { Origin: target.origin }));
    expect(answer.status === 200, `GET /prompts from ${target.origin} answered ${describe(answer)}, expected 200`);
    expectAllowed(answer, target.origin);
    const exposed = (answer.headers.get('Access-Control-Expose-Headers') ?? '').toLowerCase();
    expect(
      exposed.includes('x-ratelimit-remaining'),
      `the answer does not expose X-RateLimit-Remaining to a page (Access-Control-Expose-Headers: "${exposed}")`,
    );
    return `GET /prompts from ${target.origin}: allowed, rate-limit headers exposed`;
  });

  await check('401 for a bad key', async () => {
    const answer = await request(at('prompts'), withKey(BAD_KEY));
    expect(
      answer.status === 401 && field(answer.json, 'code') === 'UNAUTHORIZED',
      `GET /prompts with a key no account has answered ${describe(answer)}, expected 401 UNAUTHORIZED`,
    );
    return 'GET /prompts with a key no account has: 401 UNAUTHORIZED';
  });

  await check('404 for an unknown prompt', async () => {
    const answer = await request(at(`prompts/${UNKNOWN_PROMPT}`), withKey());
    expect(
      answer.status === 404 && field(answer.json, 'code') === 'NOT_FOUND',
      `GET /prompts/${UNKNOWN_PROMPT} answered ${describe(answer)}, expected 404 NOT_FOUND`,
    );
    return `GET /prompts/${UNKNOWN_PROMPT}: 404 NOT_FOUND`;
  });

  return results;
}

function expectAllowed(answer: Answer, origin: string): void {
  const allowed = answer.headers.get('Access-Control-Allow-Origin');
  expect(allowed === '*' || allowed === origin, `Access-Control-Allow-Origin is ${allowed === null ? 'missing' : `"${allowed}"`}, expected "*" or "${origin}"`);
}

/** The prompts of a list answer (a JSON array) that name an id and a version; anything else in it is ignored. */
function listedPrompts(body: unknown): Listed[] {
  if (!Array.isArray(body)) return [];
  return body.flatMap((entry: unknown) => {
    const promptId = field(entry, 'promptId');
    const version = field(entry, 'version');
    return typeof promptId === 'string' && typeof version === 'string' ? [{ promptId, version }] : [];
  });
}
