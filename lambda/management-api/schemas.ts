import * as z from 'zod';
import { ACCOUNT_ID_PATTERN, ACCOUNT_ID_RULE } from '../domain/account-id';
import { MAX_MODEL_LENGTH, MAX_NESTING_DEPTH, NESTING_RULE, nestsDeeperThan, parseInstant, TEMPERATURE_RANGE } from '../domain/content-rules';
import { isSettableLabel, LABEL_PATTERN, LABEL_RULE } from '../domain/label';
import { PROMPT_ID_PATTERN } from '../domain/prompt';
import { MAX_DESCRIPTION_LENGTH, MAX_PROMPT_NAME_LENGTH, MAX_TAGS, TAG_PATTERN, TAG_RULE } from '../domain/prompt-details';
import { MAX_SCOPE_ENTRIES, SCOPE_ENTRY_PATTERN } from '../domain/prompt-scope';
import { ROLES } from '../domain/roles';
import { isValidPercent, MAX_ROLLOUT_STEPS, MAX_STEP_MINUTES, PERCENT_RULE, ROLLOUT_ID_PATTERN } from '../domain/rollout';
import { ALARM_NAME_RULE, isAlarmName } from '../domain/rollout-rules';
import { CHANGE_REQUEST_ID_PATTERN as REQUEST_ID_PATTERN, CHANGE_REQUEST_STATES as REQUEST_STATES } from '../domain/change-request';
import { VERSION_PATTERN } from '../domain/version';
import { EVENT_TYPES } from '../domain/events';
import { ALL_EVENTS, eventsProblem, MAX_WEBHOOK_DESCRIPTION_LENGTH, MAX_WEBHOOK_URL_LENGTH, SUBSCRIBABLE_EVENT_TYPES } from '../domain/webhook-rules';
import { WEBHOOK_ID_PATTERN } from '../table/webhooks';

/**
 * Every body and parameter the management API takes, in one schema library: the handlers validate
 * with these, and openapi-management.yaml's request bodies are generated from the same ones
 * (z.toJSONSchema; test/openapi holds the file to them). The rules are the seed file's and the CLI's
 * (lambda/domain/): one set of rules, one implementation.
 */

export const PROMPT_ID_RULE = '1 to 128 characters of A-Z a-z 0-9 _ . -';
export const VERSION_RULE = 'MAJOR.MINOR.PATCH (digits, no leading zeros, e.g. 1.2.0)';

export const AccountId = z.string().regex(ACCOUNT_ID_PATTERN, { error: `must be ${ACCOUNT_ID_RULE}` });
export const PromptId = z.string().regex(PROMPT_ID_PATTERN, { error: `must be ${PROMPT_ID_RULE}` });
export const Version = z.string().regex(VERSION_PATTERN, { error: `must be ${VERSION_RULE}` });
const LABEL_ERROR = `must be a label: ${LABEL_RULE}; "latest" is reserved`;
/** Every label name the API takes, in a path or a body: the rule the seed file, the CLI and the read API apply (docs/behaviour-rules.md, "Labels"). */
export const Label = z.string().regex(LABEL_PATTERN, { error: LABEL_ERROR }).refine(isSettableLabel, { error: LABEL_ERROR });
export const KeyId = z.string().regex(/^key_[0-9a-f]{16}$/, { error: 'must be a key id: key_ and 16 hex digits' });
export const UserId = z.string().regex(/^[A-Za-z0-9_.:@+-]{1,128}$/, { error: 'must be a user id, as the members list shows it' });
export const Month = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, { error: 'must be YYYY-MM, e.g. 2026-11' });
export const Role = z.enum(ROLES, { error: `must be one of ${ROLES.join(', ')}` });
export const WebhookId = z.string().regex(WEBHOOK_ID_PATTERN, { error: 'must be a webhook id: wh_ and 16 hex digits' });
export const RequestId = z.string().regex(REQUEST_ID_PATTERN, { error: 'must be a change request id, as the requests list shows it (req_...)' });

const Name = (max: number) =>
  z
    .string()
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(max, { error: `must be at most ${max} characters` });

