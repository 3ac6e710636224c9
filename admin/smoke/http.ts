/** One answer as the checks need it: status, headers and the body parsed when it is JSON. */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly json: unknown;
}

const REQUEST_TIMEOUT_MS = 10_000;

/**
 * One request to the stack. A network failure or a timeout is thrown with the reason node gives
 * (ECONNREFUSED, ENOTFOUND, ...), which is what the operator needs to read in the report.
 */
export async function request(url: URL, init: RequestInit = {}): Promise<Answer> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch (error) {
    throw new Error(`no answer from ${url.origin}: ${networkReason(error)}`);
  }
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: parseJson(text) };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function networkReason(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`;
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof Error) return 'code' in cause && typeof cause.code === 'string' ? `${cause.code} (${cause.message})` : cause.message;
  return error instanceof Error ? error.message : String(error);
}

/** A field of a JSON object, or undefined: answers are data from the network, never trusted to have a shape. */
export function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.getOwnPropertyDescriptor(value, name)?.value : undefined;
}

/** What an answer was, in a few words for the report: status and the API's error code when there is one. */
export function describe(answer: Answer): string {
  const code = field(answer.json, 'code');
  return typeof code === 'string' ? `${answer.status} ${code}` : `${answer.status}`;
}
