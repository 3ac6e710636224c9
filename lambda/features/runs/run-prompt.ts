import { randomBytes } from 'node:crypto';
import { TemplateVariablesError } from '../../../client/src/errors';
import { PromptTemplate } from '../../../client/src/template';
import { type CatalogModel, publicModel } from '../../models/catalog';
import { DEFAULT_MAX_TOKENS, MAX_STOP_SEQUENCES, MAX_TOKENS } from '../../domain/run-rules';
import { ModelCallError, ModelError } from '../../models/errors';
import type { Models } from '../../models/models';
import type { ModelAnswer, ModelRequest } from '../../models/provider';
import { runIdAt, runWrite } from '../../table/runs';
import type { Table } from '../../table/table';
import { budgetOf, estimatedTokens, reserveTokens, settlementWrite } from '../budget/model-budget';
import { InvalidRunError, RunFailedError } from './errors';
import { checkOutput, jsonSchemaOf, type OutputField, outputFieldsOf, outputInstruction } from './output-schema';
import { type RunParams, type RunRecord, type RunSource, type SentParams, costOf } from './run-record';
import { ReadItems, resolveSource, sourceKeys } from './sources';
import { storedRun } from './stored-run';

/**
 * THE run of a prompt on a model (docs/runs.md "Runs"): the management API's `POST /api/accounts/{a}/runs`, the CLI's `prompts
 * run` and the experiments' workers all run prompts through it. In order: the account and the source, read in one
 * BatchGetItem; the model, the parameters and the variables checked (400s name the field); the messages compiled by
 * the one template compiler (client/src/template.ts); the tokens it could use reserved from the account's budget
 * (one transaction; 429 when they do not fit); the model called (retries of throttling are the provider's, within
 * the run's deadline); then the run written and its tokens settled to what the model reported, in one more
 * transaction. Three store operations a run, whatever it comes to; a failed model call is kept as a failed run and
 * thrown as a RunFailedError carrying it.
 */
export interface RunDependencies {
  /** The table for the reads and the reservation, with the caller's deadline for its calls. */
  readonly table: Table;
  /** The table for the record, made once the model has answered (the caller's deadline may have passed by then); `table` when absent. */
  readonly recordTable?: () => Table;
  readonly models: Models;
  /** How long the model may take, retries included: 120 s. */
  readonly deadlineMs?: number;
}

export const RUN_DEADLINE_MS = 120_000;
/** The run function's timeout: the model's 120 s, then the run's record (lib/management-api.ts, and npm start's gateway). */
export const RUN_FUNCTION_TIMEOUT_MS = RUN_DEADLINE_MS + 30_000;

export interface RunAsk {
  readonly accountId: string;
  readonly source: RunSource;
  /** Every placeholder's value, each a string; names are data. */
  readonly variables: Readonly<Record<string, unknown>>;
  readonly model?: string;
  readonly params?: RunParams;
  /** Who runs it: a person's email, or `cli:<operator>`. */
  readonly by: string;
}

export interface RunStart {
  readonly runId: string;
  readonly model: string;
  readonly provider: CatalogModel['provider'];
}

export interface RunListener {
  /** The run is checked, its tokens reserved, and the model is about to be called. */
  readonly onStart?: (start: RunStart) => void;
  /** A piece of the answer, as the model writes it. */
  readonly onDelta?: (text: string) => void;
  /** The caller has gone: the model call stops, and the run is kept as failed. */
  readonly signal?: AbortSignal;
}

/** The name of the forced tool (or response format) structured output is asked through. */
export const STRUCTURED_OUTPUT_NAME = 'structured_output';

