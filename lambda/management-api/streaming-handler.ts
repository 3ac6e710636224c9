import type { Readable } from 'node:stream';
import type { Context } from 'aws-lambda';
import type { ApiEvent, ApiResult } from '../http/http-event';
import { emptyResponse, jsonResponse } from '../http/responses';
import type { Models } from '../models/models';
import type { ManagementContext } from './management-context';
import { type ManagementDependencies, managementChain } from './management-handler';
import { headersOf, queryOf } from './name-table';
import type { ManagementRoute } from './route';

/**
 * The run function's chain (RunPrompts): the management chain's middleware, the same chain (management-handler.ts managementChain),
 * with two differences. Its handlers get the stack's models. And a handler's answer is not held to the answer's
 * budget, as a run's is the model's time: the steps before it are (the caller, the membership, the refusal's
 * record), and so are the run's own reads and its reservation (the request's store deadline). An answer may be a
 * stream (server-sent events), which the chain hands on as the result's body; deployed, response-streaming.ts
 * writes it through Lambda's response stream, and locally the management gateway pipes it.
 */
export interface RunDependencies extends ManagementDependencies {
  readonly models: Models;
}

/** A management result whose body may be a stream, written as it is produced. */
export type StreamingResult = Omit<ApiResult, 'body'> & { readonly body?: string | Readable };

export type StreamingHandler = (event: ApiEvent, context: Context) => Promise<StreamingResult>;

interface StreamingContext extends ManagementContext {
  replyStream?: Readable;
}

export function createStreamingManagementHandler(deps: RunDependencies, routes: readonly ManagementRoute[]): StreamingHandler {
  const dispatch = async (event: ApiEvent, context: StreamingContext): Promise<ApiResult> => {
    const { caller, params, member, table, ops, handle } = context;
    if (!caller || !params || !table || !ops || !handle) throw new Error('handler reached before the chain read the request');
    const reply = await handle({
      caller,
      params,
      query: queryOf(event),
      headers: headersOf(event),
      member,
      table,
      ops,
      directory: deps.directory,
      now: new Date(),
      models: deps.models,
    });
    const headers = { 'Cache-Control': 'no-store', ...reply.headers };
    if (reply.stream) {
      context.replyStream = reply.stream;
      return emptyResponse(reply.status, headers);
    }
    return reply.body === undefined ? emptyResponse(reply.status, headers) : jsonResponse(reply.status, reply.body, headers);
  };

  const chain = managementChain<StreamingContext>(deps, routes).handler(dispatch);

  return async (event, context) => {
    const streaming: StreamingContext = Object.assign(context, { replyStream: undefined });
    const result = await chain(event, streaming);
    return streaming.replyStream ? { ...result, body: streaming.replyStream } : result;
  };
}
