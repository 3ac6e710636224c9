import fc from 'fast-check';
import { loadOpenApiDocument, openApiMismatches, schemaProblems } from './openapi';

/**
 * Property-based fuzzing of the API with fast-check: requests generated from what an attacker or a
 * careless client sends (every name on Object.prototype, `__proto__`, repeated and case-varied
 * headers, several Authorization headers, non-ASCII and empty values, repeated, encoded and huge
 * query strings, bodies on any method), and the properties every answer must have.
 *
 * Runs are bounded and seeded. A failure names its seed; `FUZZ_SEED=<seed>` replays exactly that run
 * (and `FUZZ_RUNS=<n>` runs more or fewer requests), docs/testing.md says how.
 */

/** Every name an object inherits, and the one that sets what it inherits from. */
export const PROTOTYPE_NAMES: readonly string[] = [...new Set(['__proto__', ...Object.getOwnPropertyNames(Object.prototype)])];

/** The keys a fuzzed request may present, by role; requests name them as `<role>`, never the key itself. */
export const KEY_ROLES = ['valid', 'limited', 'revoked'] as const;
export type KeyRole = (typeof KEY_ROLES)[number];
export type FuzzKeys = Readonly<Record<KeyRole, string>>;
/** Well formed, never issued. */
export const UNKNOWN_KEY = 'prs_fuzzUnknownFuzzUnknownFuzzUnknown000000';

export interface FuzzRequest {
  readonly method: string;
  /** Starts with `/`, percent-encoded as sent. */
  readonly path: string;
  /** As sent after `?`; empty for none. */
  readonly query: string;
  /** Name, value pairs in the order sent; values may name keys as `<role>`. */
  readonly headers: readonly (readonly [string, string])[];
  readonly body: Uint8Array;
}

// ---- seeds and bounds

function integerFromEnv(name: string): number | undefined {
  const text = process.env[name]?.trim();
  if (!text) return undefined;
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new Error(`${name} must be an integer, got ${JSON.stringify(text)}`);
  return value;
}

/** The run's seed: FUZZ_SEED to replay one, else a new one each run (printed on failure). */
export const FUZZ_SEED: number = integerFromEnv('FUZZ_SEED') ?? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0;

export function fuzzRuns(defaultRuns: number): number {
  return integerFromEnv('FUZZ_RUNS') ?? defaultRuns;
}

/**
 * fc.assert with the run's seed and bounds. A failure rethrows fast-check's report (the smallest
 * failing request it found) with the line that replays it.
 */
export async function assertFuzz<T>(testFile: string, arbitrary: fc.Arbitrary<T>, check: (value: T) => Promise<void>, runs: number): Promise<void> {
  try {
    await fc.assert(fc.asyncProperty(arbitrary, check), {
      seed: FUZZ_SEED,
      numRuns: runs,
      // Shrinking replays requests against the service: bounded too, so a failure reports in time.
      interruptAfterTimeLimit: 40_000,
      markInterruptAsFailure: false,
    });
  } catch (error) {
    const replay = `replay: FUZZ_SEED=${FUZZ_SEED} FUZZ_RUNS=${runs} npx jest ${testFile}`;
    throw new Error(`fuzzing failed with seed ${FUZZ_SEED} (${replay})\n${(error as Error).message}`, { cause: error });
  }
}

// ---- what is generated

/** Headers the HTTP layer consumes to frame the message: generated names never take them. */
const FRAMING_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'upgrade', 'expect', 'te', 'trailer']);

const prototypeName = fc.constantFrom(...PROTOTYPE_NAMES);
const tokenName = fc.stringMatching(/^[-!#$%&'*+.^_`|~0-9A-Za-z]{1,24}$/);

/** Names a client may put on a header: a proper HTTP token, often one that objects inherit. */
const headerName = fc
  .oneof(
    { weight: 4, arbitrary: fc.mixedCase(prototypeName) },
    {
      weight: 3,
      arbitrary: fc.mixedCase(fc.constantFrom('if-none-match', 'accept-encoding', 'origin', 'content-type', 'x-forwarded-for', 'user-agent', 'x-api-key')),
    },
    { weight: 3, arbitrary: tokenName },
  )
  .filter((name) => !FRAMING_HEADERS.has(name.toLowerCase()));

/** Names node:http refuses (not a token): only over HTTP, where the gateway must answer them too. */
export const invalidHeaderName = fc.constantFrom('', 'with space', 'naïve', 'ключ', '"quoted"', 'a\tb');

/** No CR or LF, which would end the header line. */
const lineSafe = (text: string) => !/[\r\n]/.test(text);

const headerValue = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom('Bearer <valid>', 'Bearer <limited>', 'Bearer <revoked>', `Bearer ${UNKNOWN_KEY}`, 'bearer <valid>', 'Bearer \t<valid>  '),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '',
      '*',
      '"x"',
      'W/"x"',
      'gzip',
      'gzip;q=0, *;q=0',
      'https://example.test',
      'Basic dXNlcjpwYXNz',
      'Bearer',
      '__proto__',
      'constructor',
    ),
  },
  { weight: 2, arbitrary: fc.stringMatching(/^[\x20-\x7e]{0,40}$/) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 16 }).filter(lineSafe) },
);

