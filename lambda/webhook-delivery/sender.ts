import { type ClientRequest, type IncomingMessage, request as httpRequest, type RequestOptions } from 'node:http';
import { type RequestOptions as HttpsRequestOptions, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { EVENT_SOURCE } from '../domain/events';
import { ATTEMPT_TIMEOUT_MS, type AttemptOutcome } from './delivery-job';
import type { Destination } from './destination';

/**
 * One attempt, one POST (docs/events.md "Delivery"): to the address the destination was checked at and no other,
 * within ATTEMPT_TIMEOUT_MS from the first byte of the connection to the end of the answer, never following a
 * redirect. Only the status is kept of the answer; a few KB of its body are read, so the connection ends cleanly,
 * and dropped.
 */

export interface SignedPost {
  readonly destination: Destination;
  /** webhook-id, webhook-timestamp and webhook-signature. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** One attempt's POST: the real one below, or a test's stand-in that records where it would have gone. */
export type Send = (post: SignedPost) => Promise<AttemptOutcome>;

export const USER_AGENT = `${EVENT_SOURCE}-webhooks/1`;
/** Of an answer's body, no more is read than this: nobody reads it. */
const MAX_ANSWER_BYTES = 4 * 1024;

export interface SendOptions {
  /** ATTEMPT_TIMEOUT_MS unless a test needs it shorter. */
  readonly timeoutMs?: number;
  /** Certificate authorities to trust instead of the system's: a test's own, for a TLS receiver on loopback. */
  readonly ca?: string;
}

/** Any lookup the request makes answers the checked address: a second resolution could answer another. */
function pinnedLookup({ address, family }: Destination): LookupFunction {
  return (_host, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

/** Node's error codes in words for the delivery log; never the message, which may name more than it should. */
function inWords(error: unknown, timeoutMs: number): string {
  // Not `instanceof Error`: node's own errors come from another realm where a sandbox (jest's) runs this.
  const code = typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  switch (code) {
    case 'ATTEMPT_TIMEOUT':
      return `no answer within ${timeoutMs / 1000} s`;
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset by the receiver';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'the receiver is unreachable';
    case undefined:
      return 'the request failed';
    default:
      return code.startsWith('ERR_TLS') || code.includes('CERT') || code.startsWith('DEPTH_ZERO') ? `TLS failed (${code})` : `the request failed (${code})`;
  }
}

function failedStatus(status: number): string {
  if (status >= 300 && status < 400) return `the receiver answered ${status}: redirects are not followed`;
  return `the receiver answered ${status}`;
}

export function sendOnce(options: SendOptions = {}): Send {
  const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  return ({ destination, headers, body }) =>
    new Promise<AttemptOutcome>((resolve) => {
      const started = performance.now();
      const payload = Buffer.from(body, 'utf8');
      let status: number | null = null;
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (error?: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req.destroy();
        const durationMs = Math.round(performance.now() - started);
        // A status that came within the time is the answer, even when the rest of its body did not.
        if (status !== null) {
          const delivered = status >= 200 && status < 300;
          resolve({ delivered, status, durationMs, ...(delivered ? {} : { error: failedStatus(status) }) });
        } else {
          resolve({ delivered: false, status: null, durationMs, error: inWords(error, timeoutMs) });
        }
      };
      const https = destination.url.protocol === 'https:';
      const requestOptions: RequestOptions & Pick<HttpsRequestOptions, 'servername' | 'ca'> = {
        method: 'POST',
        host: destination.host,
        port: destination.port,
        path: `${destination.url.pathname}${destination.url.search}`,
        headers: {
          'content-type': 'application/json',
          'content-length': String(payload.length),
          'user-agent': USER_AGENT,
          ...headers,
        },
        lookup: pinnedLookup(destination),
        family: destination.family,
        // A fresh connection each attempt: a pooled one could have been made to an address checked earlier.
        agent: false,
        // SNI and the certificate check are for the name, while the connection goes to the pinned address.
        ...(https && isIP(destination.host) === 0 ? { servername: destination.host } : {}),
        ...(options.ca === undefined ? {} : { ca: options.ca }),
      };
      const req: ClientRequest = (https ? httpsRequest : httpRequest)(requestOptions, (res: IncomingMessage) => {
        status = res.statusCode ?? null;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read >= MAX_ANSWER_BYTES) finish();
        });
        res.on('end', () => finish());
        res.on('error', finish);
      });
      timer = setTimeout(() => finish(Object.assign(new Error('attempt timed out'), { code: 'ATTEMPT_TIMEOUT' })), timeoutMs);
      req.on('error', finish);
      req.end(payload);
    });
}
