import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../lambda/config';
import { type DemoUser, ensureDemoUser } from '../../local/identity/demo-user';
import { loadOrCreateSigningKey, type SigningKey } from '../../local/identity/signing-key';
import { type IdentityStandIn, startIdentityStandIn } from '../../local/identity/stand-in';
import { createTokenVerifier, IdentityUnavailableError, type VerifyToken } from '../../local/identity/verify-token';
import { signIn } from '../support/oauth-sign-in';

/**
 * The local gateway's check of an ID token, against the stand-in's real JWKS over HTTP: what the deployed
 * Cognito authorizer accepts, and only that, with the claims as that authorizer hands them on.
 */

jest.setTimeout(30_000);

const CALLBACK = 'http://127.0.0.1:41904/';
let dataDir: string;
let standIn: IdentityStandIn;
let demo: DemoUser;
let key: SigningKey;
let verify: VerifyToken;
let idToken: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'verify-token-'));
  standIn = await startIdentityStandIn({ dataDir, port: 0, callbackUrls: [CALLBACK] });
  demo = await ensureDemoUser({ endpoint: standIn.endpoint, userPoolId: standIn.userPoolId, dataDir });
  // The stand-in's own key, read from its DATA_DIR: what a forger with the machine's files would have.
  key = await loadOrCreateSigningKey(join(dataDir, 'identity'));
  verify = createTokenVerifier(standIn);
  idToken = await signIn(
    { authorizeUrl: standIn.authorizeUrl, tokenUrl: standIn.tokenUrl, clientId: standIn.clientId, redirectUri: CALLBACK },
    demo.email,
    demo.password,
  );
});

afterAll(async () => {
  await standIn.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const now = () => Math.floor(Date.now() / 1000);
function idClaims(change: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    sub: demo.userId,
    iss: standIn.issuer,
    aud: standIn.clientId,
    token_use: 'id',
    email: demo.email,
    email_verified: true,
    auth_time: now(),
    iat: now(),
    exp: now() + 600,
    ...change,
  };
}

describe('a valid ID token', () => {
  it('gives its claims, every one a string, as the REST API authorizer gives them', async () => {
    const claims = await verify(idToken);

    expect(claims).toBeDefined();
    for (const value of Object.values(claims ?? {})) expect(typeof value).toBe('string');
    expect(claims?.email_verified).toBe('true');
    expect(claims?.auth_time).toMatch(/^\d+$/);
    expect(claims?.exp).toMatch(/^(Sun|Mon|Tue|Wed|Thu|Fri|Sat) [A-Z][a-z]{2} \d{2} \d{2}:\d{2}:\d{2} UTC \d{4}$/);
  });

  it('is accepted when it was signed by the stand-in with exactly the claims the pool uses', async () => {
    await expect(verify(key.sign(idClaims()))).resolves.toMatchObject({ sub: demo.userId, token_use: 'id' });
  });
});

describe('refused (undefined, for a 401)', () => {
  it.each([
    ['an expired token', () => key.sign(idClaims({ iat: now() - 7200, exp: now() - 3600 }))],
    ['a token from another issuer', () => key.sign(idClaims({ iss: 'https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Other' }))],
    ['a token for another audience', () => key.sign(idClaims({ aud: 'anotherclient' }))],
    ['an access token, as Cognito makes it (no aud)', () => key.sign({ ...idClaims({ token_use: 'access', client_id: standIn.clientId }), aud: undefined })],
    ['an access token even with the client as its audience', () => key.sign(idClaims({ token_use: 'access' }))],
    ['a token without an expiry', () => key.sign(idClaims({ exp: undefined }))],
  ])('%s', async (_, token) => {
    await expect(verify(token())).resolves.toBeUndefined();
  });

  it('a real ID token whose payload was changed (its signature no longer holds)', async () => {
    const [header, payload, signature] = idToken.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const changed = Buffer.from(JSON.stringify({ ...claims, email: 'mallory@example.com' })).toString('base64url');

    await expect(verify(`${header}.${changed}.${signature}`)).resolves.toBeUndefined();
  });

  it('a token signed by another key under the stand-in key id (bad signature)', async () => {
    const otherDir = await mkdtemp(join(tmpdir(), 'verify-token-other-'));
    const other = await loadOrCreateSigningKey(otherDir);
    const [, payload, signature] = other.sign(idClaims()).split('.') as [string, string, string];
    const header = Buffer.from(JSON.stringify({ kid: key.jwk.kid, alg: 'RS256' })).toString('base64url');
    await rm(otherDir, { recursive: true, force: true });

    await expect(verify(`${header}.${payload}.${signature}`)).resolves.toBeUndefined();
  });

  it.each([
    ['empty', () => ''],
    ['one word', () => 'abc'],
    ['three parts that are no JSON', () => 'a.b.c'],
    ['a real one with a character more', () => `${idToken}x`],
    ['a real one without its signature', () => idToken.split('.').slice(0, 2).join('.')],
  ])('a malformed token: %s', async (_, token) => {
    await expect(verify(token())).resolves.toBeUndefined();
  });
});

describe('the JWKS', () => {
  it('is fetched over http from the stand-in once, then cached', async () => {
    const fetches = jest.spyOn(globalThis, 'fetch');
    const fresh = createTokenVerifier(standIn);

    for (let i = 0; i < 5; i++) expect(await fresh(idToken)).toBeDefined();

    expect(fetches.mock.calls.map(([url]) => String(url))).toEqual([standIn.jwksUri]);
    fetches.mockRestore();
  });

  it('cannot be had when the stand-in is down: an error, not a refusal', async () => {
    const down = createTokenVerifier({
      ...standIn,
      issuer: 'http://127.0.0.1:41949/local_Down',
      jwksUri: 'http://127.0.0.1:41949/local_Down/.well-known/jwks.json',
    });

    await expect(down(key.sign(idClaims({ iss: 'http://127.0.0.1:41949/local_Down' })))).rejects.toBeInstanceOf(IdentityUnavailableError);
  });
});

describe('the issuer is configuration, checked when the verifier is made', () => {
  it.each([
    [
      'the deployed pool',
      'https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Abc',
      'https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Abc/.well-known/jwks.json',
    ],
    ['another machine', 'http://10.0.0.5:9229/local_PromptsDev', 'http://10.0.0.5:9229/local_PromptsDev/.well-known/jwks.json'],
    ['keys from elsewhere', 'http://127.0.0.1:41905/local_PromptsDev', 'http://127.0.0.1:41906/keys.json'],
  ])('refuses %s', (_, issuer, jwksUri) => {
    expect(() => createTokenVerifier({ issuer, jwksUri, clientId: standIn.clientId })).toThrow(ConfigError);
  });
});