export const PromptConfig = z.strictObject({
  model: z
    .string()
    .min(1, { error: 'must not be empty' })
    .max(MAX_MODEL_LENGTH, { error: `must be at most ${MAX_MODEL_LENGTH} characters` }),
  temperature: z
    .number({ error: 'must be a number' })
    .min(TEMPERATURE_RANGE.min, { error: `must be from ${TEMPERATURE_RANGE.min} to ${TEMPERATURE_RANGE.max}` })
    .max(TEMPERATURE_RANGE.max, { error: `must be from ${TEMPERATURE_RANGE.min} to ${TEMPERATURE_RANGE.max}` }),
  schema: z
    .array(z.unknown(), { error: 'must be an array' })
    .refine((value) => !nestsDeeperThan(value, MAX_NESTING_DEPTH), { error: NESTING_RULE })
    .default([]),
  inputData: z
    .unknown()
    .refine((value) => !nestsDeeperThan(value, MAX_NESTING_DEPTH), { error: NESTING_RULE })
    .default(null),
  inputDataRootName: z.string().nullable().default(null),
});

export const CreatePromptBody = z.strictObject({ promptId: PromptId, promptName: Name(MAX_PROMPT_NAME_LENGTH) });

export const Tag = z.string().regex(TAG_PATTERN, { error: `must be a tag: ${TAG_RULE}` });

/** A prompt's details (domain/prompt-details.ts): each field given is set; `null` or `""` removes the description, `[]` the tags. */
export const PromptPatchBody = z
  .strictObject({
    promptName: Name(MAX_PROMPT_NAME_LENGTH).optional(),
    description: z
      .string()
      .trim()
      .max(MAX_DESCRIPTION_LENGTH, { error: `must be at most ${MAX_DESCRIPTION_LENGTH} characters` })
      .nullable()
      .optional(),
    tags: z
      .array(Tag)
      .max(MAX_TAGS, { error: `must list at most ${MAX_TAGS} tags` })
      .refine((tags) => new Set(tags).size === tags.length, { error: 'must not list a tag twice' })
      .optional(),
  })
  .refine((change) => Object.keys(change).length > 0, { error: 'give promptName, description or tags' });

/** A day (the whole of it, UTC) or an instant, ISO 8601; read as the instant a filter's bound means. */
const AuditBound = (end: 'from' | 'to') =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?Z)?$/, { error: 'must be a day (2026-11-24) or an instant in UTC (2026-11-24T10:00:00Z)' })
    .transform((text, context) => {
      const instant = text.length === 10 ? `${text}T${end === 'from' ? '00:00:00.000' : '23:59:59.999'}Z` : text;
      const at = new Date(instant);
      if (Number.isNaN(at.getTime()) || !at.toISOString().startsWith(text.slice(0, 10))) {
        context.addIssue({ code: 'custom', message: 'must be a day or an instant that exists' });
        return z.NEVER;
      }
      return at.toISOString();
    });

/** The audit log's query (docs/management-api.md, "The management API": Audit log): the page's cursor, and filters that each narrow the log. */
export const AuditQuery = z.object({
  before: z.string().optional(),
  actor: z.string().trim().min(1, { error: 'must not be empty' }).max(320, { error: 'must be at most 320 characters' }).optional(),
  prompt: PromptId.optional(),
  action: z
    .string()
    .regex(/^[a-z]+(\.[a-z-]+)+$/, { error: 'must be an action such as label.set or version.publish' })
    .max(64)
    .optional(),
  outcome: z.enum(['succeeded', 'failed', 'refused'], { error: 'must be succeeded, failed or refused' }).optional(),
  from: AuditBound('from').optional(),
  to: AuditBound('to').optional(),
});

/** A draft's content; more than 300 KB of it is 413, as for the seed file. */
export const VersionContentBody = z.strictObject({
  systemMessage: z.string({ error: 'must be a string' }),
  userMessage: z.string({ error: 'must be a string' }),
  config: PromptConfig,
});

/** A person's words on a change (a release note, a label move's note, a decision's comment): 1 to 500 characters. */
const Note = z.string().trim().min(1, { error: 'must be 1 to 500 characters' }).max(500, { error: 'must be 1 to 500 characters' });

export const PublishBody = z.strictObject({ note: Note });

/**
 * A label move: the version, a note the label's history keeps as the move's reason, and `restore: true` for a
 * move back to a past version (the history says `restore`). A label under approval opens a change request instead (202).
 */
export const LabelBody = z.strictObject({
  version: Version,
  note: Note.optional(),
  restore: z.boolean({ error: 'must be true or false' }).optional(),
});

export const MAX_REQUIRED_APPROVALS = 5;

