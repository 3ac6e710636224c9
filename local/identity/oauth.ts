import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { passwordPolicyViolation } from '../../lib/password-policy';
import type { SigningKey } from './signing-key';
import { SignInThrottle } from './sign-in-throttle';
import { issueTokens } from './tokens';
import type { StoredUser, UserStore } from './user-store';

/**
 * The managed-login part of the pool: `GET /oauth2/authorize` shows a sign-in form, `POST /login` checks
 * the password and sends the browser back to a registered callback URL with a one-time code, and
 * `POST /oauth2/token` exchanges the code, with its PKCE verifier, for ID, access and refresh tokens. A person
 * invited with a temporary password chooses a new one first, as Cognito's managed login asks.
 *
 * As Cognito's managed login, a sign-in leaves a session (a cookie on the stand-in's origin, an hour long):
 * while it lasts, authorize sends the browser straight back with a code. `GET /logout` ends it, and
 * `POST /oauth2/revoke` revokes a refresh token, so signing out of the dashboard ends both.
 */

export interface OAuthSettings {
  readonly issuer: string;
  readonly clientId: string;
  /** Exact redirect URIs the app client accepts; the set may grow once the dashboard's origin is known. */
  readonly callbackUrls: ReadonlySet<string>;
  /** The stand-in's own origin: a sign-in form is only accepted from a page it served. */
  readonly origin: string;
  /** Exact sign-out URLs (`logout_uri`) the app client accepts, as the deployed client's LogoutURLs. */
  readonly logoutUrls: ReadonlySet<string>;
}

/** Who is asking, as the stand-in sees the request: the session cookie, and the client's address for the burst limit. */
export interface Requester {
  readonly cookie?: string | undefined;
  readonly client: string;
  /** The page's origin (browsers send it with every POST), for the check against login CSRF. */
  readonly origin?: string | undefined;
}

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

interface AuthorizeRequest {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly state: string;
  readonly scope: string;
  readonly codeChallenge: string;
}

interface IssuedCode extends AuthorizeRequest {
  readonly userId: string;
  readonly authTime: number;
  readonly expiresAt: number;
}

interface PendingPasswordChange {
  readonly request: AuthorizeRequest;
  readonly userId: string;
  readonly expiresAt: number;
}

interface SignInSession {
  readonly userId: string;
  readonly authTime: number;
  readonly expiresAt: number;
}

interface RefreshGrant {
  readonly userId: string;
  readonly clientId: string;
  readonly scope: string;
  readonly authTime: number;
  readonly expiresAt: number;
}

