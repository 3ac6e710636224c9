import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { listenOnLoopback } from './listen';
import { serverOptions } from './request-limits';

export interface PlaygroundServerOptions {
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** Base URL of the API the page calls, e.g. `http://127.0.0.1:3000` or a deployed `ApiUrl`. */
  readonly apiUrl: string;
  /** Folder holding index.html, app.js and style.css; the repository's playground/ by default. */
  readonly root?: string;
}

export interface PlaygroundServer {
  readonly url: string;
  close(): Promise<void>;
}

export class PlaygroundConfigError extends Error {
  override readonly name = 'PlaygroundConfigError';
}

const DEFAULT_ROOT = join(__dirname, '..', 'playground');

/** The only paths served: a fixed list, so no request path ever reaches the file system. */
const STATIC_FILES = {
  '/index.html': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/style.css': { file: 'style.css', type: 'text/css; charset=utf-8' },
} as const;

interface Asset {
  readonly type: string;
  readonly body: Buffer;
}

function apiBaseUrl(apiUrl: string): URL {
  let url: URL;
  try {
    url = new URL(apiUrl);
  } catch {
    throw new PlaygroundConfigError(`The playground's API URL must be an absolute URL, got "${apiUrl}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new PlaygroundConfigError(`The playground's API URL must be http or https, got "${apiUrl}"`);
  }
  return url;
}

/** The page may talk to its own origin for its files and to the API's origin for data: nothing else. */
function securityHeaders(apiOrigin: string): Record<string, string> {
  return {
    'Content-Security-Policy': [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      `connect-src ${apiOrigin}`,
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Cache-Control': 'no-cache',
  };
}

async function loadAssets(root: string, apiUrl: string): Promise<Map<string, Asset>> {
  const assets = new Map<string, Asset>();
  for (const [path, { file, type }] of Object.entries(STATIC_FILES)) {
    assets.set(path, { type, body: await readFile(join(root, file)) });
  }
  // The page learns where the API is from its own origin, so one build of it serves any deployment.
  const configModule = `export const apiUrl = ${JSON.stringify(apiUrl)};\n`;
  assets.set('/config.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(configModule) });
  const index = assets.get('/index.html');
  if (index) assets.set('/', index);
  return assets;
}

function respond(response: ServerResponse, status: number, headers: Record<string, string>, body?: Buffer): void {
  response.writeHead(status, body ? { ...headers, 'Content-Length': String(body.length) } : headers);
  response.end(body);
}

function handler(assets: Map<string, Asset>, headers: Record<string, string>) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    const method = request.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') {
      respond(response, 405, { ...headers, Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' }, Buffer.from('Method not allowed\n'));
      return;
    }
    const path = new URL(request.url ?? '/', 'http://playground.invalid').pathname;
    const asset = assets.get(path);
    if (!asset) {
      respond(response, 404, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' }, Buffer.from('Not found\n'));
      return;
    }
    const assetHeaders = { ...headers, 'Content-Type': asset.type, 'Content-Length': String(asset.body.length) };
    if (method === 'HEAD') respond(response, 200, assetHeaders);
    else respond(response, 200, assetHeaders, asset.body);
  };
}

/** Serves the playground page on its own origin, so every call it makes to the API is cross-origin. */
export async function startPlaygroundServer(options: PlaygroundServerOptions): Promise<PlaygroundServer> {
  const api = apiBaseUrl(options.apiUrl);
  const apiUrl = api.href.replace(/\/+$/, '');
  const assets = await loadAssets(options.root ?? DEFAULT_ROOT, apiUrl);
  const server = createServer(serverOptions(), handler(assets, securityHeaders(api.origin)));

  const port = await listenOnLoopback(server, options.port, 'PLAYGROUND_PORT', { host: options.host });
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;

  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
