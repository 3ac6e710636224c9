import * as z from 'zod/mini';
import { isSettableLabel, LABEL_PATTERN, LABEL_RULE } from '../domain/label';
import { PROMPT_ID_PATTERN } from '../domain/prompt';
import { ROLES } from '../domain/roles';
import { isValidPercent, MAX_ROLLOUT_STEPS, MAX_STEP_MINUTES, PERCENT_RULE } from '../domain/rollout';
import { VERSION_PATTERN } from '../domain/version';
import { described } from './contract';

/**
 * The fields several contracts take or answer, in a path or a body, by the rules the seed file and the CLI
 * apply too (lambda/domain/): one set of rules, one implementation.
 */

export const PROMPT_ID_RULE = '1 to 128 characters of A-Z a-z 0-9 _ . -';
export const VERSION_RULE = 'MAJOR.MINOR.PATCH (digits, no leading zeros, e.g. 1.2.0)';

export const PromptId = z.string().check(z.regex(PROMPT_ID_PATTERN, { error: `must be ${PROMPT_ID_RULE}` }));
export const Version = z.string().check(z.regex(VERSION_PATTERN, { error: `must be ${VERSION_RULE}` }));
const LABEL_ERROR = `must be a label: ${LABEL_RULE}; "latest" is reserved`;
/** Every label name the API takes, in a path or a body: the rule the seed file, the CLI and the read API apply (docs/behaviour-rules.md, "Labels"). */
export const Label = z.string().check(z.regex(LABEL_PATTERN, { error: LABEL_ERROR }), z.refine(isSettableLabel, { error: LABEL_ERROR }));
export const Role = z.enum(ROLES, { error: `must be one of ${ROLES.join(', ')}` });

/** A name people give (a prompt's, an account's, a key's): trimmed, 1 to `max` characters. */
export const Name = (max: number) =>
  z.string().check(z.trim(), z.minLength(1, { error: 'must not be empty' }), z.maxLength(max, { error: `must be at most ${max} characters` }));

/** A person's words on a change (a release note, a label move's note, a decision's comment): 1 to 500 characters. */
export const Note = z
  .string()
  .check(z.trim(), z.minLength(1, { error: 'must be 1 to 500 characters' }), z.maxLength(500, { error: 'must be 1 to 500 characters' }));

/** A rollout's share of subjects: 0 to 100, at most two decimals (domain/rollout.ts isValidPercent). */
export const Percent = described(
  'The share of subjects that get `to`: 0 to 100, at most two decimals',
  z
    .number({ error: `must be ${PERCENT_RULE}` })
    .check(
      z.gte(0, { error: `must be ${PERCENT_RULE}` }),
      z.lte(100, { error: `must be ${PERCENT_RULE}` }),
      z.refine(isValidPercent, { error: `must be ${PERCENT_RULE}` }),
    ),
);

const STEP_MINUTES_ERROR = `must be a whole number of minutes from 1 to ${MAX_STEP_MINUTES}`;

/** A rollout's schedule; that it rises (each step later and above the one before) is the operations' rule (domain/rollout-rules.ts). */
export const RolloutSteps = z
  .array(
    z.strictObject({
      percent: Percent,
      afterMinutes: z
        .number({ error: STEP_MINUTES_ERROR })
        .check(z.int({ error: STEP_MINUTES_ERROR }), z.gte(1, { error: STEP_MINUTES_ERROR }), z.lte(MAX_STEP_MINUTES, { error: STEP_MINUTES_ERROR })),
    }),
  )
  .check(z.maxLength(MAX_ROLLOUT_STEPS, { error: `must list at most ${MAX_ROLLOUT_STEPS} steps` }));

/** A version's config as the API answers it: every field, defaults filled in (domain/prompt.ts toConfigBody). */
export const PromptConfigAnswer = z.strictObject({
  model: z.string(),
  temperature: z.number(),
  schema: z.array(z.unknown()),
  inputData: z.unknown(),
  inputDataRootName: z.nullable(z.string()),
});
