import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { listenOnLoopback } from '../listen';
import { FOREIGN_REQUEST_MESSAGE, foreignRequest, loopbackHosts } from '../loopback-guard';
import { BodyTooLargeError, closeAfterAnswer, readBody, serverOptions } from '../request-limits';
import { createCognitoApi } from './cognito-api';
import { type Answer, createOAuth } from './oauth';
import { loadOrCreateSigningKey } from './signing-key';
import { UserStore } from './user-store';

/**
 * The embedded stand-in of the stack's Cognito user pool that `npm start` runs: the Cognito API subset the
 * user directory calls, managed login (authorization code with PKCE), the token endpoint and the JWKS, on
 * loopback, with nothing but Node. Its users and its signing key live in `<DATA_DIR>/identity/`.
 *
 * It answers for its loopback names only (a DNS-rebinding page is refused), and its administrative API answers
 * programs only, never a page (loopback-guard.ts); its OAuth endpoints are for the browser, as Cognito's are.
 *
 * Its issuer (`http://127.0.0.1:<port>/<userPoolId>`) is not the deployed pool's
 * (`https://cognito-idp.<region>.amazonaws.com/<poolId>`), and the deployed API's authorizer trusts only
 * that one, so no token of the stand-in is ever accepted by a deployed stack.
 */
export interface IdentityStandIn {
  /** Where the Cognito API answers: COGNITO_ENDPOINT for the SDK client. */
  readonly endpoint: string;
  readonly userPoolId: string;
  /** The public app client of the dashboard: authorization code with PKCE, no secret. */
  readonly clientId: string;
  readonly issuer: string;
  readonly jwksUri: string;
  readonly authorizeUrl: string;
  readonly tokenUrl: string;
  /** Cognito's sign-out endpoint (`/logout?client_id=&logout_uri=`). */
  readonly logoutUrl: string;
  /** Cognito's revocation endpoint for refresh tokens. */
  readonly revokeUrl: string;
  /**
   * Registers one more exact redirect URI for the app client, and the same URL as a sign-out URL, as the
   * deployed client lists the dashboard's URL as both.
   */
  allowCallbackUrl(url: string): void;
  stop(): Promise<void>;
}

export interface IdentityStandInOptions {
  readonly dataDir: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly callbackUrls?: readonly string[];
  /** Ports the stack's other settings name, never suggested when `port` is taken. */
  readonly reservedPorts?: readonly number[];
}

/** Cognito's shape (`<region>_<id>`), and plainly not a real pool. */
export const LOCAL_USER_POOL_ID = 'local_PromptsDev';
export const LOCAL_CLIENT_ID = 'localdashboardclient';
/** Larger bodies are refused: nothing the stand-in takes comes near it. */
const MAX_BODY_BYTES = 64 * 1024;

