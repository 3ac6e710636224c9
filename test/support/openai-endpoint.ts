import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenAI-compatible chat completions endpoint on loopback, for the OpenAI provider's tests: it records each
 * request as it arrived and answers with what the test scripts, written as the test says (server-sent events piece
 * by piece, split wherever the test splits them), so the provider's real fetch and stream reading are what run.
 */
export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Record<string, unknown>;
}

export type ScriptedAnswer =
  | { readonly kind: 'json'; readonly status?: number; readonly headers?: Readonly<Record<string, string>>; readonly body: unknown }
  | { readonly kind: 'text'; readonly status: number; readonly headers?: Readonly<Record<string, string>>; readonly body: string }
  /** Written as these raw chunks, `gapMs` apart, then the connection ends. */
  | { readonly kind: 'stream'; readonly chunks: readonly string[]; readonly gapMs?: number; readonly firstAfterMs?: number };

export interface OpenAiEndpoint {
  /** `http://127.0.0.1:<port>/v1`: a catalog model's `baseUrl`. */
  readonly baseUrl: string;
  readonly received: ReceivedRequest[];
  close(): Promise<void>;
}

/** One chat completion chunk as OpenAI streams it, as an SSE event. */
export const sseChunk = (json: unknown): string => `data: ${JSON.stringify(json)}\n\n`;

/** The events of a streamed answer: each piece, the finish reason, the usage chunk (include_usage), `[DONE]`. */
export function streamedAnswer(pieces: readonly string[], usage?: { prompt_tokens: number; completion_tokens: number }, finish = 'stop'): string[] {
  const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm' };
  return [
    sseChunk({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }),
    ...pieces.map((content) => sseChunk({ ...base, choices: [{ index: 0, delta: { content }, finish_reason: null }] })),
    sseChunk({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] }),
    ...(usage ? [sseChunk({ ...base, choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } })] : []),
    'data: [DONE]\n\n',
  ];
}

export async function startOpenAiEndpoint(script: (request: ReceivedRequest, index: number) => ScriptedAnswer): Promise<OpenAiEndpoint> {
  const received: ReceivedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
  };
  const server: Server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      const body: Record<string, unknown> = text === '' ? {} : JSON.parse(text);
      const seen: ReceivedRequest = { method: request.method ?? '', path: request.url ?? '', headers: request.headers, body };
      received.push(seen);
      const answer = script(seen, received.length - 1);
      if (answer.kind === 'json' || answer.kind === 'text') {
        response.writeHead(answer.status ?? 200, { 'Content-Type': answer.kind === 'json' ? 'application/json' : 'text/plain', ...answer.headers });
        response.end(answer.kind === 'json' ? JSON.stringify(answer.body) : answer.body);
        return;
      }
      response.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
      response.flushHeaders();
      const write = (index: number) => {
        if (response.destroyed) return;
        if (index >= answer.chunks.length) return void response.end();
        response.write(answer.chunks[index]);
        later(answer.gapMs ?? 0, () => write(index + 1));
      };
      later(answer.firstAfterMs ?? 0, () => write(0));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
