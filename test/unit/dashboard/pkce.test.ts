import {
  authorizeUrl,
  base64url,
  challengeFor,
  createVerifier,
  logoutUrl,
  readCallback,
  revokeRequestBody,
  tokenRequestBody,
} from '../../../dashboard/src/auth/pkce';

const config = {
  authorizeUrl: 'http://127.0.0.1:42001/oauth2/authorize',
  tokenUrl: 'http://127.0.0.1:42001/oauth2/token',
  logoutUrl: 'http://127.0.0.1:42001/logout',
  revokeUrl: 'http://127.0.0.1:42001/oauth2/revoke',
  clientId: 'dashboard-client',
};

describe('PKCE helpers', () => {
  test('the S256 challenge of RFC 7636 appendix B', async () => {
    await expect(challengeFor('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).resolves.toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  test('a verifier is 43 characters of the unreserved set, and two are never the same', () => {
    const first = createVerifier();
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(createVerifier()).not.toBe(first);
  });

  test('base64url has no padding and no + or /', () => {
    expect(base64url(new Uint8Array([251, 255, 191]))).toBe('-_-_');
    expect(base64url(new Uint8Array([1]))).toBe('AQ');
  });

  test('the authorize URL asks for a code with an S256 challenge, the state and the callback', () => {
    const url = new URL(authorizeUrl(config, { redirectUri: 'http://127.0.0.1:42002/', state: 'st4te', challenge: 'ch' }));
    expect(url.origin + url.pathname).toBe(config.authorizeUrl);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'dashboard-client',
      redirect_uri: 'http://127.0.0.1:42002/',
      scope: 'openid email profile',
      state: 'st4te',
      code_challenge: 'ch',
      code_challenge_method: 'S256',
    });
  });

  test('the token request sends the code with its verifier and the same callback', () => {
    expect(Object.fromEntries(tokenRequestBody(config, 'the-code', 'http://127.0.0.1:42002/', 'the-verifier'))).toEqual({
      grant_type: 'authorization_code',
      client_id: 'dashboard-client',
      code: 'the-code',
      redirect_uri: 'http://127.0.0.1:42002/',
      code_verifier: 'the-verifier',
    });
  });
});

describe('the redirect back from sign-in', () => {
  const pending = { verifier: 'v', state: 'expected', returnTo: '#/accounts/demo/keys' };

  test('a page opened without code or error is not a callback', () => {
    expect(readCallback('', pending)).toEqual({ kind: 'none' });
  });

  test('a code for this tab is accepted', () => {
    expect(readCallback('?code=abc&state=expected', pending)).toEqual({ kind: 'code', code: 'abc' });
  });

  test('a code with another state, or with no sign-in pending in this tab, is refused', () => {
    expect(readCallback('?code=abc&state=forged', pending)).toMatchObject({ kind: 'error' });
    expect(readCallback('?code=abc&state=expected', undefined)).toMatchObject({ kind: 'error' });
  });

  test('an error from the sign-in page is said in words', () => {
    expect(readCallback('?error=invalid_request&error_description=PKCE%20is%20required&state=expected', pending)).toEqual({
      kind: 'error',
      message: 'Sign-in was refused: PKCE is required. Try again.',
    });
  });
});

describe('signing out', () => {
  test("the sign-out request names the client and comes back to the dashboard's root, as Cognito's /logout takes them", () => {
    const url = new URL(logoutUrl(config, 'http://127.0.0.1:42002/'));
    expect(url.origin + url.pathname).toBe(config.logoutUrl);
    expect(Object.fromEntries(url.searchParams)).toEqual({ client_id: 'dashboard-client', logout_uri: 'http://127.0.0.1:42002/' });
  });

  test('the revocation sends the refresh token with the client id (RFC 7009)', () => {
    expect(Object.fromEntries(revokeRequestBody(config, 'the-refresh-token'))).toEqual({ token: 'the-refresh-token', client_id: 'dashboard-client' });
  });
});
