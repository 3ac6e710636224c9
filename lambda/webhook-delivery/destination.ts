import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/**
 * Where a webhook may send (docs/events.md "Where to"): deployed, `https` to a host every address of which is
 * public, so a webhook cannot be used to reach the stack's own network, the metadata service or anything behind
 * it. Checked when a webhook is created or changed, and again before every attempt (a name may resolve elsewhere
 * by then); the attempt then connects to the very address checked (sender.ts), so a name that answers
 * differently a moment later (DNS rebinding) does not get through. Locally (npm start and the tests), plain
 * `http` to this machine's loopback is allowed too.
 */

/** `local` only for npm start and the tests: it lets a webhook reach this machine. */
export type DestinationMode = 'deployed' | 'local';

export interface ResolvedAddress {
  readonly address: string;
  readonly family: number;
}

/** Every address a host name resolves to. */
export type Resolve = (host: string) => Promise<readonly ResolvedAddress[]>;

/** How long a lookup may take: the system resolver has no limit of its own, and a request must not hang on it. */
export const LOOKUP_TIMEOUT_MS = 5_000;

/** A lookup that passed its time limit: DNS may answer next time (the management API answers 503). */
export class LookupTimeoutError extends Error {
  override readonly name = 'LookupTimeoutError';
  constructor(
    readonly host: string,
    limitMs: number,
  ) {
    super(`${host} could not be resolved within ${limitMs} ms`);
  }
}

/** The resolver, rejecting with a LookupTimeoutError once `limitMs` passes; the timer does not keep the process alive. */
export function boundedResolve(resolve: Resolve, limitMs: number = LOOKUP_TIMEOUT_MS): Resolve {
  return (host) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new LookupTimeoutError(host, limitMs)), limitMs);
      timer.unref();
    });
    return Promise.race([resolve(host), timeout]).finally(() => clearTimeout(timer));
  };
}

export const resolveWithDns: Resolve = boundedResolve((host) => lookup(host, { all: true, verbatim: true }));

/** Where one attempt connects: the URL's host (for the Host header and TLS), and the address it was checked at. */
export interface Destination {
  readonly url: URL;
  /** The host name as the URL gives it (without an IPv6 literal's brackets): Host header, SNI, certificate. */
  readonly host: string;
  readonly port: number;
  readonly address: string;
  readonly family: 4 | 6;
}

export type DestinationCheck =
  | { readonly ok: true; readonly destination: Destination }
  /**
   * `refused`: the policy refuses it (retrying cannot help); otherwise the host could not be resolved now, which
   * may pass.
   */
  | { readonly ok: false; readonly reason: string; readonly refused: boolean; readonly timedOut?: LookupTimeoutError };

/** Longer URLs are refused: a webhook's URL is shown in lists and logs. */
export const MAX_URL_LENGTH = 2048;

const LOCAL_HOSTS: ReadonlyMap<string, ResolvedAddress> = new Map([
  ['127.0.0.1', { address: '127.0.0.1', family: 4 }],
  // Pinned to IPv4 loopback rather than whatever this machine maps `localhost` to: the receiver is asked to listen there.
  ['localhost', { address: '127.0.0.1', family: 4 }],
]);

/** IPv4 ranges no webhook may reach: not the public internet, or not a receiver on it. */
const REFUSED_V4: readonly (readonly [string, number, string])[] = [
  ['0.0.0.0', 8, 'an unspecified ("this network") address'],
  ['10.0.0.0', 8, 'a private address'],
  ['100.64.0.0', 10, 'a shared (carrier-grade NAT) address'],
  ['127.0.0.0', 8, 'a loopback address'],
  ['169.254.169.254', 32, 'the cloud metadata address'],
  ['169.254.0.0', 16, 'a link-local address'],
  ['172.16.0.0', 12, 'a private address'],
  ['192.0.0.0', 24, 'a reserved (IETF protocol) address'],
  ['192.0.2.0', 24, 'a documentation address'],
  ['192.88.99.0', 24, 'a 6to4 relay address'],
  ['192.168.0.0', 16, 'a private address'],
  ['198.18.0.0', 15, 'a benchmarking address'],
  ['198.51.100.0', 24, 'a documentation address'],
  ['203.0.113.0', 24, 'a documentation address'],
  ['224.0.0.0', 4, 'a multicast address'],
  ['240.0.0.0', 4, 'a reserved address'],
];