/** Cognito's codes last 5 minutes; so does the wait for a new password. */
const CODE_TTL_MS = 5 * 60 * 1000;
/** Cognito's managed login remembers a sign-in for an hour. */
const SESSION_TTL_MS = 60 * 60 * 1000;
/** As the deployed app client's refresh tokens (lib/user-pool.ts). */
const REFRESH_TTL_MS = 24 * 60 * 60 * 1000;
export const SESSION_COOKIE = 'prompts-local-sign-in';
const SCOPES = new Set(['openid', 'email', 'profile']);
const DEFAULT_SCOPE = 'openid email profile';
const PKCE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function createOAuth(settings: OAuthSettings, store: UserStore, key: SigningKey, throttle = new SignInThrottle()) {
  const codes = new Map<string, IssuedCode>();
  const passwordChanges = new Map<string, PendingPasswordChange>();
  const sessions = new Map<string, SignInSession>();
  const refreshTokens = new Map<string, RefreshGrant>();

  /** The authorize request's parameters, checked; a bad client or callback is never redirected to. */
  function authorizeRequestOf(params: URLSearchParams): AuthorizeRequest | { page: Answer } | { redirect: Answer } {
    const clientId = params.get('client_id') ?? '';
    const redirectUri = params.get('redirect_uri') ?? '';
    if (clientId !== settings.clientId) return { page: errorPage(400, 'Unknown client_id.') };
    if (!settings.callbackUrls.has(redirectUri)) return { page: errorPage(400, 'redirect_uri is not a callback URL of this client.') };
    const state = params.get('state') ?? '';
    const refuse = (description: string) => ({ redirect: redirectWith(redirectUri, { error: 'invalid_request', error_description: description, state }) });
    if (params.get('response_type') !== 'code') return refuse('response_type must be code');
    const codeChallenge = params.get('code_challenge') ?? '';
    if (params.get('code_challenge_method') !== 'S256' || !PKCE_CHALLENGE.test(codeChallenge)) {
      return refuse('PKCE is required: code_challenge (S256) and code_challenge_method=S256');
    }
    const scope = (params.get('scope') ?? DEFAULT_SCOPE).split(/\s+/).filter(Boolean);
    if (!scope.includes('openid') || scope.some((entry) => !SCOPES.has(entry))) {
      return { redirect: redirectWith(redirectUri, { error: 'invalid_scope', state }) };
    }
    return { clientId, redirectUri, state, scope: scope.join(' '), codeChallenge };
  }

  /** Codes, password changes, sessions and refresh tokens nobody came back for are dropped, so no map grows for good. */
  function forgetExpired(): void {
    const now = Date.now();
    for (const table of [codes, passwordChanges, sessions, refreshTokens] as Map<string, { expiresAt: number }>[]) {
      for (const [id, entry] of table) if (entry.expiresAt < now) table.delete(id);
    }
  }

  function issueCode(request: AuthorizeRequest, user: StoredUser, session: SignInSession | undefined): Answer {
    forgetExpired();
    const code = randomBytes(32).toString('base64url');
    const authTime = session?.authTime ?? Math.floor(Date.now() / 1000);
    codes.set(code, { ...request, userId: user.userId, authTime, expiresAt: Date.now() + CODE_TTL_MS });
    const answer = redirectWith(request.redirectUri, { code, ...(request.state ? { state: request.state } : {}) });
    if (session) return answer;
    // A new sign-in: the browser keeps the session, as Cognito's managed login keeps its cookie.
    const id = randomBytes(32).toString('base64url');
    sessions.set(id, { userId: user.userId, authTime, expiresAt: Date.now() + SESSION_TTL_MS });
    return { ...answer, headers: { ...answer.headers, 'Set-Cookie': sessionCookie(id, SESSION_TTL_MS / 1000) } };
  }

  /** The live session the browser's cookie names, with its user still allowed in. */
  function sessionOf(cookie: string | undefined): { session: SignInSession; user: StoredUser } | undefined {
    const id = cookieValue(cookie, SESSION_COOKIE);
    const session = id === undefined ? undefined : sessions.get(id);
    if (!session || session.expiresAt < Date.now()) return undefined;
    const user = store.find(session.userId);
    return user?.enabled && user.status === 'CONFIRMED' ? { session, user } : undefined;
  }

  /** A form post from another site (login CSRF) is refused; browsers send Origin with every POST. */
  function fromOwnPage(origin: string | undefined): boolean {
    return origin === undefined || origin === settings.origin;
  }

  return {
    authorize(query: URLSearchParams, requester: Pick<Requester, 'cookie'> = {}): Answer {
      const request = authorizeRequestOf(query);
      if ('page' in request) return request.page;
      if ('redirect' in request) return request.redirect;
      const signedIn = sessionOf(requester.cookie);
      if (signedIn) return issueCode(request, signedIn.user, signedIn.session);
      return loginPage(request);
    },

    async login(form: URLSearchParams, requester: Requester): Promise<Answer> {
      if (!fromOwnPage(requester.origin)) return errorPage(403, 'This form can only be sent from the sign-in page.');
      const request = authorizeRequestOf(form);
      if ('page' in request) return request.page;
      if ('redirect' in request) return request.redirect;
      const username = form.get('username') ?? '';
      // Refused before any password is checked: a locked name costs the pool nothing.
      const verdict = throttle.check(username, requester.client);
      if (!verdict.allowed) return throttledPage(request, verdict.reason, verdict.retryAfterMs);
      const user = store.find(username);
      const password = form.get('password') ?? '';
      // The hash is computed even for an unknown email, so timing does not tell who has an account.
      const valid = await store.verifyPassword(user ?? DUMMY_USER, password);
      if (!user || !valid || !user.enabled) {
        throttle.failed(username);
        return loginPage(request, 'Incorrect username or password.', 401);
      }
      throttle.succeeded(username, requester.client);
      if (store.temporaryPasswordExpired(user)) {
        return loginPage(request, 'Your temporary password has expired: ask an admin of your account to invite you again.', 401);
      }
      if (user.status === 'FORCE_CHANGE_PASSWORD') {
        const challenge = randomBytes(32).toString('base64url');
        passwordChanges.set(challenge, { request, userId: user.userId, expiresAt: Date.now() + CODE_TTL_MS });
        return newPasswordPage(challenge, request.redirectUri);
      }
      return issueCode(request, user, undefined);
    },

    async newPassword(form: URLSearchParams, requester: Pick<Requester, 'origin'>): Promise<Answer> {
      if (!fromOwnPage(requester.origin)) return errorPage(403, 'This form can only be sent from the sign-in page.');
      const challenge = form.get('challenge') ?? '';
      const pending = passwordChanges.get(challenge);
      if (!pending || pending.expiresAt < Date.now()) {
        passwordChanges.delete(challenge);
        return errorPage(400, 'This sign-in has expired: start again from the application.');
      }
      const password = form.get('new_password') ?? '';
      const problem = password !== (form.get('confirm_password') ?? '') ? 'The two passwords differ.' : passwordPolicyViolation(password);
      if (problem) return newPasswordPage(challenge, pending.request.redirectUri, problem);
      passwordChanges.delete(challenge);
      const user = await store.setPassword(pending.userId, password, true);
      return issueCode(pending.request, user, undefined);
    },

    /**
     * Cognito's `GET /logout?client_id=&logout_uri=`: the session ends and the browser goes back to the app's
     * sign-out URL, which must be one the app client lists, exactly.
     */
    logout(query: URLSearchParams, requester: Pick<Requester, 'cookie'>): Answer {
      if (query.get('client_id') !== settings.clientId) return errorPage(400, 'Unknown client_id.');
      const logoutUri = query.get('logout_uri') ?? '';
      if (!settings.logoutUrls.has(logoutUri)) return errorPage(400, 'logout_uri is not a sign-out URL of this client.');
      const id = cookieValue(requester.cookie, SESSION_COOKIE);
      if (id !== undefined) sessions.delete(id);
      return { status: 302, headers: { Location: logoutUri, 'Cache-Control': 'no-store', 'Set-Cookie': sessionCookie('', 0) }, body: '' };
    },

    /** RFC 7009, as Cognito's `/oauth2/revoke`: the refresh token of this client stops working; 200 whatever it was. */
    revoke(form: URLSearchParams): Answer {
      if (form.get('client_id') !== settings.clientId) return tokenError(400, 'invalid_client');
      const token = form.get('token') ?? '';
      if (token === '') return tokenError(400, 'invalid_request');
      const grant = refreshTokens.get(token);
      if (grant?.clientId === settings.clientId) refreshTokens.delete(token);
      return { status: 200, headers: { 'Cache-Control': 'no-store' }, body: '' };
    },

    /**
     * RFC 6749 section 4.1.3 with RFC 7636: a code is good once, for its client, callback and verifier.
     * Section 6: a refresh token, until it expires or is revoked, gives new ID and access tokens.
     */
    token(form: URLSearchParams): Answer {
      const grantType = form.get('grant_type');
      if (grantType !== 'authorization_code' && grantType !== 'refresh_token') return tokenError(400, 'unsupported_grant_type');
      if (form.get('client_id') !== settings.clientId) return tokenError(401, 'invalid_client');
      if (grantType === 'refresh_token') {
        const grant = refreshTokens.get(form.get('refresh_token') ?? '');
        const user = grant && grant.expiresAt >= Date.now() ? store.find(grant.userId) : undefined;
        if (!grant || !user?.enabled) return tokenError(400, 'invalid_grant');
        const tokens = issueTokens({ key, issuer: settings.issuer, clientId: settings.clientId, user, authTime: grant.authTime, scope: grant.scope });
        return json(200, { id_token: tokens.idToken, access_token: tokens.accessToken, token_type: 'Bearer', expires_in: tokens.expiresIn });
      }
      const code = form.get('code') ?? '';
      const issued = codes.get(code);
      // Consumed by its first use, right or wrong: a code that leaked is worth one attempt at most.
      codes.delete(code);
      if (!issued || issued.expiresAt < Date.now()) return tokenError(400, 'invalid_grant');
      if (issued.clientId !== form.get('client_id') || issued.redirectUri !== form.get('redirect_uri')) {
        return tokenError(400, 'invalid_grant');
      }
      const verifier = form.get('code_verifier') ?? '';
      if (!PKCE_VERIFIER.test(verifier) || !sameText(s256(verifier), issued.codeChallenge)) return tokenError(400, 'invalid_grant');
      const user = store.find(issued.userId);
      if (!user?.enabled) return tokenError(400, 'invalid_grant');
      const tokens = issueTokens({ key, issuer: settings.issuer, clientId: settings.clientId, user, authTime: issued.authTime, scope: issued.scope });
      forgetExpired();
      const refreshToken = randomBytes(32).toString('base64url');
      refreshTokens.set(refreshToken, {
        userId: user.userId,
        clientId: settings.clientId,
        scope: issued.scope,
        authTime: issued.authTime,
        expiresAt: Date.now() + REFRESH_TTL_MS,
      });
      return json(200, {
        id_token: tokens.idToken,
        access_token: tokens.accessToken,
        refresh_token: refreshToken,
        token_type: 'Bearer',
        expires_in: tokens.expiresIn,
      });
    },

    /** The dashboard's page calls the token endpoint from its own origin, as a SPA calls Cognito's. */
    corsHeaders(origin: string | undefined): Record<string, string> {
      const allowed = [...settings.callbackUrls].map((url) => new URL(url).origin);
      if (origin === undefined || !allowed.includes(origin)) return {};
      return {
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Allow-Methods': 'POST',
        'Access-Control-Allow-Headers': 'Content-Type',
        'Access-Control-Max-Age': '600',
        Vary: 'Origin',
      };
    },
  };
}