const authorizationValue = fc.oneof(
  { weight: 6, arbitrary: fc.constant('Bearer <valid>') },
  { weight: 3, arbitrary: fc.constantFrom('Bearer <limited>', 'Bearer <revoked>', `Bearer ${UNKNOWN_KEY}`) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'bearer <valid>',
      'BEARER   <valid>',
      'Bearer <valid> extra',
      'Bearer <valid>,Bearer <limited>',
      'Token <valid>',
      '',
      ' ',
      'Bearer',
    ),
  },
  { weight: 1, arbitrary: headerValue },
);

/** One Authorization header most often; none, or several (names in any case), now and then. */
const authorizationHeaders = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.mixedCase(fc.constant('authorization')), authorizationValue).map((header) => [header]) },
  { weight: 1, arbitrary: fc.constant([]) },
  { weight: 2, arbitrary: fc.array(fc.tuple(fc.mixedCase(fc.constant('authorization')), authorizationValue), { minLength: 2, maxLength: 3 }) },
);

const promptId = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('welcome', 'welcome', 'other', 'draft-only', 'retired', 'elsewhere', 'Welcome', 'welcome.') },
  { weight: 3, arbitrary: prototypeName },
  { weight: 2, arbitrary: fc.stringMatching(/^[-A-Za-z0-9_.]{1,140}$/) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }).map(encodeURIComponent) },
  { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%E0%A4%A', '..', '.', '%2F', 'a%00b', '%C3%A9', 'é') },
);

const segment = fc.oneof(prototypeName, tokenName, fc.constantFrom('', '.', '..', '%', '%2e%2e', 'prompts'));