/** Labels that move only through approved change requests, and how many distinct approvals (1 to 5, 1 when left out); `labels: []` turns it off. */
export const Approvals = z.strictObject({
  labels: z.array(Label).max(20, { error: 'must list at most 20 labels' }),
  required: z
    .number({ error: `must be a whole number from 1 to ${MAX_REQUIRED_APPROVALS}` })
    .int({ error: `must be a whole number from 1 to ${MAX_REQUIRED_APPROVALS}` })
    .min(1, { error: `must be a whole number from 1 to ${MAX_REQUIRED_APPROVALS}` })
    .max(MAX_REQUIRED_APPROVALS, { error: `must be a whole number from 1 to ${MAX_REQUIRED_APPROVALS}` })
    .optional(),
});

export const AccountPatchBody = z
  .strictObject({
    name: Name(200).optional(),
    protectedLabels: z.array(Label).max(20, { error: 'must list at most 20 labels' }).optional(),
    approvals: Approvals.optional(),
  })
  .refine((body) => body.name !== undefined || body.protectedLabels !== undefined || body.approvals !== undefined, {
    error: 'give name, protectedLabels or approvals',
  });

/** Approving or rejecting a change request: an optional comment (an empty body is `{}`). */
export const DecisionBody = z.strictObject({ comment: Note.optional() });

/** The requests list's query: one state, and the cursor of the page before. */
export const RequestQuery = z.object({
  state: z.enum(REQUEST_STATES, { error: `must be one of ${REQUEST_STATES.join(', ')}` }).optional(),
  before: RequestId.optional(),
});

/** A rollout's share of subjects: 0 to 100, at most two decimals (domain/rollout.ts isValidPercent). */
const Percent = z
  .number({ error: `must be ${PERCENT_RULE}` })
  .min(0, { error: `must be ${PERCENT_RULE}` })
  .max(100, { error: `must be ${PERCENT_RULE}` })
  .refine(isValidPercent, { error: `must be ${PERCENT_RULE}` });

/** A rollout's schedule; that it rises (each step later and above the one before) is the operations' rule (domain/rollout-rules.ts). */
const RolloutSteps = z
  .array(
    z.strictObject({
      percent: Percent,
      afterMinutes: z
        .number({ error: `must be a whole number of minutes from 1 to ${MAX_STEP_MINUTES}` })
        .int({ error: `must be a whole number of minutes from 1 to ${MAX_STEP_MINUTES}` })
        .min(1, { error: `must be a whole number of minutes from 1 to ${MAX_STEP_MINUTES}` })
        .max(MAX_STEP_MINUTES, { error: `must be a whole number of minutes from 1 to ${MAX_STEP_MINUTES}` }),
    }),
  )
  .max(MAX_ROLLOUT_STEPS, { error: `must list at most ${MAX_ROLLOUT_STEPS} steps` });

/** Starting a rollout (docs/rollouts.md): the version it moves the label to, the share that gets it, and optionally a note, steps and a guard alarm. */
export const RolloutStartBody = z.strictObject({
  to: Version,
  percent: Percent,
  note: Note.optional(),
  steps: RolloutSteps.optional(),
  guardAlarm: z
    .string({ error: `must be ${ALARM_NAME_RULE}` })
    .refine(isAlarmName, { error: `must be ${ALARM_NAME_RULE}` })
    .optional(),
});

/**
 * The rollout a change is meant for, as the rollout's answers name it: given and not the label's rollout now (it
 * ended, and maybe another began), the change is refused (409) and nothing changes; absent, the label's rollout.
 */
const MeantRollout = z
  .string({ error: 'must be a rollout id: ro_, 17 digits, _ and 8 hex digits' })
  .regex(ROLLOUT_ID_PATTERN, { error: 'must be a rollout id: ro_, 17 digits, _ and 8 hex digits' });

/** A rollout's new share, and optionally a new schedule (without, the steps still above the new share stay) and the rollout meant. */
export const RolloutChangeBody = z.strictObject({ percent: Percent, steps: RolloutSteps.optional(), rolloutId: MeantRollout.optional() });

/** Completing a rollout: optionally, the rollout meant (an empty body is `{}`). */
export const RolloutCompleteBody = z.strictObject({ rolloutId: MeantRollout.optional() });

/** Aborting a rollout: an optional reason and the rollout meant (an empty body is `{}`). */
export const RolloutAbortBody = z.strictObject({ reason: Note.optional(), rolloutId: MeantRollout.optional() });

const Scope = z
  .array(z.string().regex(SCOPE_ENTRY_PATTERN, { error: 'must be a prompt id or a prefix of one followed by *' }))
  .min(1, { error: 'must list at least one prompt id or prefix' })
  .max(MAX_SCOPE_ENTRIES, { error: `must list at most ${MAX_SCOPE_ENTRIES} prompt ids or prefixes` });