export type OAuth = ReturnType<typeof createOAuth>;

/** Never matches: verifyPassword on it costs what a real check costs. */
const DUMMY_USER: StoredUser = {
  userId: '',
  email: '',
  emailVerified: false,
  enabled: false,
  status: 'CONFIRMED',
  passwordHash: `scrypt$${Buffer.alloc(16).toString('base64url')}$${Buffer.alloc(32).toString('base64url')}`,
  passwordSetAt: '',
  createdAt: '',
  updatedAt: '',
};

/** The session cookie: for the stand-in's pages only (HttpOnly), sent on top-level navigations back to it (Lax). */
function sessionCookie(value: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}`;
}

/** One cookie's value from a Cookie header; names are compared, never used as keys. */
function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim() || undefined;
  }
  return undefined;
}

const s256 = (verifier: string): string => createHash('sha256').update(verifier).digest('base64url');

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function redirectWith(uri: string, params: Record<string, string>): Answer {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return { status: 302, headers: { Location: url.href, 'Cache-Control': 'no-store' }, body: '' };
}

function json(status: number, body: unknown): Answer {
  return {
    status,
    headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', Pragma: 'no-cache' },
    body: JSON.stringify(body),
  };
}

const tokenError = (status: number, error: string): Answer => json(status, { error });

/**
 * The sign-in pages run no script, load nothing and are framed by nobody. Their form posts to the stand-in,
 * which answers with a redirect to the client's callback: CSP's form-action covers that redirect too, so the
 * callback's origin is allowed beside 'self'.
 */
const pageHeaders = (callbackUri?: string) => ({
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': `default-src 'none'; form-action 'self'${callbackUri ? ` ${new URL(callbackUri).origin}` : ''}; frame-ancestors 'none'; base-uri 'none'`,
  'X-Content-Type-Options': 'nosniff',
  // same-origin, not no-referrer: under no-referrer a browser sends `Origin: null` with the form's POST,
  // and the form would be refused as coming from elsewhere. Nothing leaves for another origin either way.
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
});

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

function page(status: number, title: string, content: string, callbackUri?: string): Answer {
  const body = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
<p>Local stand-in of the user pool: for development only.</p>
${content}
</main>
</body>
</html>
`;
  return { status, headers: pageHeaders(callbackUri), body };
}

