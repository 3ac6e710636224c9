import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import { DASHBOARD_REFERRER_POLICY, dashboardContentSecurityPolicy } from '../lib/dashboard-security-headers';
import { listenOnLoopback } from './listen';
import { serverOptions } from './request-limits';

/**
 * The dashboard's origin under `npm start`, as CloudFront is deployed: `/api/*` goes to the management API
 * (a request listener given to it), everything else is the dashboard's files, with the same security
 * headers. The files are `dashboard/dist` once the dashboard is built; until then a small built-in page
 * (local/dashboard-page/) signs in with PKCE and shows what `GET /api/me` answers. One origin, so no CORS.
 */

/** What the page needs to sign in: the user pool's endpoints and its public app client. */
export interface DashboardIdentity {
  readonly authorizeUrl: string;
  readonly tokenUrl: string;
  readonly logoutUrl: string;
  readonly revokeUrl: string;
  readonly clientId: string;
}

export interface DashboardServerOptions {
  /** 0 picks a free port. */
  readonly port: number;
  readonly host?: string;
  readonly identity: DashboardIdentity;
  /** Answers `/api` and everything under it; without one, those paths answer 404. */
  readonly api?: RequestListener;
  /** The built dashboard; the built-in page when it holds no index.html. */
  readonly root?: string;
  /** Ports the stack's other settings name, never suggested when `port` is taken. */
  readonly reservedPorts?: readonly number[];
}

export interface DashboardServer {
  /** The origin, e.g. `http://127.0.0.1:3002`; the sign-in callback is this with `/`. */
  readonly url: string;
  /** Where `/` came from: the built dashboard or the built-in page. */
  readonly serving: 'dashboard/dist' | 'built-in page';
  /** The read API's URL, for the code samples the dashboard shows with a new key (config.json's `readApiUrl`). */
  setReadApiUrl(url: string): void;
  close(): Promise<void>;
}

export const DEFAULT_DASHBOARD_ROOT = resolve(__dirname, '..', 'dashboard', 'dist');
const BUILT_IN_ROOT = join(__dirname, 'dashboard-page');

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

export async function startDashboardServer(options: DashboardServerOptions): Promise<DashboardServer> {
  const dist = options.root ?? DEFAULT_DASHBOARD_ROOT;
  const built = existsSync(join(dist, 'index.html'));
  const root = built ? dist : BUILT_IN_ROOT;
  const headers = {
    'Content-Security-Policy': dashboardContentSecurityPolicy(new URL(options.identity.tokenUrl).origin),
    'Referrer-Policy': DASHBOARD_REFERRER_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
  };
  const { authorizeUrl, tokenUrl, logoutUrl, revokeUrl, clientId } = options.identity;
  // The read API's URL is known once it listens, which is after this origin (so the dashboard's side is ready first).
  let readApiUrl: string | undefined;
  const configJson = () => Buffer.from(JSON.stringify({ authorizeUrl, tokenUrl, logoutUrl, revokeUrl, clientId, ...(readApiUrl ? { readApiUrl } : {}) }));

  const serveFile = async (request: IncomingMessage, response: ServerResponse, path: string): Promise<void> => {
    const method = request.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') {
      return send(response, 405, { ...headers, Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }, Buffer.from('Method not allowed\n'));
    }
    // The page learns the pool's endpoints from its own origin, so one build serves any deployment.
    if (path === '/config.json')
      return send(response, 200, { ...headers, 'Content-Type': 'application/json', 'Cache-Control': 'no-cache' }, configJson(), method);
    const file = await fileFor(root, path);
    if (!file) return send(response, 404, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' }, Buffer.from('Not found\n'), method);
    const type = CONTENT_TYPES[extname(file.path)] ?? 'application/octet-stream';
    send(response, 200, { ...headers, 'Content-Type': type, 'Cache-Control': 'no-cache' }, file.body, method);
  };

  const server = createServer(serverOptions(), (request, response) => {
    const path = pathOf(request.url);
    if (path === undefined) return send(response, 400, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' }, Buffer.from('Bad request\n'));
    if (path === '/api' || path.startsWith('/api/')) {
      // As CloudFront forwards /api/* unchanged: the same path, the same headers, Authorization included;
      // and, as its response headers policy does, the answer gets the security headers too.
      for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
      if (options.api) return options.api(request, response);
      return send(response, 404, { 'Content-Type': 'application/json' }, Buffer.from('{"error":"Not found","code":"NOT_FOUND"}'));
    }
    serveFile(request, response, path).catch((error: unknown) => {
      process.stderr.write(`dashboard origin: ${(error as Error)?.stack ?? String(error)}\n`);
      if (!response.headersSent) send(response, 500, { 'Content-Type': 'text/plain; charset=utf-8' }, Buffer.from('Internal error\n'));
      else response.destroy();
    });
  });

  const host = options.host ?? '127.0.0.1';
  const port = await listenOnLoopback(server, options.port, 'DASHBOARD_PORT', { host, reserved: options.reservedPorts ?? [] });
  return {
    url: `http://${host}:${port}`,
    serving: built ? 'dashboard/dist' : 'built-in page',
    setReadApiUrl: (url: string) => {
      readApiUrl = url;
    },
    close: () =>
      new Promise<void>((done, fail) => {
        server.close((error) => (error ? fail(error) : done()));
        server.closeAllConnections();
      }),
  };
}

function pathOf(url: string | undefined): string | undefined {
  try {
    return decodeURIComponent(new URL(url ?? '/', 'http://dashboard.invalid').pathname);
  } catch {
    return undefined;
  }
}

/**
 * The file under `root` that `path` names, never one outside it. A path with no file extension that
 * names no file is a route of the single-page app: its index.html, as CloudFront's error response gives.
 */
async function fileFor(root: string, path: string): Promise<{ path: string; body: Buffer } | undefined> {
  const base = resolve(root);
  const wanted = resolve(base, `.${path.endsWith('/') ? `${path}index.html` : path}`);
  if (wanted !== base && !wanted.startsWith(base + sep)) return undefined;
  const body = await readFile(wanted).catch(() => undefined);
  if (body) return { path: wanted, body };
  if (extname(path) !== '') return undefined;
  const index = join(base, 'index.html');
  const fallback = await readFile(index).catch(() => undefined);
  return fallback ? { path: index, body: fallback } : undefined;
}

function send(response: ServerResponse, status: number, headers: Record<string, string>, body: Buffer, method = 'GET'): void {
  response.writeHead(status, { ...headers, 'Content-Length': String(body.length) });
  response.end(method === 'HEAD' ? undefined : body);
}