/** IPv6 ranges refused outright; everything outside 2000::/3 (global unicast) is refused as well. */
const REFUSED_V6: readonly (readonly [string, number, string])[] = [
  ['::1', 128, 'a loopback address'],
  ['::', 128, 'an unspecified address'],
  ['fd00:ec2::254', 128, 'the cloud metadata address'],
  ['fc00::', 7, 'a private (unique local) address'],
  ['fe80::', 10, 'a link-local address'],
  ['ff00::', 8, 'a multicast address'],
  ['64:ff9b:1::', 48, 'a local-use NAT64 address'],
  // Teredo and 6to4 tunnel to an IPv4 address the tunnel's relay picks: no receiver needs them, and they can hide a refused one.
  ['2001::', 32, 'a Teredo tunnel address'],
  ['2002::', 16, 'a 6to4 tunnel address'],
  ['2001::', 23, 'a reserved (IETF protocol) address'],
  ['2001:db8::', 32, 'a documentation address'],
  ['3fff::', 20, 'a documentation address'],
];

function v4Bytes(address: string): Uint8Array {
  return Uint8Array.from(address.split('.').map(Number));
}

/** The 16 bytes of an IPv6 address as isIP accepts it (`::` shorthand, a dotted IPv4 tail). */
function v6Bytes(address: string): Uint8Array {
  let text = address;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  const last = text.slice(lastColon + 1);
  if (last.includes('.')) {
    const [a = 0, b = 0, c = 0, d = 0] = v4Bytes(last);
    tail.push((a << 8) | b, (c << 8) | d);
    text = text.slice(0, lastColon + 1);
    if (!text.endsWith('::')) text = text.slice(0, -1);
  }
  const [head = '', rest] = text.split('::');
  const groups = (part: string): number[] => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)));
  const front = groups(head);
  const back = [...(rest === undefined ? [] : groups(rest)), ...tail];
  const words = rest === undefined ? [...front, ...tail] : [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  const bytes = new Uint8Array(16);
  words.forEach((word, index) => {
    bytes[index * 2] = word >> 8;
    bytes[index * 2 + 1] = word & 0xff;
  });
  return bytes;
}

function inRange(bytes: Uint8Array, base: Uint8Array, prefix: number): boolean {
  for (let bit = 0; bit < prefix; bit++) {
    const mask = 0x80 >> (bit % 8);
    if (((bytes[bit >> 3] ?? 0) & mask) !== ((base[bit >> 3] ?? 0) & mask)) return false;
  }
  return true;
}

const RANGES_V4 = REFUSED_V4.map(([base, prefix, why]) => ({ base: v4Bytes(base), prefix, why }));
const RANGES_V6 = REFUSED_V6.map(([base, prefix, why]) => ({ base: v6Bytes(base), prefix, why }));
const MAPPED = v6Bytes('::ffff:0:0');
const NAT64 = v6Bytes('64:ff9b::');
const COMPATIBLE = v6Bytes('::');

function refusedV4(bytes: Uint8Array): string | undefined {
  return RANGES_V4.find((range) => inRange(bytes, range.base, range.prefix))?.why;
}