const path = fc.oneof(
  { weight: 3, arbitrary: fc.constant('/prompts') },
  { weight: 3, arbitrary: fc.constant('/prompts/welcome') },
  { weight: 5, arbitrary: promptId.map((id) => `/prompts/${id}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('/', '/prompts/', '//prompts', '/prompts//welcome', '/prompts/welcome/', '/prompts/a/b', '/PROMPTS', '/prompts/../prompts'),
  },
  { weight: 1, arbitrary: fc.array(segment, { maxLength: 4 }).map((segments) => `/${segments.join('/')}`) },
);

const queryName = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('version', 'include_versions', 'label') },
  { weight: 3, arbitrary: prototypeName },
  { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
);

const queryValue = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.constantFrom(
      '1.0.0',
      '1.1.0',
      '2.0.0',
      '01.0.0',
      '1.0',
      '1.0.0.0',
      '1000000000.0.0',
      'true',
      'false',
      'TRUE',
      '',
      'production',
      '__proto__',
      'constructor',
    ),
  },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 24 }) },
  // Past what node:http reads of a request head (16 KB) sometimes: the gateway answers that too.
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 20_000 }).map((length) => 'v'.repeat(length)) },
);

/** Pairs encoded as browsers do, sometimes twice over, with something malformed after them now and then. */
const query = fc
  .tuple(
    fc.array(fc.tuple(queryName, queryValue), { maxLength: 5 }),
    fc.boolean(),
    fc.constantFrom('', '', '', '&', '&&', '=', '%', '%zz', 'a=%E0%A4%A', '+', 'version', 'version=1.0.0&version=2.0.0', '__proto__[x]=1'),
  )
  .map(([pairs, repeated, tail]) => {
    const all = repeated ? [...pairs, ...pairs] : pairs;
    const encoded = all.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
    return [...encoded, ...(tail ? [tail] : [])].join('&');
  });

const method = fc.oneof(
  { weight: 8, arbitrary: fc.constant('GET') },
  { weight: 3, arbitrary: fc.constantFrom('OPTIONS', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH') },
);

const body = fc.oneof(
  { weight: 4, arbitrary: fc.constant(new Uint8Array(0)) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 2_048 }) },
  { weight: 1, arbitrary: fc.jsonValue().map((value) => new TextEncoder().encode(JSON.stringify(value) ?? 'null')) },
);

/** Requests as a client sends them: every header a proper token, of any case, in any order. */
export function fuzzRequests(options: { extraHeaderNames?: fc.Arbitrary<string>; methods?: fc.Arbitrary<string> } = {}): fc.Arbitrary<FuzzRequest> {
  const name = options.extraHeaderNames ? fc.oneof({ weight: 29, arbitrary: headerName }, { weight: 1, arbitrary: options.extraHeaderNames }) : headerName;
  const others = fc.array(fc.tuple(name, headerValue), { maxLength: 6 });
  return fc
    .record({
      method: options.methods ? fc.oneof({ weight: 9, arbitrary: method }, { weight: 1, arbitrary: options.methods }) : method,
      path,
      query: fc.oneof({ weight: 1, arbitrary: fc.constant('') }, { weight: 2, arbitrary: query }),
      authorization: authorizationHeaders,
      others,
      at: fc.nat(),
      body,
    })
    .map(({ authorization, others, at, ...request }) => {
      const split = others.length === 0 ? 0 : at % (others.length + 1);
      return { ...request, headers: [...others.slice(0, split), ...authorization, ...others.slice(split)] };
    });
}

/** The header values with each `<role>` replaced by that key. */
export function withKeys(request: FuzzRequest, keys: FuzzKeys): [string, string][] {
  return request.headers.map(([name, value]) => [name, value.replace(/<(valid|limited|revoked)>/g, (_, role: KeyRole) => keys[role])]);
}

export function targetOf(request: FuzzRequest): string {
  return request.query === '' ? request.path : `${request.path}?${request.query}`;
}

// ---- the properties of every answer

export interface FuzzAnswer {
  readonly status: number;
  /** Names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | undefined;
}

const ERROR_SCHEMA = () => loadOpenApiDocument().components.schemas.Error ?? false;

/** Statuses a healthy store never causes: the fuzz runs against one. */
const isServerError = (status: number) => status >= 500;

/**
 * What is wrong with an answer: it must be the API's JSON error format, or a prompt body (or list)
 * that matches openapi.yaml. `documented` is false for what the gateway answers before any function
 * (a request node:http cannot parse), which openapi.yaml cannot describe by method and path.
 */
export function answerProblems(request: FuzzRequest, answer: FuzzAnswer, keys: FuzzKeys, documented: boolean): string[] {
  const problems: string[] = [];
  if (isServerError(answer.status)) problems.push(`status ${answer.status}: a healthy store never causes a 5xx`);
  const text = answer.body ?? '';
  for (const key of Object.values(keys)) if (text.includes(key)) problems.push('the body echoes an API key');
  if (request.method === 'HEAD' && !answer.body) {
    // An answer to HEAD has the headers of a body and never the body: the 405 every method but GET gets,
    // or a 4xx of the gateway's own for a request it could not parse.
    const expected = documented ? answer.status === 405 && answer.headers.allow === 'GET, OPTIONS' : answer.status >= 400 && answer.status < 500;
    if (!expected || answer.headers['content-type'] !== 'application/json') problems.push(`HEAD answered ${answer.status}`);
    return problems;
  }
  if (documented) {
    problems.push(...openApiMismatches({ method: request.method, path: request.path, status: answer.status, headers: answer.headers, body: answer.body }));
    return problems;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [...problems, `status ${answer.status} with a body that is not JSON: ${JSON.stringify(text.slice(0, 120))}`];
  }
  if (answer.headers['content-type'] !== 'application/json') problems.push(`Content-Type ${answer.headers['content-type']}`);
  problems.push(...schemaProblems(ERROR_SCHEMA(), parsed, 'body'));
  return problems;
}

/** The statuses a key's request is counted for, when the key was admitted (docs/behaviour-rules.md). */
const COUNTED_STATUSES = new Set([200, 304, 400, 404]);

/**
 * The count of each key may move by at most one per request, only the presented key's, only for a
 * counted status, and a counted answer (one with rate-limit headers) must have moved it.
 */
export function countProblems(
  request: FuzzRequest,
  answer: FuzzAnswer,
  before: Readonly<Record<KeyRole, number>>,
  after: Readonly<Record<KeyRole, number>>,
): string[] {
  const problems: string[] = [];
  const moved = KEY_ROLES.filter((role) => after[role] !== before[role]);
  for (const role of moved) {
    const delta = after[role] - before[role];
    if (delta !== 1) problems.push(`key ${role} moved by ${delta}`);
  }
  if (moved.length > 1) problems.push(`more than one key was counted: ${moved.join(', ')}`);
  const authorizations = request.headers.filter(([name]) => name.toLowerCase() === 'authorization');
  const counted = COUNTED_STATUSES.has(answer.status) && answer.headers['x-ratelimit-limit'] !== undefined;
  if (moved.length > 0) {
    const [role] = moved;
    if (!counted) problems.push(`key ${role} was counted for a ${answer.status} without rate-limit headers`);
    if (request.method.toUpperCase() !== 'GET') problems.push(`key ${role} was counted for ${request.method}`);
    if (authorizations.length !== 1) problems.push(`key ${role} was counted with ${authorizations.length} Authorization headers`);
    else if (!authorizations[0]?.[1].includes(`<${role}>`)) problems.push(`key ${role} was counted, but another was presented`);
  } else if (counted) {
    problems.push(`a counted answer (${answer.status} with rate-limit headers) moved no key`);
  }
  if (counted && moved.length === 1) {
    const role = moved[0] as KeyRole;
    const remaining = Number(answer.headers['x-ratelimit-remaining']);
    const limit = Number(answer.headers['x-ratelimit-limit']);
    if (remaining !== limit - after[role]) problems.push(`X-RateLimit-Remaining ${remaining}, but ${after[role]} of ${limit} are used`);
  }
  return problems;
}