export async function runPrompt(deps: RunDependencies, ask: RunAsk, listener: RunListener = {}): Promise<RunRecord> {
  const variables = stringVariables(ask.variables);
  const items = new ReadItems(await deps.table.batchGet(sourceKeys(ask.accountId, ask.source)));
  const { account, source } = resolveSource(ask.accountId, ask.source, items);
  const model = chooseModel(deps.models, ask.model, source.config.model);
  const params = sentParams(ask.params ?? {}, source.config.temperature, model);
  const fields = outputFieldsOf(source.config.schema);
  const messages = compile(source, variables, fields, model);
  const request: ModelRequest = {
    model,
    system: messages.system,
    user: messages.user,
    params,
    ...(fields.length > 0 && model.structuredOutput
      ? { output: { name: STRUCTURED_OUTPUT_NAME, description: 'The answer, as one JSON object', schema: jsonSchemaOf(fields) } }
      : {}),
  };

  const startedAt = deps.table.now();
  const reservation = await reserveTokens(
    deps.table,
    ask.accountId,
    budgetOf(account),
    estimatedTokens(messages.system, messages.user) + params.maxTokens,
    startedAt,
  );
  const at = startedAt.toISOString();
  const runId = runIdAt(at, randomBytes(4).toString('hex'));
  listener.onStart?.({ runId, model: model.modelId, provider: model.provider });

  let answer: ModelAnswer | undefined;
  let failure: ModelCallError | undefined;
  // What the model wrote, and when, kept for a run that fails after it started writing.
  const calledAt = performance.now();
  let written = '';
  let firstAt: number | undefined;
  try {
    answer = await deps.models.converse(request, {
      deadline: Date.now() + (deps.deadlineMs ?? RUN_DEADLINE_MS),
      onDelta: (text) => {
        firstAt ??= performance.now();
        written += text;
        listener.onDelta?.(text);
      },
      ...(listener.signal ? { signal: listener.signal } : {}),
    });
  } catch (error) {
    if (!(error instanceof ModelCallError)) throw error;
    failure = listener.signal?.aborted ? callerGone(error) : error;
  }
  const elapsed = (at: number) => Math.round(at - calledAt);

  const json = answer === undefined ? undefined : (answer.toolInput ?? parsedJson(answer.text));
  // A call that failed after the model wrote some of its answer was billed for it: counted as the stand-in counts.
  const usage =
    answer?.usage ??
    (written === ''
      ? { inputTokens: 0, outputTokens: 0 }
      : { inputTokens: estimatedTokens(messages.system, messages.user), outputTokens: estimatedTokens(written) });
  const run: RunRecord = {
    runId,
    promptId: source.promptId,
    version: source.version,
    label: source.label,
    provider: model.provider,
    model: model.modelId,
    params,
    variables,
    messages: [
      { role: 'system', content: messages.system },
      { role: 'user', content: messages.user },
    ],
    output: { text: answer?.text ?? written, json: json ?? null },
    schema: fields.length === 0 || answer === undefined ? null : checkOutput(json, fields),
    usage,
    costUsd: costOf(usage, publicModel(model)),
    latencyMs: answer?.latencyMs ?? elapsed(performance.now()),
    firstTokenMs: answer ? answer.firstTokenMs : firstAt === undefined ? null : elapsed(firstAt),
    stopReason: answer?.stopReason ?? null,
    attempts: answer?.attempts ?? failure?.attempts ?? 1,
    state: failure ? 'failed' : 'completed',
    error: failure ? { code: failure.code, message: failure.message } : null,
    by: ask.by,
    at,
  };
  await (deps.recordTable?.() ?? deps.table).transact('recordRun', [
    runWrite(ask.accountId, storedRun(run)),
    settlementWrite(reservation, usage.inputTokens + usage.outputTokens),
  ]);
  if (failure) throw new RunFailedError(run, failure);
  return run;
}

/** A call stopped because the caller went away: so the run's record says, not what the stopped call looked like. */
function callerGone(error: ModelCallError): ModelCallError {
  const gone = new ModelError('stopped: the caller went away before the model finished');
  gone.attempts = error.attempts;
  gone.answered = error.answered;
  return gone;
}

