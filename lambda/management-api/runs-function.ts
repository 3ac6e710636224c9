import { lambdaRuntime, streamingEntry } from './response-streaming';
import { routesOf } from './routes';
import { runDependencies } from './run-runtime';
import { createStreamingManagementHandler } from './streaming-handler';

/** Lambda entry point: RunPrompts (routes.ts), its answers streamed (response-streaming.ts). */
export const handler = streamingEntry(createStreamingManagementHandler(runDependencies(), routesOf('RunPrompts')), lambdaRuntime());