const Instant = z.string().refine((value) => parseInstant(value) !== undefined, {
  error: 'must be an ISO 8601 instant with its time zone, e.g. 2026-12-31T23:59:59Z',
});
const MonthlyLimit = z.number().int({ error: 'must be a whole number of 0 or more' }).min(0, { error: 'must be a whole number of 0 or more' });

export const KeyCreateBody = z.strictObject({
  name: Name(100),
  monthlyLimit: MonthlyLimit.optional(),
  scope: Scope.optional(),
  expiresAt: Instant.optional(),
});

/** `null` clears an own limit, a scope or an expiry. */
export const KeyPatchBody = z
  .strictObject({
    name: Name(100).optional(),
    monthlyLimit: MonthlyLimit.nullable().optional(),
    scope: Scope.nullable().optional(),
    expiresAt: Instant.nullable().optional(),
    disabled: z.boolean({ error: 'must be true or false' }).optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { error: 'give at least one of name, monthlyLimit, scope, expiresAt, disabled' });

export const MAX_GRACE_SECONDS = 30 * 86_400;
export const RotateBody = z.strictObject({
  graceSeconds: z
    .number()
    .int({ error: `must be a whole number of seconds from 0 to ${MAX_GRACE_SECONDS}` })
    .min(0, { error: `must be a whole number of seconds from 0 to ${MAX_GRACE_SECONDS}` })
    .max(MAX_GRACE_SECONDS, { error: `must be a whole number of seconds from 0 to ${MAX_GRACE_SECONDS}` }),
});

/** Where deliveries go: a URL; where it may point (https, a public address) is checked after DNS by the operations. */
const WebhookUrl = z
  .string({ error: 'must be a URL' })
  .max(MAX_WEBHOOK_URL_LENGTH, { error: `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters` })
  .refine((url) => URL.canParse(url), { error: 'must be an absolute URL' });

/** Event types (docs/events.md), each once, or exactly `["*"]` for every one. */
const WebhookEvents = z
  .array(
    z
      .enum([...EVENT_TYPES, ALL_EVENTS], { error: 'must be an event type (docs/events.md lists them) or "*"' })
      .refine((type) => type !== 'webhook.test', { error: 'must not be webhook.test: a test is sent to the webhook tested, whatever it lists' }),
    { error: 'must be a list of event types' },
  )
  .max(SUBSCRIBABLE_EVENT_TYPES.length, { error: `must list at most ${SUBSCRIBABLE_EVENT_TYPES.length} event types` })
  .superRefine((events, context) => {
    const problem = eventsProblem(events);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  });

const WebhookDescription = z
  .string()
  .trim()
  .max(MAX_WEBHOOK_DESCRIPTION_LENGTH, { error: `must be at most ${MAX_WEBHOOK_DESCRIPTION_LENGTH} characters` })
  .nullable();

export const WebhookCreateBody = z.strictObject({ url: WebhookUrl, events: WebhookEvents, description: WebhookDescription.optional() });

/** Each field given is set; `null` or `""` removes the description. */
export const WebhookPatchBody = z
  .strictObject({
    url: WebhookUrl.optional(),
    events: WebhookEvents.optional(),
    enabled: z.boolean({ error: 'must be true or false' }).optional(),
    description: WebhookDescription.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { error: 'give at least one of url, events, enabled, description' });

export const MemberAddBody = z.strictObject({
  email: z.email({ error: 'must be an email address' }).max(254, { error: 'must be at most 254 characters' }),
  role: Role,
});

export const MemberPatchBody = z.strictObject({ role: Role });

/** The request bodies, by the name openapi-management.yaml gives their schemas. */
export const REQUEST_BODIES = {
  CreatePrompt: CreatePromptBody,
  PromptPatch: PromptPatchBody,
  VersionContent: VersionContentBody,
  Publish: PublishBody,
  SetLabel: LabelBody,
  AccountPatch: AccountPatchBody,
  Decision: DecisionBody,
  RolloutStart: RolloutStartBody,
  RolloutChange: RolloutChangeBody,
  RolloutComplete: RolloutCompleteBody,
  RolloutAbort: RolloutAbortBody,
  KeyCreate: KeyCreateBody,
  KeyPatch: KeyPatchBody,
  Rotate: RotateBody,
  WebhookCreate: WebhookCreateBody,
  WebhookPatch: WebhookPatchBody,
  MemberAdd: MemberAddBody,
  MemberPatch: MemberPatchBody,
} as const;
