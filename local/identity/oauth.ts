import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { passwordPolicyViolation } from '../../lib/password-policy';
import type { SigningKey } from './signing-key';
import { issueTokens } from './tokens';
import type { StoredUser, UserStore } from './user-store';

/**
 * The managed-login part of the pool: `GET /oauth2/authorize` shows a sign-in form, `POST /login` checks
 * the password and sends the browser back to a registered callback URL with a one-time code, and
 * `POST /oauth2/token` exchanges the code, with its PKCE verifier, for ID and access tokens. A person
 * invited with a temporary password chooses a new one first, as Cognito's managed login asks.
 */

export interface OAuthSettings {
  readonly issuer: string;
  readonly clientId: string;
  /** Exact redirect URIs the app client accepts; the set may grow once the dashboard's origin is known. */
  readonly callbackUrls: ReadonlySet<string>;
  /** The stand-in's own origin: a sign-in form is only accepted from a page it served. */
  readonly origin: string;
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

/** Cognito's codes last 5 minutes; so does the wait for a new password. */
const CODE_TTL_MS = 5 * 60 * 1000;
const SCOPES = new Set(['openid', 'email', 'profile']);
const DEFAULT_SCOPE = 'openid email profile';
const PKCE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function createOAuth(settings: OAuthSettings, store: UserStore, key: SigningKey) {
  const codes = new Map<string, IssuedCode>();
  const passwordChanges = new Map<string, PendingPasswordChange>();

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

  /** Codes and password changes nobody came back for are dropped, so neither map grows for good. */
  function forgetExpired(): void {
    const now = Date.now();
    for (const [code, issued] of codes) if (issued.expiresAt < now) codes.delete(code);
    for (const [challenge, pending] of passwordChanges) if (pending.expiresAt < now) passwordChanges.delete(challenge);
  }

  function issueCode(request: AuthorizeRequest, user: StoredUser): Answer {
    forgetExpired();
    const code = randomBytes(32).toString('base64url');
    codes.set(code, { ...request, userId: user.userId, authTime: Math.floor(Date.now() / 1000), expiresAt: Date.now() + CODE_TTL_MS });
    return redirectWith(request.redirectUri, { code, ...(request.state ? { state: request.state } : {}) });
  }

  /** A form post from another site (login CSRF) is refused; browsers send Origin with every POST. */
  function fromOwnPage(origin: string | undefined): boolean {
    return origin === undefined || origin === settings.origin;
  }

  return {
    authorize(query: URLSearchParams): Answer {
      const request = authorizeRequestOf(query);
      if ('page' in request) return request.page;
      if ('redirect' in request) return request.redirect;
      return loginPage(request);
    },

    async login(form: URLSearchParams, origin: string | undefined): Promise<Answer> {
      if (!fromOwnPage(origin)) return errorPage(403, 'This form can only be sent from the sign-in page.');
      const request = authorizeRequestOf(form);
      if ('page' in request) return request.page;
      if ('redirect' in request) return request.redirect;
      const user = store.find(form.get('username') ?? '');
      const password = form.get('password') ?? '';
      // The hash is computed even for an unknown email, so timing does not tell who has an account.
      const valid = await store.verifyPassword(user ?? DUMMY_USER, password);
      if (!user || !valid || !user.enabled) return loginPage(request, 'Incorrect username or password.', 401);
      if (store.temporaryPasswordExpired(user)) {
        return loginPage(request, 'Your temporary password has expired: ask an admin of your account to invite you again.', 401);
      }
      if (user.status === 'FORCE_CHANGE_PASSWORD') {
        const challenge = randomBytes(32).toString('base64url');
        passwordChanges.set(challenge, { request, userId: user.userId, expiresAt: Date.now() + CODE_TTL_MS });
        return newPasswordPage(challenge, request.redirectUri);
      }
      return issueCode(request, user);
    },

    async newPassword(form: URLSearchParams, origin: string | undefined): Promise<Answer> {
      if (!fromOwnPage(origin)) return errorPage(403, 'This form can only be sent from the sign-in page.');
      const challenge = form.get('challenge') ?? '';
      const pending = passwordChanges.get(challenge);
      if (!pending || pending.expiresAt < Date.now()) {
        passwordChanges.delete(challenge);
        return errorPage(400, 'This sign-in has expired: start again from the application.');
      }
      const password = form.get('new_password') ?? '';
      const problem =
        password !== (form.get('confirm_password') ?? '') ? 'The two passwords differ.' : passwordPolicyViolation(password);
      if (problem) return newPasswordPage(challenge, pending.request.redirectUri, problem);
      passwordChanges.delete(challenge);
      const user = await store.setPassword(pending.userId, password, true);
      return issueCode(pending.request, user);
    },

    /** RFC 6749 section 4.1.3 with RFC 7636: a code is good once, for its client, callback and verifier. */
    token(form: URLSearchParams): Answer {
      if (form.get('grant_type') !== 'authorization_code') return tokenError(400, 'unsupported_grant_type');
      if (form.get('client_id') !== settings.clientId) return tokenError(401, 'invalid_client');
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
      return json(200, {
        id_token: tokens.idToken,
        access_token: tokens.accessToken,
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
