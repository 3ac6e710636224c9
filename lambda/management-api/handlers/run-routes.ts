import { actorName } from '../../domain/actor';
import { runPrompt, type RunListener } from '../../features/runs/run-prompt';
import type { RunSource } from '../../features/runs/run-record';
import { getRun, listRuns } from '../../features/runs/runs';
import { publicModel } from '../../models/catalog';
import type { Models } from '../../models/models';
import { defineRoute, type HandlerInput, type ManagementRoute } from '../route';
import { runAsEvents, runAsJson, wantsEvents } from '../run-answer';
import * as contracts from './run-contracts';

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

type SentSource = {
  readonly promptId?: string | undefined;
  readonly version?: string | undefined;
  readonly label?: string | undefined;
  readonly prompt?: Extract<RunSource, { prompt: unknown }>['prompt'] | undefined;
};

/** The source as the run operation takes it (the contract has checked that exactly one is given, with its prompt). */
function runSourceOf(source: SentSource): RunSource {
  if (source.prompt !== undefined) return { prompt: source.prompt, ...(source.promptId === undefined ? {} : { promptId: source.promptId }) };
  if (source.promptId === undefined) throw new Error('a stored source names its prompt (the contract checks it)');
  if (source.version !== undefined) return { promptId: source.promptId, version: source.version };
  if (source.label !== undefined) return { promptId: source.promptId, label: source.label };
  throw new Error('a source is a version, a label or a prompt (the contract checks it)');
}

export const runRoutes: readonly ManagementRoute[] = [
  defineRoute(contracts.runPrompt, {
    access: 'run prompts',
    handle(request) {
      const models = modelsOf(request);
      const { body } = request;
      const run = (listener: RunListener) =>
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
  defineRoute(contracts.listRuns, {
    access: 'read the account',
    async handle(request) {
      const { promptId, before } = request.query;
      const page = await listRuns(request.table, request.params.accountId, {
        ...(promptId === undefined ? {} : { promptId }),
        ...(before === undefined ? {} : { before }),
      });
      return { status: 200, body: { runs: page.runs, next: page.next ?? null } };
    },
  }),
  defineRoute(contracts.readRun, {
    access: 'read the account',
    async handle(request) {
      return { status: 200, body: { run: await getRun(request.table, request.params.accountId, request.params.runId) } };
    },
  }),
  defineRoute(contracts.listModels, {
    access: 'read the account',
    async handle(request) {
      return { status: 200, body: { models: modelsOf(request).catalog.map(publicModel) } };
    },
  }),
];
