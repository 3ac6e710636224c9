import { JwtVerifier } from 'aws-jwt-verify';
import { FetchError, JwtBaseError, NonRetryableFetchError } from 'aws-jwt-verify/error';
import type { Fetcher } from 'aws-jwt-verify/https';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';
import { ConfigError } from '../../lambda/config';

/**
 * What the local gateway does in place of the deployed REST API's Cognito authorizer: checks an ID token
 * the same way (signature against the pool's JWKS, issuer, audience = the app client, `token_use` = id,
 * expiry) and hands on its claims as that authorizer hands them to a function, every value a string.
 */
export type VerifyToken = (token: string) => Promise<Record<string, string> | undefined>;

export interface TokenVerifierOptions {
  /** The stand-in's issuer, `http://127.0.0.1:<port>/<userPoolId>`: loopback only. */
  readonly issuer: string;
  readonly clientId: string;
  /** `<issuer>/.well-known/jwks.json`, fetched over http, once, then cached. */
  readonly jwksUri: string;
}

/** The pool's keys could not be had (the stand-in is down): not the token's fault, so not a 401. */
export class IdentityUnavailableError extends Error {
  override readonly name = 'IdentityUnavailableError';
}

class TokenRefused extends Error {}

const JWKS_TIMEOUT_MS = 3_000;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export function createTokenVerifier(options: TokenVerifierOptions): VerifyToken {
  assertLocalIssuer(options);
  const verifier = JwtVerifier.create(
    {
      issuer: options.issuer,
      audience: options.clientId,
      jwksUri: options.jwksUri,
      customJwtCheck: ({ header, payload }) => {
        if (header.alg !== 'RS256') throw new TokenRefused('the pool signs with RS256');
        // An access token carries no aud either, but say why it is refused rather than rely on that.
        if (payload.token_use !== 'id') throw new TokenRefused('not an ID token');
        if (typeof payload.exp !== 'number') throw new TokenRefused('no expiry');
      },
    },
    { jwksCache: new SimpleJwksCache({ fetcher: jwksFetcher(options.jwksUri) }) },
  );
  return async (token) => {
    try {
      return authorizerClaims(await verifier.verify(token));
    } catch (error) {
      if (error instanceof FetchError) throw new IdentityUnavailableError(`cannot fetch the pool's keys: ${error.message}`, { cause: error });
      if (error instanceof JwtBaseError || error instanceof TokenRefused) return undefined;
      throw error;
    }
  };
}

/**
 * This verifier is for the stand-in only: an issuer anywhere but this machine is refused at start, so the
 * local gateway can never be pointed at keys that someone else serves over plain http.
 */
function assertLocalIssuer({ issuer, jwksUri }: TokenVerifierOptions): void {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new ConfigError(`the token issuer must be an absolute URL, got "${issuer}"`);
  }
  if (url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname) || url.search || url.hash) {
    throw new ConfigError(`the token issuer must be the local identity stand-in on this machine (http://127.0.0.1:<port>/<pool>), got "${issuer}"`);
  }
  if (jwksUri !== `${issuer}/.well-known/jwks.json`) {
    throw new ConfigError(`the JWKS must be the issuer's own (${issuer}/.well-known/jwks.json), got "${jwksUri}"`);
  }
}

/** aws-jwt-verify's own fetcher speaks https only; this one speaks http, to the one URI it was given. */
function jwksFetcher(jwksUri: string): Fetcher {
  return {
    async fetch(uri) {
      if (uri !== jwksUri) throw new NonRetryableFetchError(uri, `only ${jwksUri} is fetched`);
      let response: Response;
      try {
        response = await fetch(uri, { signal: AbortSignal.timeout(JWKS_TIMEOUT_MS), redirect: 'error' });
      } catch (error) {
        throw new FetchError(uri, (error as Error).message);
      }
      if (response.status !== 200) throw new FetchError(uri, `status ${response.status}`);
      return response.arrayBuffer();
    },
  };
}

/**
 * Claims as a REST API's Cognito user-pool authorizer gives them in `requestContext.authorizer.claims`:
 * strings only; `exp` and `iat` as dates in Java's form (`Thu Dec 06 17:08:23 UTC 2018`), other numbers
 * and booleans as their text, lists joined with commas.
 */
export function authorizerClaims(payload: JwtPayload): Record<string, string> {
  const claims: Record<string, string> = {};
  for (const [name, value] of Object.entries(payload)) {
    if (value === undefined || value === null) continue;
    if ((name === 'exp' || name === 'iat') && typeof value === 'number') claims[name] = javaDate(value);
    else if (Array.isArray(value)) claims[name] = value.join(',');
    else if (typeof value === 'object') claims[name] = JSON.stringify(value);
    else claims[name] = String(value);
  }
  return claims;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function javaDate(epochSeconds: number): string {
  const date = new Date(epochSeconds * 1000);
  const two = (n: number) => String(n).padStart(2, '0');
  const time = `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}`;
  return `${DAYS[date.getUTCDay()]} ${MONTHS[date.getUTCMonth()]} ${two(date.getUTCDate())} ${time} UTC ${date.getUTCFullYear()}`;
}
