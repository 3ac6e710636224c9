import * as z from 'zod/mini';
import { LABEL_PATTERN, LABEL_RULE } from '../../domain/label';
import { MAX_MODEL_LENGTH } from '../../domain/content-rules';
import {
  MAX_RUN_VARIABLES,
  MAX_STOP_LENGTH,
  MAX_STOP_SEQUENCES,
  MAX_TOKENS,
  MAX_VARIABLE_LENGTH,
  MODEL_ERROR_CODES,
  PROVIDERS,
  RUN_ID_PATTERN,
  STOP_REASONS,
} from '../../domain/run-rules';
import { contract, described, jsonShaped, named } from '../contract';
import { PromptId, Version } from '../fields';
import { VersionContentBody } from './prompt-contracts';

/**
 * Runs of prompts on models (docs/runs.md "Runs"): what `POST .../runs` takes (its source, the variables, the model
 * and the parameters) and every run answer. What needs the prompt or the catalog to decide (a placeholder without a
 * value, a model the catalog does not hold, a temperature above the model's) is the run operation's, which names the
 * field all the same.
 */

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Names are the caller's (`__proto__` too): checked as data, never copied here (a parsed record would assign each
 * name as a key); the run copies them into a table of names.
 */
const Variables = jsonShaped(
  z.custom<Readonly<Record<string, unknown>>>(isObject, { error: 'must be an object of strings' }).check(
    z.superRefine((variables, context) => {
      const names = Object.keys(variables);
      if (names.length > MAX_RUN_VARIABLES) context.addIssue({ code: 'custom', message: `must have at most ${MAX_RUN_VARIABLES} variables`, input: variables });
      for (const name of names) {
        const value = variables[name];
        if (typeof value !== 'string') context.addIssue({ code: 'custom', path: [name], message: 'must be a string', input: value });
        else if (value.length > MAX_VARIABLE_LENGTH)
          context.addIssue({ code: 'custom', path: [name], message: `must be at most ${MAX_VARIABLE_LENGTH} characters`, input: value });
      }
    }),
  ),
  {
    type: 'object',
    additionalProperties: { type: 'string', maxLength: MAX_VARIABLE_LENGTH },
    maxProperties: MAX_RUN_VARIABLES,
    description: "Each placeholder's value, by name",
  },
);

/** A label to run, `latest` included (the version last published). */
const RunLabel = z.string().check(z.regex(LABEL_PATTERN, { error: `must be a label: ${LABEL_RULE}, or latest` }));

const Source = z
  .strictObject({
    promptId: z.optional(PromptId),
    version: z.optional(Version),
    label: z.optional(RunLabel),
    prompt: z.optional(described('Content not saved: what the editor holds', VersionContentBody)),
  })
  .check(
    z.superRefine((source, context) => {
      const given = (['version', 'label', 'prompt'] as const).filter((field) => source[field] !== undefined);
      if (given.length !== 1) context.addIssue({ code: 'custom', message: 'give one of version, label (each with promptId) or prompt', input: source });
      else if (given[0] !== 'prompt' && source.promptId === undefined)
        context.addIssue({ code: 'custom', path: ['promptId'], message: `is required with ${given[0]}`, input: source });
    }),
  );

const between = (min: number, max: number, whole: boolean) => {
  const error = `must be ${whole ? 'a whole number ' : ''}from ${min} to ${max}`;
  const number = z.number({ error });
  return whole ? number.check(z.int({ error }), z.gte(min, { error }), z.lte(max, { error })) : number.check(z.gte(min, { error }), z.lte(max, { error }));
};

const Params = z.strictObject({
  temperature: z.optional(described("The prompt's temperature when absent", between(0, 2, false))),
  maxTokens: z.optional(described('1,024 when absent', between(1, MAX_TOKENS, true))),
  topP: z.optional(between(0, 1, false)),
  stop: z.optional(
    z
      .array(
        z
          .string({ error: 'must be a string' })
          .check(z.minLength(1, { error: 'must not be empty' }), z.maxLength(MAX_STOP_LENGTH, { error: `must be at most ${MAX_STOP_LENGTH} characters` })),
        { error: 'must be a list of strings' },
      )
      .check(z.maxLength(MAX_STOP_SEQUENCES, { error: `must list at most ${MAX_STOP_SEQUENCES} strings` })),
  ),
});

export const RunBody = named(
  'RunRequest',
  z.strictObject({
    source: described('A version or a label of a stored prompt (with promptId), or unsaved content (prompt)', Source),
    variables: z._default(Variables, {}),
    model: z.optional(
      described(
        "A model id of the catalog (GET /api/accounts/{accountId}/models); the prompt's config.model when absent and the catalog holds it",
        z
          .string({ error: 'must be a model id of the catalog (GET /api/accounts/{accountId}/models)' })
          .check(z.minLength(1, { error: 'must not be empty' }), z.maxLength(MAX_MODEL_LENGTH, { error: `must be at most ${MAX_MODEL_LENGTH} characters` })),
      ),
    ),
    params: z.optional(Params),
  }),
);