function errorPage(status: number, message: string): Answer {
  return page(status, 'Cannot sign in', `<p role="alert">${escapeHtml(message)}</p>`);
}

function hidden(name: string, value: string): string {
  return `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;
}

function loginPage(request: AuthorizeRequest, error?: string, status = 200): Answer {
  return page(
    status,
    'Sign in',
    `${error ? `<p role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/login">
${hidden('client_id', request.clientId)}
${hidden('redirect_uri', request.redirectUri)}
${hidden('state', request.state)}
${hidden('scope', request.scope)}
${hidden('response_type', 'code')}
${hidden('code_challenge', request.codeChallenge)}
${hidden('code_challenge_method', 'S256')}
<p><label for="username">Email</label><br><input id="username" name="username" type="email" autocomplete="username" required></p>
<p><label for="password">Password</label><br><input id="password" name="password" type="password" autocomplete="current-password" required></p>
<p><button type="submit">Sign in</button></p>
</form>`,
    request.redirectUri,
  );
}

/** Refused without a password check: the same page whoever the name belongs to, with when to try again. */
function throttledPage(request: AuthorizeRequest, reason: 'user-locked' | 'client-limited', retryAfterMs: number): Answer {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  const message =
    reason === 'user-locked'
      ? `Too many failed sign-in attempts for this email: try again in ${seconds} s.`
      : `Too many sign-in attempts from this computer: try again in ${seconds} s.`;
  const answer = loginPage(request, message, 429);
  return { ...answer, headers: { ...answer.headers, 'Retry-After': String(seconds) } };
}

function newPasswordPage(challenge: string, callbackUri: string, error?: string): Answer {
  return page(
    error ? 400 : 200,
    'Choose a new password',
    `${error ? `<p role="alert">${escapeHtml(error)}</p>` : ''}
<p>You signed in with a temporary password. Choose your own to continue.</p>
<form method="post" action="/login/new-password">
${hidden('challenge', challenge)}
<p><label for="new_password">New password</label><br><input id="new_password" name="new_password" type="password" autocomplete="new-password" required></p>
<p><label for="confirm_password">Confirm new password</label><br><input id="confirm_password" name="confirm_password" type="password" autocomplete="new-password" required></p>
<p><button type="submit">Set password and sign in</button></p>
</form>`,
    callbackUri,
  );
}
