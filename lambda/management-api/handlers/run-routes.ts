import { actorName } from '../../domain/actor';
import { runPrompt } from '../../features/runs/run-prompt';
import { getRun, isRunId, listRuns } from '../../features/runs/runs';
import { publicModel } from '../../models/catalog';
import type { Models } from '../../models/models';
import { badRequest, invalidBody } from '../management-errors';
import { defineRoute, type HandlerInput, type ManagementRoute } from '../route';
import { runAsEvents, runAsJson, wantsEvents } from '../run-answer';
import { RunBody, RunsQuery, runSourceOf } from '../run-schemas';

/**
 * Runs of prompts on models (docs/runs.md): run one (editors and up), read the account's runs and the stack's
 * models (any member). Served by the run function, RunPrompts, whose chain gives the handlers the models
 * (streaming-handler.ts), and whose answers stream.
 */

const modelsOf = (request: Pick<HandlerInput, 'models'>): Models => {
  if (!request.models) throw new Error('runs are served by the run function, whose chain gives the models');
  return request.models;
};

/** The store's calls after the model's answer get a deadline of their own: the request's has long passed. */
const RECORD_BUDGET_MS = 5_000;

export const runRoutes: readonly ManagementRoute[] = [
  defineRoute({
    method: 'POST',
    path: '/api/accounts/{accountId}/runs',
    access: 'run prompts',
    body: RunBody,
    handle(request) {
      const models = modelsOf(request);
      const { body } = request;
      const run = (listener: Parameters<typeof runPrompt>[2]) =>
        runPrompt(
          // Reads and the reservation are held to the request's deadline; the record, after the model, to its own.
          { table: request.table, models, recordTable: () => request.table.withDeadline(AbortSignal.timeout(RECORD_BUDGET_MS)) },
          {
            accountId: request.params.accountId,
            source: runSourceOf(body.source),
            variables: body.variables,
            ...(body.model === undefined ? {} : { model: body.model }),
            ...(body.params === undefined ? {} : { params: body.params }),
            by: actorName({ type: 'user', userId: request.caller.userId, email: request.caller.email }),
          },
          listener,
        );
      return wantsEvents(request.headers.accept) ? runAsEvents(run) : runAsJson(run);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/accounts/{accountId}/runs',
    access: 'read the account',
    async handle(request) {
      const query = RunsQuery.safeParse({ ...request.query });
      if (!query.success) throw invalidBody(query.error);
      const page = await listRuns(request.table, request.params.accountId, {
        ...(query.data.promptId === undefined ? {} : { promptId: query.data.promptId }),
        ...(query.data.before === undefined ? {} : { before: query.data.before }),
      });
      return { status: 200, body: { runs: page.runs, next: page.next ?? null } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/accounts/{accountId}/runs/{runId}',
    access: 'read the account',
    async handle(request) {
      if (!isRunId(request.params.runId)) throw badRequest('runId: must be a run id, as the runs list shows it (run_...)', 'runId');
      return { status: 200, body: { run: await getRun(request.table, request.params.accountId, request.params.runId) } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/accounts/{accountId}/models',
    access: 'read the account',
    async handle(request) {
      return { status: 200, body: { models: modelsOf(request).catalog.map(publicModel) } };
    },
  }),
];
