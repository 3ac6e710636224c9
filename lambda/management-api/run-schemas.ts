import * as z from 'zod';
import { LABEL_PATTERN, LABEL_RULE } from '../domain/label';
import { MAX_MODEL_LENGTH } from '../domain/content-rules';
import { MAX_STOP_SEQUENCES, MAX_TOKENS } from '../features/runs/run-prompt';
import type { RunSource } from '../features/runs/run-record';
import { PromptId, Version, VersionContentBody } from './schemas';

/**
 * What `POST /api/accounts/{a}/runs` takes (docs/runs.md "Runs"): its source, the variables, the model and the
 * parameters. What needs the prompt or the catalog to decide (a placeholder without a value, a model the catalog
 * does not hold, a temperature above the model's) is the run operation's, which names the field all the same.
 */

/** The most variables a run takes, and the longest value: far past any prompt's, short of a body a function refuses. */
export const MAX_RUN_VARIABLES = 200;
export const MAX_VARIABLE_LENGTH = 100_000;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Names are the caller's (`__proto__` too): checked as data, never copied here; the run copies them into a table of names. */
const Variables = z.custom<Readonly<Record<string, unknown>>>(isObject, { error: 'must be an object of strings' }).superRefine((variables, context) => {
  const names = Object.keys(variables);
  if (names.length > MAX_RUN_VARIABLES) context.addIssue({ code: 'custom', message: `must have at most ${MAX_RUN_VARIABLES} variables` });
  for (const name of names) {
    const value = variables[name];
    if (typeof value !== 'string') context.addIssue({ code: 'custom', path: [name], message: 'must be a string' });
    else if (value.length > MAX_VARIABLE_LENGTH)
      context.addIssue({ code: 'custom', path: [name], message: `must be at most ${MAX_VARIABLE_LENGTH} characters` });
  }
});

const RunLabel = z.string().regex(LABEL_PATTERN, { error: `must be a label: ${LABEL_RULE}, or latest` });

const Source = z
  .strictObject({
    promptId: PromptId.optional(),
    version: Version.optional(),
    label: RunLabel.optional(),
    prompt: VersionContentBody.optional(),
  })
  .superRefine((source, context) => {
    const given = (['version', 'label', 'prompt'] as const).filter((field) => source[field] !== undefined);
    if (given.length !== 1) context.addIssue({ code: 'custom', message: 'give one of version, label (each with promptId) or prompt' });
    else if (given[0] !== 'prompt' && source.promptId === undefined)
      context.addIssue({ code: 'custom', path: ['promptId'], message: `is required with ${given[0]}` });
  });

const Params = z.strictObject({
  temperature: z.number({ error: 'must be a number' }).min(0, { error: 'must be from 0 to 2' }).max(2, { error: 'must be from 0 to 2' }).optional(),
  maxTokens: z
    .number({ error: 'must be a whole number' })
    .int({ error: 'must be a whole number' })
    .min(1, { error: `must be from 1 to ${MAX_TOKENS}` })
    .max(MAX_TOKENS, { error: `must be from 1 to ${MAX_TOKENS}` })
    .optional(),
  topP: z.number({ error: 'must be a number' }).min(0, { error: 'must be from 0 to 1' }).max(1, { error: 'must be from 0 to 1' }).optional(),
  stop: z
    .array(z.string().min(1, { error: 'must not be empty' }).max(100, { error: 'must be at most 100 characters' }), { error: 'must be a list of strings' })
    .max(MAX_STOP_SEQUENCES, { error: `must list at most ${MAX_STOP_SEQUENCES} strings` })
    .optional(),
});

export const RunBody = z.strictObject({
  source: Source,
  variables: Variables.default({}),
  model: z
    .string({ error: 'must be a model id of the catalog (GET .../models)' })
    .min(1, { error: 'must not be empty' })
    .max(MAX_MODEL_LENGTH, { error: `must be at most ${MAX_MODEL_LENGTH} characters` })
    .optional(),
  params: Params.optional(),
});

export type RunBodyInput = z.output<typeof RunBody>;

/** The source as the run operation takes it. */
export function runSourceOf(source: RunBodyInput['source']): RunSource {
  if (source.prompt !== undefined) return { prompt: source.prompt, ...(source.promptId === undefined ? {} : { promptId: source.promptId }) };
  if (source.promptId === undefined) throw new Error('a stored source names its prompt (RunBody checks it)');
  if (source.version !== undefined) return { promptId: source.promptId, version: source.version };
  if (source.label !== undefined) return { promptId: source.promptId, label: source.label };
  throw new Error('a source is a version, a label or a prompt (RunBody checks it)');
}

/** The runs list's query: one prompt's, and the cursor of the page before. */
export const RunsQuery = z.object({
  promptId: PromptId.optional(),
  before: z
    .string()
    .regex(/^run_\d{8}T\d{9}Z_[0-9a-f]{8}$/, { error: 'must be the `next` of the page before' })
    .optional(),
});