/** Why this address may not be reached, or undefined when it is public. Anything not an IP address is refused. */
export function whyRefused(address: string): string | undefined {
  const family = isIP(address);
  if (family === 4) return refusedV4(v4Bytes(address));
  if (family !== 6) return 'not an IP address';
  const bytes = v6Bytes(address);
  // Forms that carry an IPv4 address reach that address: it is judged as itself.
  if (inRange(bytes, MAPPED, 96) || inRange(bytes, NAT64, 96)) return refusedV4(bytes.subarray(12));
  const refused = RANGES_V6.find((range) => inRange(bytes, range.base, range.prefix))?.why;
  if (refused) return refused;
  if (inRange(bytes, COMPATIBLE, 96)) return 'an IPv4-compatible IPv6 address (deprecated)';
  if ((bytes[0] ?? 0) >> 5 !== 0b001) return 'not a global unicast address';
  return undefined;
}

type Parsed = { ok: true; url: URL; host: string; port: number; local?: ResolvedAddress } | { ok: false; reason: string };

/** What can be told from the URL alone: its scheme, its credentials, whether it names this machine. */
function parse(text: string, mode: DestinationMode): Parsed {
  if (text.length > MAX_URL_LENGTH) return { ok: false, reason: `the URL is longer than ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'not an absolute URL' };
  }
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'the URL may not hold a user name or password' };
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  const local = mode === 'local' && url.protocol === 'http:' ? LOCAL_HOSTS.get(host) : undefined;
  if (local) return { ok: true, url, host, port, local };
  if (url.protocol !== 'https:') {
    return { ok: false, reason: mode === 'local' ? 'the URL must be https (or http to 127.0.0.1 or localhost)' : 'the URL must be https' };
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return { ok: false, reason: `${host} is this machine (loopback)` };
  return { ok: true, url, host, port };
}

/**
 * Checks the URL and resolves its host, now: ok with the address to connect to, or why not. An IP address
 * in the URL (in any form the URL standard reads, `2130706433` and `0x7f.1` are 127.0.0.1) is judged without DNS;
 * a name is resolved and every address it has must be public (the first one is then used).
 */
export async function resolveDestination(text: string, mode: DestinationMode, resolve: Resolve = resolveWithDns): Promise<DestinationCheck> {
  const parsed = parse(text, mode);
  if (!parsed.ok) return { ok: false, reason: parsed.reason, refused: true };
  const { url, host, port, local } = parsed;
  const pinned = (found: ResolvedAddress): DestinationCheck => ({
    ok: true,
    destination: { url, host, port, address: found.address, family: found.family === 6 ? 6 : 4 },
  });
  if (local) return pinned(local);
  const literal = isIP(host);
  if (literal !== 0) {
    const why = whyRefused(host);
    return why ? { ok: false, reason: `${host} is ${why}`, refused: true } : pinned({ address: host, family: literal });
  }
  let addresses: readonly ResolvedAddress[];
  try {
    addresses = await resolve(host);
  } catch (error) {
    if (error instanceof LookupTimeoutError) return { ok: false, reason: error.message, refused: false, timedOut: error };
    const code = typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? ` (${error.code})` : '';
    return { ok: false, reason: `${host} could not be resolved${code}`, refused: false };
  }
  const first = addresses[0];
  if (!first) return { ok: false, reason: `${host} resolves to no address`, refused: false };
  for (const { address } of addresses) {
    const why = whyRefused(address);
    if (why) return { ok: false, reason: `${host} resolves to ${address}, ${why}`, refused: true };
  }
  return pinned(first);
}

/**
 * The check made when a webhook's URL is set: ok, or the reason to give the admin (a 400). A lookup that timed out
 * is thrown instead: it says nothing of the URL, and the admin should retry (503).
 */
export async function checkUrl(
  text: string,
  mode: DestinationMode,
  resolve: Resolve = resolveWithDns,
): Promise<{ readonly ok: true } | { readonly ok: false; readonly reason: string }> {
  const check = await resolveDestination(text, mode, resolve);
  if (!check.ok && check.timedOut) throw check.timedOut;
  return check.ok ? { ok: true } : { ok: false, reason: check.reason };
}