const Provider = z.enum(PROVIDERS);

const runFields = {
  runId: z.string(),
  promptId: z.nullable(z.string()),
  version: z.nullable(z.string()),
  label: z.nullable(z.string()),
  provider: Provider,
  model: z.string(),
  params: z.strictObject({
    temperature: z.number(),
    maxTokens: z.int(),
    topP: z.optional(z.number()),
    stop: z.optional(z.array(z.string())),
  }),
  variables: z.record(z.string(), z.string()),
  output: z.strictObject({ text: z.string(), json: described('The output parsed as JSON, or null', z.unknown()) }),
  schema: described(
    "The output checked against the prompt's schema; null when the prompt asks for no structured output",
    z.nullable(z.strictObject({ valid: z.boolean(), errors: z.array(z.string()) })),
  ),
  usage: z.strictObject({ inputTokens: z.int(), outputTokens: z.int() }),
  costUsd: described("At the catalog's prices, in US dollars", z.number()),
  latencyMs: z.int(),
  firstTokenMs: described('Time to the first token the model wrote; null when it wrote none', z.nullable(z.int())),
  stopReason: z.nullable(z.enum(STOP_REASONS)),
  attempts: described('Calls of the model, throttled retries included', z.int().check(z.gte(1))),
  state: z.enum(['completed', 'failed']),
  error: z.nullable(z.strictObject({ code: z.enum(MODEL_ERROR_CODES), message: z.string() })),
  by: described('The email of whoever ran it, or `cli:<operator>`', z.string()),
  at: z.string(),
};

export const Run = named(
  'Run',
  z.strictObject({
    ...runFields,
    messages: described('What was sent to the model', z.array(z.strictObject({ role: z.enum(['system', 'user']), content: z.string() }))),
  }),
);

const RunSummary = named('RunSummary', z.strictObject(runFields));

const RunAnswer = named('RunAnswer', z.strictObject({ run: Run }));

const RunPage = named(
  'RunPage',
  z.strictObject({
    runs: z.array(RunSummary),
    next: described('Pass as `before` for the next page', z.nullable(z.string())),
  }),
);

const ModelList = named(
  'ModelList',
  z.strictObject({
    models: z.array(
      z.strictObject({
        modelId: z.string(),
        provider: Provider,
        name: z.string(),
        streaming: z.boolean(),
        structuredOutput: z.boolean(),
        inputUsdPerMTok: z.number(),
        outputUsdPerMTok: z.number(),
      }),
    ),
  }),
);

/** What each server-sent event of a run carries (docs/runs.md "Runs"): the dashboard and the CLI read them by these. */
export const RunEvents = {
  start: z.strictObject({ runId: z.string(), model: z.string(), provider: Provider }),
  delta: z.strictObject({ text: z.string() }),
  end: z.strictObject({ run: Run }),
  error: z.strictObject({
    error: z.strictObject({ code: z.string(), message: z.string() }),
    run: z.optional(Run),
  }),
} as const;

export const runPrompt = contract({
  method: 'POST',
  path: '/api/accounts/{accountId}/runs',
  summary: 'Run a prompt (a version, a label, or unsaved content) on a model with variables and parameters; the run is kept 90 days',
  description:
    'Refused before it starts: 400 naming the field, 404, 429 BUDGET_EXCEEDED. A model that fails it: 502 MODEL_ERROR, 503 MODEL_THROTTLED, ' +
    "504 MODEL_TIMEOUT, each with the failed run's `runId`.",
  body: RunBody,
  answers: { 200: RunAnswer },
  refusals: [429, 502, 504],
  events:
    'Server-sent events as the model writes: `start` {runId, model, provider}, `delta` {text} for each piece, then `end` {run} or ' +
    '`error` {error: {code, message}, run} (a failed run, kept). Each event is `event: <name>` and one `data:` line of JSON',
});

/** The runs list's query: one prompt's, and the cursor of the page before. */
export const listRuns = contract({
  method: 'GET',
  path: '/api/accounts/{accountId}/runs',
  summary: "The account's runs, newest first, 50 a page, without their messages",
  query: z.object({
    promptId: z.optional(described("One prompt's runs", PromptId)),
    before: z.optional(
      described('The cursor `next` of the previous page', z.string().check(z.regex(RUN_ID_PATTERN, { error: 'must be the `next` of the page before' }))),
    ),
  }),
  answers: { 200: RunPage },
});

export const readRun = contract({
  method: 'GET',
  path: '/api/accounts/{accountId}/runs/{runId}',
  summary: 'A run, with the messages sent',
  answers: { 200: RunAnswer },
});

export const listModels = contract({
  method: 'GET',
  path: '/api/accounts/{accountId}/models',
  summary: "The stack's catalog of models a run may name",
  answers: { 200: ModelList },
});