/** Each value a string (a number is not), copied into a table that inherits nothing: the names are the caller's. */
function stringVariables(given: Readonly<Record<string, unknown>>): Record<string, string> {
  const variables: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(given)) {
    if (typeof value !== 'string') throw new InvalidRunError('must be a string', `variables.${name}`);
    variables[name] = value;
  }
  return variables;
}

/** The model named, else the prompt's own when the catalog has it, else a 400 listing the catalog. */
function chooseModel(models: Models, named: string | undefined, promptModel: string): CatalogModel {
  const catalog = models.catalog.map((model) => model.modelId).join(', ');
  if (named !== undefined) {
    const model = models.find(named);
    if (!model) throw new InvalidRunError(`${named} is not in the stack's catalog: ${catalog}`, 'model');
    return model;
  }
  const model = models.find(promptModel);
  if (!model) throw new InvalidRunError(`name one: the prompt's model ${promptModel} is not in the stack's catalog: ${catalog}`, 'model');
  return model;
}

/**
 * The parameters sent. A temperature asked above what the model takes is a 400; the prompt's own, above it (a prompt
 * written for OpenAI's 0 to 2, run on Bedrock), is sent as the model's highest, and the run says so in its params.
 */
function sentParams(params: RunParams, promptTemperature: number, model: CatalogModel): SentParams {
  const range = (field: string, value: number | undefined, min: number, max: number, integer = false): number | undefined => {
    if (value === undefined) return undefined;
    if (!Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
      throw new InvalidRunError(
        `must be ${integer ? 'a whole number ' : ''}from ${min} to ${max}${field === 'temperature' ? ` (on ${model.modelId})` : ''}`,
        `params.${field}`,
      );
    }
    return value;
  };
  const temperature = range('temperature', params.temperature, 0, Math.min(2, model.maxTemperature)) ?? Math.min(promptTemperature, model.maxTemperature);
  const maxTokens = range('maxTokens', params.maxTokens, 1, MAX_TOKENS, true) ?? DEFAULT_MAX_TOKENS;
  const topP = range('topP', params.topP, 0, 1);
  const stop = params.stop;
  if (stop !== undefined) {
    if (stop.length > MAX_STOP_SEQUENCES) throw new InvalidRunError(`must list at most ${MAX_STOP_SEQUENCES} strings`, 'params.stop');
    if (stop.some((sequence) => typeof sequence !== 'string' || sequence === ''))
      throw new InvalidRunError('must be strings that are not empty', 'params.stop');
  }
  return { temperature, maxTokens, ...(topP === undefined ? {} : { topP }), ...(stop === undefined || stop.length === 0 ? {} : { stop: [...stop] }) };
}

/** The messages as sent: compiled by the one template compiler; structured output asked in words where the model has no other way. */
function compile(
  source: { readonly promptId: string | null; readonly systemMessage: string; readonly userMessage: string },
  variables: Readonly<Record<string, string>>,
  fields: readonly OutputField[],
  model: CatalogModel,
): { system: string; user: string } {
  let compiled: { systemMessage: string; userMessage: string };
  try {
    compiled = new PromptTemplate(source.promptId ?? 'the prompt', source.systemMessage, source.userMessage).compile(variables);
  } catch (error) {
    if (!(error instanceof TemplateVariablesError)) throw error;
    const missing = error.missing[0] ?? error.invalid[0] ?? '';
    throw new InvalidRunError(`needs a value: the prompt has the placeholder \${${missing}}`, `variables.${missing}`);
  }
  if (compiled.userMessage.trim() === '') throw new InvalidRunError('the user message is empty once its variables are filled in', 'source');
  const system =
    fields.length > 0 && !model.structuredOutput ? [compiled.systemMessage, outputInstruction(fields)].filter(Boolean).join('\n\n') : compiled.systemMessage;
  return { system, user: compiled.userMessage };
}

/** The answer parsed, when it is JSON; undefined when it is not. */
function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
