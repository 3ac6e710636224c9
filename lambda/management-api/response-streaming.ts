import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Context } from 'aws-lambda';
import type { ApiEvent } from '../http/http-event';
import type { StreamingHandler } from './streaming-handler';

/**
 * Lambda response streaming (docs/runs.md "Streaming, deployed"): the run function's handler wrapped with the Node.js
 * runtime's `awslambda.streamifyResponse`, its status and headers written first as the HTTP integration's prelude
 * (`awslambda.HttpResponseStream.from`), then its body as it is produced. API Gateway's REST API reads it so for the
 * methods whose integration streams (responseTransferMode STREAM, lib/management-api.ts), and passes each piece on.
 */

/** What the Lambda Node.js runtime provides as the global `awslambda` (absent anywhere else). */
export interface LambdaStreamingRuntime {
  streamifyResponse(handler: (event: ApiEvent, responseStream: Writable, context: Context) => Promise<void>): unknown;
  readonly HttpResponseStream: {
    from(responseStream: Writable, prelude: { statusCode: number; headers?: Record<string, string> }): Writable;
  };
}

function headersOf(headers: Readonly<Record<string, string | number | boolean>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) out[name] = String(value);
  return out;
}

export function streamingEntry(handler: StreamingHandler, runtime: LambdaStreamingRuntime): unknown {
  return runtime.streamifyResponse(async (event, responseStream, context) => {
    const result = await handler(event, context);
    const stream = runtime.HttpResponseStream.from(responseStream, { statusCode: result.statusCode, headers: headersOf(result.headers) });
    const body = result.body === undefined ? Readable.from([]) : typeof result.body === 'string' ? Readable.from([result.body]) : result.body;
    await pipeline(body, stream);
  });
}

/** The runtime's `awslambda`, where the function runs on Lambda. */
export function lambdaRuntime(): LambdaStreamingRuntime {
  const runtime: unknown = Reflect.get(globalThis, 'awslambda');
  if (typeof runtime !== 'object' || runtime === null || !('streamifyResponse' in runtime) || !('HttpResponseStream' in runtime)) {
    throw new Error('awslambda is not there: the run function streams on the Lambda Node.js runtime only');
  }
  return runtime as LambdaStreamingRuntime;
}
