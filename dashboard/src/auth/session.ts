import { claimsOf, type IdTokenClaims, isExpired } from './id-token';
import {
  authorizeUrl,
  challengeFor,
  createVerifier,
  logoutUrl,
  type PendingSignIn,
  randomText,
  readCallback,
  revokeRequestBody,
  type SignInConfig,
  tokenRequestBody,
} from './pkce';

/**
 * Sign-in state of this tab. The ID token, the refresh token (kept only to be revoked at sign-out) and the
 * PKCE verifier live in sessionStorage: this tab only, gone when it closes, never in localStorage where every
 * tab and every later visit would find them.
 */
const SESSION = 'dashboard.session';
const REFRESH = 'dashboard.refresh';
const PENDING = 'dashboard.pkce';

export interface Session {
  readonly idToken: string;
  readonly claims: IdTokenClaims;
}

/** The callback URL registered with the app client: the dashboard's root. */
export const redirectUri = (): string => `${location.origin}/`;

export async function loadConfig(): Promise<SignInConfig> {
  const response = await fetch('/config.json', { cache: 'no-store' });
  if (!response.ok) throw new Error('The dashboard could not read its sign-in settings (/config.json). Reload the page.');
  return (await response.json()) as SignInConfig;
}

export function currentSession(now = Date.now()): Session | undefined {
  const idToken = sessionStorage.getItem(SESSION);
  if (!idToken) return undefined;
  const claims = claimsOf(idToken);
  if (!claims || isExpired(claims, now)) {
    sessionStorage.removeItem(SESSION);
    return undefined;
  }
  return { idToken, claims };
}

/** Leaves for the user pool's sign-in page; comes back to `returnTo` once signed in. */
export async function startSignIn(config: SignInConfig, returnTo: string): Promise<void> {
  const verifier = createVerifier();
  const state = randomText(16);
  const pending: PendingSignIn = { verifier, state, returnTo };
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  location.assign(authorizeUrl(config, { redirectUri: redirectUri(), state, challenge: await challengeFor(verifier) }));
}

function takePending(): PendingSignIn | undefined {
  const text = sessionStorage.getItem(PENDING);
  sessionStorage.removeItem(PENDING);
  try {
    return text ? (JSON.parse(text) as PendingSignIn) : undefined;
  } catch {
    return undefined;
  }
}

export type SignInOutcome =
  | { readonly kind: 'none' }
  | { readonly kind: 'signed-in'; readonly returnTo: string }
  | { readonly kind: 'error'; readonly message: string };

/**
 * Finishes a sign-in when the page was opened by the redirect back (`?code=&state=`): the code is
 * taken out of the address bar at once, checked against this tab's state, and exchanged with the verifier.
 */
export async function finishSignIn(config: SignInConfig): Promise<SignInOutcome> {
  const callback = readCallback(location.search, undefined);
  if (callback.kind === 'none') return { kind: 'none' };
  const pending = takePending();
  const checked = readCallback(location.search, pending);
  history.replaceState(null, '', `/${pending?.returnTo ?? ''}`);
  if (checked.kind === 'error') return checked;
  if (checked.kind !== 'code' || !pending) return { kind: 'error', message: 'Sign-in failed. Sign in again.' };
  let response: Response;
  try {
    response = await fetch(config.tokenUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: tokenRequestBody(config, checked.code, redirectUri(), pending.verifier),
    });
  } catch {
    return { kind: 'error', message: 'The sign-in service could not be reached. Check your connection and sign in again.' };
  }
  const tokens = (await response.json().catch(() => ({}))) as { id_token?: unknown; refresh_token?: unknown };
  if (!response.ok || typeof tokens.id_token !== 'string' || !claimsOf(tokens.id_token)) {
    return { kind: 'error', message: 'Sign-in did not complete (the sign-in code was refused or had expired). Sign in again.' };
  }
  sessionStorage.setItem(SESSION, tokens.id_token);
  if (typeof tokens.refresh_token === 'string') sessionStorage.setItem(REFRESH, tokens.refresh_token);
  return { kind: 'signed-in', returnTo: pending.returnTo };
}

/**
 * Signs out everywhere: the tab forgets its tokens, the refresh token is revoked, and the browser goes through
 * the pool's sign-out endpoint, which ends the pool's own session (else the next sign-in would need no password)
 * and comes back to the dashboard's root.
 */
export async function signOut(config: SignInConfig): Promise<void> {
  const refreshToken = sessionStorage.getItem(REFRESH);
  for (const item of [SESSION, REFRESH, PENDING]) sessionStorage.removeItem(item);
  if (refreshToken) {
    // Best effort: a revocation that fails still leaves a token that expires within a day, and never stops the sign-out.
    await fetch(config.revokeUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: revokeRequestBody(config, refreshToken),
    }).catch(() => undefined);
  }
  location.assign(logoutUrl(config, redirectUri()));
}