export async function startIdentityStandIn(options: IdentityStandInOptions): Promise<IdentityStandIn> {
  const dir = join(options.dataDir, 'identity');
  const store = await UserStore.open(dir);
  const key = await loadOrCreateSigningKey(dir);
  const callbackUrls = new Set<string>();
  const logoutUrls = new Set<string>();
  const allowCallbackUrl = (url: string) => {
    callbackUrls.add(new URL(url).href);
    logoutUrls.add(new URL(url).href);
  };
  for (const url of options.callbackUrls ?? []) allowCallbackUrl(url);

  // Listening first: the issuer names the port, which is known only then. Requests are taken from the
  // moment the handler is attached, in the same turn, before any connection can be served.
  const server = createServer(serverOptions());
  const port = await listenOnLoopback(server, options.port, 'IDENTITY_PORT', { reserved: options.reservedPorts ?? [] });
  const origin = `http://127.0.0.1:${port}`;
  const ownHosts = loopbackHosts(port);
  const wellKnown = `/${LOCAL_USER_POOL_ID}/.well-known`;
  const issuer = `${origin}/${LOCAL_USER_POOL_ID}`;
  const cognitoApi = createCognitoApi(store, LOCAL_USER_POOL_ID);
  const oauth = createOAuth({ issuer, clientId: LOCAL_CLIENT_ID, callbackUrls, logoutUrls, origin }, store, key);

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // An absolute-form target may be no URL at all (`http://[`): a 400 below, once the Host is checked.
    const url = URL.parse(request.url ?? '/', origin);
    const method = request.method ?? 'GET';
    const adminApi = method === 'POST' && url?.pathname === '/';
    // The administrative API is for programs (the management functions' SDK client); the rest is for the browser.
    const foreign = foreignRequest(request, ownHosts, { refuseOrigin: adminApi });
    if (foreign) {
      closeAfterAnswer(response);
      const body = adminApi
        ? { __type: 'AccessDeniedException', message: FOREIGN_REQUEST_MESSAGE[foreign] }
        : { error: 'forbidden', error_description: FOREIGN_REQUEST_MESSAGE[foreign] };
      const type = adminApi ? 'application/x-amz-json-1.1' : 'application/json';
      return send(response, { status: 403, headers: { 'Content-Type': type }, body: JSON.stringify(body) });
    }
    if (!url) {
      const body = { error: 'invalid_request', error_description: 'The request target is not a URL.' };
      return send(response, { status: 400, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    }
    const requester = {
      cookie: request.headers.cookie,
      client: request.socket.remoteAddress ?? 'unknown',
      origin: request.headers.origin,
    };
    if (adminApi) {
      const target = request.headers['x-amz-target'];
      const text = await readText(request);
      let input: unknown;
      try {
        input = JSON.parse(text);
      } catch {
        input = undefined;
      }
      const answer = await cognitoApi(typeof target === 'string' ? target : undefined, input);
      return send(response, { status: answer.status, headers: { 'Content-Type': 'application/x-amz-json-1.1' }, body: JSON.stringify(answer.body) });
    }
    if (method === 'GET' && url.pathname === `${wellKnown}/jwks.json`) {
      return send(response, jsonAnswer({ keys: [key.jwk] }));
    }
    if (method === 'GET' && url.pathname === `${wellKnown}/openid-configuration`) {
      return send(
        response,
        jsonAnswer({
          issuer,
          authorization_endpoint: `${origin}/oauth2/authorize`,
          token_endpoint: `${origin}/oauth2/token`,
          jwks_uri: `${origin}${wellKnown}/jwks.json`,
          response_types_supported: ['code'],
          grant_types_supported: ['authorization_code'],
          code_challenge_methods_supported: ['S256'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
          scopes_supported: ['openid', 'email', 'profile'],
          token_endpoint_auth_methods_supported: ['none'],
        }),
      );
    }
    if (method === 'GET' && url.pathname === '/oauth2/authorize') return send(response, oauth.authorize(url.searchParams, requester));
    if (method === 'GET' && url.pathname === '/logout') return send(response, oauth.logout(url.searchParams, requester));
    if (method === 'POST' && url.pathname === '/login') {
      return send(response, await oauth.login(new URLSearchParams(await readText(request)), requester));
    }
    if (method === 'POST' && url.pathname === '/login/new-password') {
      return send(response, await oauth.newPassword(new URLSearchParams(await readText(request)), requester));
    }
    if (url.pathname === '/oauth2/token' || url.pathname === '/oauth2/revoke') {
      const cors = oauth.corsHeaders(requester.origin);
      if (method === 'OPTIONS') return send(response, { status: 204, headers: cors, body: '' });
      if (method === 'POST') {
        const form = new URLSearchParams(await readText(request));
        const answer = url.pathname === '/oauth2/token' ? oauth.token(form) : oauth.revoke(form);
        return send(response, { ...answer, headers: { ...answer.headers, ...cors } });
      }
    }
    send(response, { status: 404, headers: { 'Content-Type': 'application/json' }, body: '{"error":"not_found"}' });
  }

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    route(request, response).catch((error: unknown) => {
      if (error instanceof BodyTooLargeError) {
        closeAfterAnswer(response);
        return send(response, { status: 413, headers: {}, body: '' });
      }
      // A client that went away mid-body: nobody is left to answer.
      if (!request.complete) return response.destroy();
      process.stderr.write(`identity stand-in: ${(error as Error)?.stack ?? String(error)}\n`);
      if (!response.headersSent) send(response, { status: 500, headers: { 'Content-Type': 'application/json' }, body: '{"__type":"InternalErrorException"}' });
      else response.destroy();
    });
  });
  return {
    endpoint: origin,
    userPoolId: LOCAL_USER_POOL_ID,
    clientId: LOCAL_CLIENT_ID,
    issuer,
    jwksUri: `${origin}${wellKnown}/jwks.json`,
    authorizeUrl: `${origin}/oauth2/authorize`,
    tokenUrl: `${origin}/oauth2/token`,
    logoutUrl: `${origin}/logout`,
    revokeUrl: `${origin}/oauth2/revoke`,
    allowCallbackUrl,
    stop: () => closeServer(server),
  };
}

async function readText(request: IncomingMessage): Promise<string> {
  return (await readBody(request, MAX_BODY_BYTES)).toString('utf8');
}

function jsonAnswer(body: unknown): Answer {
  return { status: 200, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache' }, body: JSON.stringify(body) };
}

function send(response: ServerResponse, answer: Answer): void {
  const body = Buffer.from(answer.body);
  response.writeHead(answer.status, { ...answer.headers, 'Content-Length': String(body.length) });
  response.end(body);
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}
