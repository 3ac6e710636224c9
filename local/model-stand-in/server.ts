import { constants as http2, Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import { listenOnLoopback } from '../listen';
import { FOREIGN_REQUEST_MESSAGE, foreignRequest, loopbackHosts } from '../loopback-guard';
import { BodyTooLargeError, closeAfterAnswer, readBody } from '../request-limits';
import { type AnswerSink, writeConverse, writeConverseStream, writeError } from './answers';
import { BedrockError } from './bedrock-errors';
import { parseConverseBody } from './converse-request';
import { routeOf } from './routes';
import { planAnswer } from './rule';
import { ThrottleCounts } from './throttle-counts';
import { createDualProtocolServer, type StandInRequest, type StandInResponse } from './transport';

/**
 * The local stand-in model: Bedrock Runtime's Converse and ConverseStream on loopback, answered by a
 * deterministic rule (docs/runs.md), so that AWS's own BedrockRuntimeClient, pointed at it
 * (`endpoint`, or `AWS_ENDPOINT_URL_BEDROCK_RUNTIME`), takes the path it takes to Bedrock. It answers every
 * model id and accepts any signature: like the embedded store, it serves this machine's programs only,
 * and refuses web pages and other hosts (loopback-guard.ts).
 */
export interface ModelStandIn {
  /** `http://127.0.0.1:<port>`: the SDK's endpoint. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export interface ModelStandInOptions {
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  /** A loopback address: 127.0.0.1 (the default), ::1 or localhost. */
  readonly host?: string;
  /** Ports the stack's other settings name, never suggested when `port` is taken. */
  readonly reservedPorts?: readonly number[];
}

/** More than a prompt (300 KB), its variables and a long conversation need, with room for a few images. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;
const LOOPBACK_HOSTS = ['127.0.0.1', '::1', 'localhost'];

export async function startModelStandIn(options: ModelStandInOptions = {}): Promise<ModelStandIn> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK_HOSTS.includes(host)) throw new Error(`the local stand-in model listens on loopback only (${LOOPBACK_HOSTS.join(', ')}), not ${host}`);
  const throttles = new ThrottleCounts();
  let ownHosts: ReadonlySet<string> = new Set();

  async function answer(request: StandInRequest, response: StandInResponse): Promise<void> {
    const startedAt = performance.now();
    const foreign = foreignRequest(hostView(request), ownHosts, { refuseOrigin: true });
    if (foreign) return refuse(request, response, new BedrockError('AccessDeniedException', FOREIGN_REQUEST_MESSAGE[foreign]));
    let route: ReturnType<typeof routeOf>;
    try {
      route = routeOf(request.method ?? '', request.url ?? '/');
    } catch (error) {
      if (error instanceof BedrockError) return refuse(request, response, error);
      throw error;
    }
    const body = await readBody(request, MAX_BODY_BYTES);
    const plan = planAnswer(parseConverseBody(body), route.operation, throttles);
    const sink: AnswerSink = response;
    if (plan.kind === 'error') return writeError(sink, new BedrockError(plan.error, plan.message));
    if (route.operation === 'converse') return writeConverse(sink, plan.answer, startedAt);
    return writeConverseStream(sink, plan.answer, startedAt);
  }

  const { server, close } = createDualProtocolServer((request, response) => {
    answer(request, response).catch((error: unknown) => {
      if (error instanceof BodyTooLargeError) {
        return refuse(request, response, new BedrockError('ValidationException', `The request body is over ${MAX_BODY_BYTES / 1024 / 1024} MB.`, 413));
      }
      if (error instanceof BedrockError && !response.headersSent) return writeError(response, error);
      // A client that went away mid-body: nobody is left to answer.
      if (!request.complete) return response.destroy();
      process.stderr.write(`local stand-in model: ${(error as Error)?.stack ?? String(error)}\n`);
      if (!response.headersSent) writeError(response, new BedrockError('InternalServerException', 'The local stand-in model failed; its output says why.'));
      else response.destroy();
    });
  });
  const port = await listenOnLoopback(server, options.port ?? 0, 'MODEL_PORT', { host, reserved: options.reservedPorts ?? [] });
  ownHosts = loopbackHosts(port);
  return { url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, port, close };
}

/**
 * The request's headers as the loopback guard reads them. HTTP/2 names the host in `:authority` (the SDK
 * sends no `Host` there); a `Host` beside it must say the same, or the request names two hosts.
 */
function hostView(request: StandInRequest): { headers: StandInRequest['headers']; rawHeaders: string[] } {
  if (!(request instanceof Http2ServerRequest)) return request;
  const rawHeaders: string[] = [];
  const hosts = new Set<string>();
  for (let index = 0; index + 1 < request.rawHeaders.length; index += 2) {
    const name = (request.rawHeaders[index] as string).toLowerCase();
    const value = request.rawHeaders[index + 1] as string;
    if (name === ':authority' || name === 'host') hosts.add(value.trim().toLowerCase());
    else rawHeaders.push(name, value);
  }
  for (const value of hosts) rawHeaders.push('host', value);
  return { headers: request.headers, rawHeaders };
}

/** An answer given before the body was read: the connection (HTTP/1.1) or the stream (HTTP/2) ends with it. */
function refuse(request: StandInRequest, response: StandInResponse, error: BedrockError): void {
  if (response instanceof Http2ServerResponse) {
    response.once('finish', () => {
      if (!request.complete && !response.stream.closed) response.stream.close(http2.NGHTTP2_CANCEL);
    });
  } else {
    closeAfterAnswer(response);
  }
  writeError(response, error);
}
