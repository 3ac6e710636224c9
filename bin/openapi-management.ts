import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import * as z from 'zod';
import { roleFor } from '../lambda/domain/roles';
import type { ManagementRoute } from '../lambda/management-api/route';
import { ALL_ROUTES } from '../lambda/management-api/routes';
import { RunBody } from '../lambda/management-api/run-schemas';
import { REQUEST_BODIES } from '../lambda/management-api/schemas';

/** The request bodies, by the name their schemas get here: the schemas module's, and the run function's own. */
const BODIES = { ...REQUEST_BODIES, RunRequest: RunBody } as const;

/**
 * openapi-management.yaml, built from the code it describes: the routes (lambda/management-api/routes.ts),
 * who may call each, and the request bodies from the very zod schemas the functions validate with
 * (z.toJSONSchema). The responses are written here. `npm run openapi:management` rewrites the file;
 * test/openapi/management-document.test.ts fails when the file and this differ.
 */

export const MANAGEMENT_OPENAPI_PATH = join(__dirname, '..', 'openapi-management.yaml');

type Schema = Record<string, unknown>;
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });
const str: Schema = { type: 'string' };
const obj = (properties: Record<string, Schema>, required: string[] = Object.keys(properties)): Schema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

const ROLE: Schema = { type: 'string', enum: ['viewer', 'editor', 'admin', 'owner'] };
const CONFIG = obj({
  model: str,
  temperature: { type: 'number' },
  schema: { type: 'array' },
  inputData: {},
  inputDataRootName: nullable(str),
});

const SERVED = obj({
  from: { type: 'integer', description: 'Read requests answered with `from`' },
  to: { type: 'integer', description: 'Read requests answered with `to`' },
});
const PERCENT: Schema = { type: 'number', minimum: 0, maximum: 100, description: 'The share of subjects that get `to`: 0 to 100, at most two decimals' };
const STEPS: Schema = {
  type: 'array',
  items: obj({ percent: PERCENT, afterMinutes: { type: 'integer', minimum: 1, maximum: 10080 } }),
  description: 'Shares scheduled ahead, each `afterMinutes` after the rollout started',
};

/** A run as answered (docs/runs.md "Runs"); a list's runs are without `messages` (GET /api/accounts/{accountId}/runs/{runId} has them). */
const RUN_FIELDS: Record<string, Schema> = {
  runId: str,
  promptId: nullable(str),
  version: nullable(str),
  label: nullable(str),
  provider: { type: 'string', enum: ['bedrock', 'openai', 'local'] },
  model: str,
  params: obj({ temperature: { type: 'number' }, maxTokens: { type: 'integer' }, topP: { type: 'number' }, stop: { type: 'array', items: str } }, [
    'temperature',
    'maxTokens',
  ]),
  variables: { type: 'object', additionalProperties: str },
  messages: { type: 'array', items: obj({ role: { type: 'string', enum: ['system', 'user'] }, content: str }), description: 'What was sent to the model' },
  output: obj({ text: str, json: { description: 'The output parsed as JSON, or null' } }),
  schema: nullable(obj({ valid: { type: 'boolean' }, errors: { type: 'array', items: str } })),
  usage: obj({ inputTokens: { type: 'integer' }, outputTokens: { type: 'integer' } }),
  costUsd: { type: 'number' },
  latencyMs: { type: 'integer' },
  firstTokenMs: nullable({ type: 'integer' }),
  stopReason: nullable(str),
  attempts: { type: 'integer', minimum: 1 },
  state: { type: 'string', enum: ['completed', 'failed'] },
  error: nullable(obj({ code: { type: 'string', enum: ['MODEL_ERROR', 'MODEL_THROTTLED', 'MODEL_TIMEOUT'] }, message: str })),
  by: str,
  at: str,
};
const { messages: _messages, ...RUN_SUMMARY_FIELDS } = RUN_FIELDS;

const RESPONSE_SCHEMAS: Record<string, Schema> = {
  Error: {
    type: 'object',
    properties: {
      error: str,
      code: {
        type: 'string',
        enum: [
          'BAD_REQUEST',
          'UNAUTHORIZED',
          'FORBIDDEN',
          'NOT_FOUND',
          'CONFLICT',
          'PRECONDITION_FAILED',
          'PRECONDITION_REQUIRED',
          'PAYLOAD_TOO_LARGE',
          'SERVICE_UNAVAILABLE',
          'INTERNAL_ERROR',
          'BUDGET_EXCEEDED',
          'MODEL_ERROR',
          'MODEL_THROTTLED',
          'MODEL_TIMEOUT',
        ],
      },
      field: { type: 'string', description: 'The field, parameter or header a 400 is about' },
      used: { type: 'integer', description: "With 429 BUDGET_EXCEEDED: the month's model tokens counted, and held by runs under way" },
      limit: { type: 'integer', description: "With 429 BUDGET_EXCEEDED: the account's monthly budget of model tokens" },
      runId: { type: 'string', description: 'With 502, 503 and 504 of a run: the failed run, kept (GET /api/accounts/{accountId}/runs/{runId})' },
      current: {
        description: 'With 412: the draft as it now stands, so nothing is lost',
        ...obj({ etag: str, updatedAt: str, updatedBy: str }, ['etag']),
      },
    },
    required: ['error', 'code'],
    additionalProperties: false,
  },
  Me: obj({ userId: str, email: str, accounts: { type: 'array', items: obj({ accountId: str, name: str, plan: str, role: ROLE }) } }),
  Account: obj({
    accountId: str,
    name: str,
    plan: str,
    protectedLabels: { type: 'array', items: str },
    approvals: {
      description: 'Labels that move only through approved change requests, and the distinct approvals each needs; `labels: []` when off',
      ...obj({ labels: { type: 'array', items: str }, required: { type: 'integer', minimum: 1, maximum: 5 } }),
    },
    models: {
      description: 'The budget of model tokens per UTC month of runs (owners set it); `monthlyTokens: null` when there is none',
      ...obj({ monthlyTokens: nullable({ type: 'integer', minimum: 1 }) }),
    },
    role: ROLE,
  }),
  PromptListEntry: obj({
    promptId: str,
    promptName: str,
    description: nullable(str),
    tags: { type: 'array', items: str },
    deleted: { type: 'boolean' },
    latestVersion: nullable(str),
    labels: { type: 'object', additionalProperties: str },
    drafts: { type: 'array', items: str },
    updatedAt: nullable(str),
    updatedBy: nullable(str),
  }),
  PromptList: obj({ prompts: { type: 'array', items: ref('PromptListEntry') } }),
  PromptDetails: obj({ promptId: str, promptName: str, description: nullable(str), tags: { type: 'array', items: str } }),
  VersionSummary: obj({
    version: str,
    published: { type: 'boolean' },
    publishedAt: nullable(str),
    publishedBy: nullable(str),
    note: nullable(str),
    updatedAt: nullable(str),
    updatedBy: nullable(str),
  }),
  PromptDetail: obj({
    promptId: str,
    promptName: str,
    description: nullable(str),
    tags: { type: 'array', items: str },
    deleted: { type: 'boolean' },
    latestVersion: nullable(str),
    labels: { type: 'object', additionalProperties: str },
    updatedAt: nullable(str),
    updatedBy: nullable(str),
    versions: { type: 'array', items: ref('VersionSummary') },
  }),
  Version: obj({
    version: str,
    published: { type: 'boolean' },
    systemMessage: str,
    userMessage: str,
    config: CONFIG,
    etag: { type: 'string', description: 'The strong ETag, as in the ETag header' },
    updatedAt: nullable(str),
    updatedBy: nullable(str),
  }),
  LabelSet: obj({ label: str, version: str, previous: nullable(str) }),
  LabelHistoryEntry: obj(
    {
      at: str,
      by: { type: 'string', description: "The person's email, or `cli:<operator>`" },
      from: nullable({ type: 'string', description: 'The version before; null: no label' }),
      to: nullable({ type: 'string', description: 'The version after; null: removed' }),
      reason: nullable({
        type: 'string',
        description:
          'How: the note given, `restore` (`restore: <note>`), `push`, `request <requestId>`, `rollout <rolloutId>`, `import`; null for a move without a note',
      }),
      rollout: {
        description:
          "On a rollout's entries: which, what happened to it (the label moves only when one completes), its share, where it moves the label, and once ended what each side served",
        ...obj(
          {
            rolloutId: str,
            event: { type: 'string', enum: ['started', 'changed', 'completed', 'aborted'] },
            percent: PERCENT,
            to: str,
            served: SERVED,
          },
          ['rolloutId', 'event', 'percent', 'to'],
        ),
      },
    },
    ['at', 'by', 'from', 'to', 'reason'],
  ),
  LabelHistoryPage: obj(
    {
      entries: { type: 'array', items: ref('LabelHistoryEntry') },
      next: { type: 'string', description: 'Pass as `before` for the next page; absent on the last' },
    },
    ['entries'],
  ),
  ChangeRequest: obj(
    {
      requestId: str,
      promptId: str,
      label: str,
      from: nullable({ type: 'string', description: 'Where the label pointed when asked; null: nowhere' }),
      to: nullable({ type: 'string', description: 'Where it would point; null: the label removed' }),
      note: nullable(str),
      restore: { type: 'boolean', description: 'Asked as a restore of a past version' },
      requestedBy: { type: 'string', description: "The requester's email, or `cli:<operator>` (a push)" },
      requestedAt: str,
      required: { type: 'integer', description: 'Distinct approvals it needs (the account setting when asked)' },
      approvals: {
        type: 'array',
        description:
          'Every approval given, in order. An approval counts while its giver may still give it: a member whose role may approve a change of the label now (protected labels: admins). One from someone demoted or removed since stays listed, not counting, and counts again if they get the role back while the request is open; once the request closes, each approval keeps how it stood then',
        items: obj({
          by: str,
          at: str,
          comment: nullable(str),
          counts: {
            type: 'boolean',
            description: 'Whether it counts toward `required`: now, while the request is open; when it closed, once closed',
          },
          role: nullable({ ...ROLE, description: "The approver's role in the account (now, or when the request closed); null: not a member" }),
          why: nullable({
            type: 'string',
            description:
              'Why it does not count, as what the approver is (`a viewer, and approving a change of production needs the admin role`, `not a member of the account`); null when it counts',
          }),
        }),
      },
      state: { type: 'string', enum: ['open', 'applied', 'rejected', 'withdrawn', 'stale'] },
      decision: nullable({
        description: 'Who took it out of open: the approver who applied it or found it stale, the rejecter, or the requester who withdrew it',
        ...obj({ by: str, at: str, comment: nullable(str) }),
      }),
      rollout: {
        description: 'On a request to start a rollout to `to` rather than move the label: the approval that applies it starts the rollout',
        ...obj({ percent: PERCENT, steps: STEPS, guardAlarm: nullable(str) }),
      },
    },
    ['requestId', 'promptId', 'label', 'from', 'to', 'note', 'restore', 'requestedBy', 'requestedAt', 'required', 'approvals', 'state', 'decision'],
  ),
  ChangeRequestAnswer: obj({ request: ref('ChangeRequest') }),
  Rollout: obj(
    {
      rolloutId: str,
      promptId: str,
      label: str,
      from: { type: 'string', description: 'The version the label points at, which the rest of subjects get' },
      to: { type: 'string', description: 'The version `percent` of subjects get' },
      percent: PERCENT,
      startedAt: str,
      startedBy: { type: 'string', description: "The starter's email, or `cli:<operator>`" },
      note: nullable(str),
      served: { description: "Read requests answered with each side, summed over the account's keys (frozen when it ended)", ...SERVED },
      steps: STEPS,
      guardAlarm: nullable({ type: 'string', description: 'The CloudWatch alarm whose change to ALARM aborts it (deployed)' }),
      state: { type: 'string', enum: ['active', 'completed', 'aborted'] },
      endedAt: str,
      endedBy: str,
    },
    ['rolloutId', 'promptId', 'label', 'from', 'to', 'percent', 'startedAt', 'startedBy', 'note', 'served', 'steps', 'guardAlarm', 'state'],
  ),
  RolloutAnswer: obj({ rollout: ref('Rollout') }),
  ChangeRequestList: obj(
    {
      requests: { type: 'array', items: ref('ChangeRequest') },
      next: { type: 'string', description: 'Pass as `before` for the next page; absent on the last' },
    },
    ['requests'],
  ),
  RequestSide: obj({ version: str, systemMessage: str, userMessage: str, config: CONFIG }),
  ChangeRequestDetail: obj({
    request: ref('ChangeRequest'),
    fromVersion: nullable(ref('RequestSide')),
    toVersion: nullable(ref('RequestSide')),
    placeholders: {
      description: 'Placeholders (`${name}`) of the messages the move adds and takes away',
      ...obj({ added: { type: 'array', items: str }, removed: { type: 'array', items: str } }),
    },
  }),
  PromptVisibility: obj({ promptId: str, deleted: { type: 'boolean' } }),
  Key: obj(
    {
      keyId: str,
      name: nullable(str),
      displayPrefix: nullable(str),
      state: { type: 'string', enum: ['active', 'disabled', 'expired', 'revoked'] },
      limit: { type: 'integer' },
      monthlyLimit: nullable({ type: 'integer' }),
      scope: nullable({ type: 'array', items: str }),
      expiresAt: nullable(str),
      createdAt: nullable(str),
      createdBy: nullable(str),
      usedThisMonth: { type: 'integer' },
    },
    ['keyId', 'name', 'displayPrefix', 'state', 'monthlyLimit', 'scope', 'expiresAt', 'createdAt', 'createdBy'],
  ),
  KeyList: obj({ keys: { type: 'array', items: ref('Key') } }),
  KeyCreated: obj({ key: ref('Key'), apiKey: { type: 'string', description: 'The key itself: in this answer only, never again' } }),
  KeyRotated: obj({ key: ref('Key'), apiKey: { type: 'string', description: 'The new key: in this answer only' }, retired: ref('Key') }),
  Usage: obj({
    month: str,
    keys: {
      type: 'array',
      items: obj({
        keyId: str,
        name: nullable(str),
        used: { type: 'integer' },
        limit: { type: 'integer' },
        days: nullable({
          type: 'object',
          additionalProperties: { type: 'integer' },
          description: 'Count per UTC day, `01` to `31`; null for months before the last two',
        }),
      }),
    },
    modelTokens: { type: 'integer', description: "The month's model tokens of runs (input and output), counted against the budget" },
    modelTokensByDay: { type: 'object', additionalProperties: { type: 'integer' }, description: 'Model tokens per UTC day, `01` to `31`, of days with any' },
  }),
  Member: obj({ userId: str, email: str, role: ROLE, addedAt: str, addedBy: str }),
  MemberList: obj({ members: { type: 'array', items: ref('Member') } }),
  MemberAdded: obj(
    { member: ref('Member'), temporaryPassword: { type: 'string', description: 'Only where the pool sends no invitation (locally); shown once' } },
    ['member'],
  ),
  AuditEntry: obj(
    {
      entryId: str,
      at: str,
      actor: {
        oneOf: [
          obj({ type: { const: 'user' }, userId: str, email: str }),
          obj({ type: { const: 'cli' }, operator: str }),
          obj({ type: { const: 'system' }, name: { type: 'string', enum: ['rollout-steps', 'guard-alarm'] } }),
        ],
      },
      action: str,
      target: { type: 'object', additionalProperties: str },
      requested: { description: "The change asked for (a request's body, strings cut at 200 characters, 4 levels, 100 values), never a key's secret" },
      before: { type: 'object' },
      after: { type: 'object' },
      outcome: {
        type: 'string',
        enum: ['succeeded', 'failed', 'refused', 'pending'],
        description:
          "`succeeded`: written in the change's own transaction; `refused`: nothing changed; `failed`: a step outside the transaction (the user pool) went wrong. `pending` only on entries written before every change was one transaction",
      },
      reason: obj({ code: str, message: str }),
      settledAt: str,
    },
    ['entryId', 'at', 'actor', 'action', 'target', 'outcome'],
  ),
  Webhook: obj(
    {
      webhookId: str,
      url: str,
      events: { type: 'array', items: str, description: 'Event types (docs/events.md), or `["*"]` for every one' },
      enabled: { type: 'boolean' },
      description: nullable(str),
      createdAt: str,
      createdBy: str,
      updatedAt: str,
      secretRotatedAt: nullable({ type: 'string', description: 'When the current secret replaced another; null if never rotated' }),
      previousSecretExpiresAt: nullable({ type: 'string', description: 'Until when the secret it replaced still signs deliveries too' }),
    },
    ['webhookId', 'url', 'events', 'enabled', 'description', 'createdAt', 'createdBy', 'updatedAt', 'secretRotatedAt', 'previousSecretExpiresAt'],
  ),
  WebhookList: obj({ webhooks: { type: 'array', items: ref('Webhook') } }),
  WebhookWithSecret: obj({
    webhook: ref('Webhook'),
    secret: { type: 'string', description: 'The signing secret (`whsec_` + base64 of 32 bytes): in this answer only, never again' },
  }),
  WebhookTestSent: obj({ eventId: { type: 'string', description: "The `webhook.test` event's id: its delivery carries it as `webhook-id`" } }),
  DeliveryList: obj({
    deliveries: {
      type: 'array',
      description: 'The last 100 attempts, newest first',
      items: obj(
        {
          deliveryId: str,
          eventId: str,
          type: str,
          attempt: { type: 'integer', minimum: 1 },
          at: str,
          status: nullable({ type: 'integer', description: "The receiver's HTTP status; null when it did not answer" }),
          durationMs: { type: 'integer' },
          error: str,
        },
        ['deliveryId', 'eventId', 'type', 'attempt', 'at', 'status', 'durationMs'],
      ),
    },
  }),
  Run: obj(RUN_FIELDS),
  RunSummary: obj(RUN_SUMMARY_FIELDS),
  RunAnswer: obj({ run: ref('Run') }),
  RunPage: obj({
    runs: { type: 'array', items: ref('RunSummary') },
    next: nullable({ type: 'string', description: 'Pass as `before` for the next page' }),
  }),
  ModelList: obj({
    models: {
      type: 'array',
      items: obj({
        modelId: str,
        provider: { type: 'string', enum: ['bedrock', 'openai', 'local'] },
        name: str,
        streaming: { type: 'boolean' },
        structuredOutput: { type: 'boolean' },
        inputUsdPerMTok: { type: 'number' },
        outputUsdPerMTok: { type: 'number' },
      }),
    },
  }),
  AuditPage: obj({
    entries: { type: 'array', items: ref('AuditEntry') },
    next: nullable({ type: 'string', description: 'Pass as `before` for the next page' }),
  }),
};

interface Operation {
  readonly summary: string;
  readonly ok: Record<number, string | undefined>;
  readonly statuses?: readonly number[];
  readonly body?: keyof typeof BODIES;
  /** Also answers `Accept: text/event-stream` with server-sent events, as this says. */
  readonly events?: string;
  readonly etag?: boolean;
  readonly ifMatch?: boolean;
  readonly ifNoneMatch?: boolean;
  readonly query?: readonly { name: string; description: string }[];
}

const OPERATIONS: Record<string, Operation> = {
  'GET /api/me': { summary: 'The signed-in user and their accounts', ok: { 200: 'Me' } },
  'GET /api/accounts/{accountId}': { summary: 'The account', ok: { 200: 'Account' } },
  'PATCH /api/accounts/{accountId}': {
    summary: 'Change the name, the protected labels, the approvals or the budget of model tokens (owners)',
    ok: { 200: 'Account' },
    body: 'AccountPatch',
  },
  'GET /api/accounts/{accountId}/prompts': { summary: 'Every prompt, drafts-only and deleted ones included', ok: { 200: 'PromptList' } },
  'POST /api/accounts/{accountId}/prompts': { summary: 'Create a prompt', ok: { 201: 'PromptListEntry' }, statuses: [409], body: 'CreatePrompt' },
  'GET /api/accounts/{accountId}/prompts/{promptId}': { summary: 'A prompt with every version and its labels', ok: { 200: 'PromptDetail' } },
  'PATCH /api/accounts/{accountId}/prompts/{promptId}': {
    summary: "Change the prompt's name, description or tags (the read API serves the new name from the next request)",
    ok: { 200: 'PromptDetails' },
    body: 'PromptPatch',
  },
  'GET /api/accounts/{accountId}/prompts/{promptId}/versions/{version}': { summary: "A version's content", ok: { 200: 'Version' }, etag: true },
  'PUT /api/accounts/{accountId}/prompts/{promptId}/versions/{version}': {
    summary: 'Create (If-None-Match: *) or replace (If-Match) a draft',
    ok: { 200: 'Version', 201: 'Version' },
    statuses: [409, 412, 413, 428],
    body: 'VersionContent',
    etag: true,
    ifMatch: true,
    ifNoneMatch: true,
  },
  'DELETE /api/accounts/{accountId}/prompts/{promptId}/versions/{version}': {
    summary: 'Delete a draft (If-Match)',
    ok: { 204: undefined },
    statuses: [409, 412, 428],
    ifMatch: true,
  },
  'POST /api/accounts/{accountId}/prompts/{promptId}/versions/{version}/publish': {
    summary: 'Publish the draft read with If-Match',
    ok: { 200: 'VersionSummary' },
    statuses: [409, 412, 428],
    body: 'Publish',
    ifMatch: true,
  },
  'PUT /api/accounts/{accountId}/prompts/{promptId}/labels/{label}': {
    summary:
      'Point a label at a published version (protected labels: admins), with a note for its history, or `restore: true`; a label under approval is not moved: 202 with the change request opened',
    ok: { 200: 'LabelSet', 202: 'ChangeRequestAnswer' },
    statuses: [409],
    body: 'SetLabel',
  },
  'DELETE /api/accounts/{accountId}/prompts/{promptId}/labels/{label}': {
    summary: 'Remove a label; a label under approval is not removed: 202 with the change request opened',
    ok: { 204: undefined, 202: 'ChangeRequestAnswer' },
    statuses: [409],
  },
  'GET /api/accounts/{accountId}/prompts/{promptId}/labels/{label}/history': {
    summary: "The label's moves and removals, newest first, 50 a page",
    ok: { 200: 'LabelHistoryPage' },
    query: [{ name: 'before', description: 'The cursor `next` of the previous page' }],
  },
  'PUT /api/accounts/{accountId}/prompts/{promptId}/labels/{label}/rollout': {
    summary:
      'Start moving the label to `to` for `percent` of subjects (whoever may move the label); a label under approval is asked for: 202 with the change request, which carries the rollout',
    ok: { 201: 'RolloutAnswer', 202: 'ChangeRequestAnswer' },
    statuses: [409],
    body: 'RolloutStart',
  },
  'GET /api/accounts/{accountId}/prompts/{promptId}/labels/{label}/rollout': {
    summary: "The label's active rollout, with what each side has served (404 when it has none)",
    ok: { 200: 'RolloutAnswer' },
  },
  'PATCH /api/accounts/{accountId}/prompts/{promptId}/labels/{label}/rollout': {
    summary:
      "Change the rollout's share, and with `steps` its schedule (without, the steps still above the new share stay); with `rolloutId`, only that rollout's (409 naming both when the label has another)",
    ok: { 200: 'RolloutAnswer' },
    statuses: [409],
    body: 'RolloutChange',
  },
  'POST /api/accounts/{accountId}/prompts/{promptId}/labels/{label}/rollout/complete': {
    summary: 'Complete the rollout: the label moves to `to`; with `rolloutId`, only that rollout (409 naming both when the label has another)',
    ok: { 200: 'RolloutAnswer' },
    statuses: [409],
    body: 'RolloutComplete',
  },
  'POST /api/accounts/{accountId}/prompts/{promptId}/labels/{label}/rollout/abort': {
    summary: 'Abort the rollout: the label stays on `from`; with `rolloutId`, only that rollout (409 naming both when the label has another)',
    ok: { 200: 'RolloutAnswer' },
    statuses: [409],
    body: 'RolloutAbort',
  },
  'GET /api/accounts/{accountId}/requests': {
    summary: 'Change requests, newest first: every open one with `state=open`; otherwise 50 a page',
    ok: { 200: 'ChangeRequestList' },
    query: [
      { name: 'state', description: '`open`, `applied`, `rejected`, `withdrawn` or `stale`; all when absent' },
      { name: 'before', description: 'The cursor `next` of the previous page' },
    ],
  },
  'GET /api/accounts/{accountId}/requests/{requestId}': {
    summary: "A change request with what a reviewer compares: both versions' content and the placeholders added and removed",
    ok: { 200: 'ChangeRequestDetail' },
  },
  'POST /api/accounts/{accountId}/requests/{requestId}/approve': {
    summary:
      'Approve (a member who may move the label, not the requester); the approval that brings the required-th counting one (from members who may still approve) moves the label, or, if it moved since, marks the request stale (409); approving again is 409, unless the approvals that count are then enough',
    ok: { 200: 'ChangeRequestAnswer' },
    statuses: [409],
    body: 'Decision',
  },
  'POST /api/accounts/{accountId}/requests/{requestId}/reject': {
    summary: 'Reject (a member who may move the label, not the requester)',
    ok: { 200: 'ChangeRequestAnswer' },
    statuses: [409],
    body: 'Decision',
  },
  'POST /api/accounts/{accountId}/requests/{requestId}/withdraw': {
    summary: 'Withdraw (the requester only)',
    ok: { 200: 'ChangeRequestAnswer' },
    statuses: [409],
  },
  'POST /api/accounts/{accountId}/prompts/{promptId}/delete': { summary: 'Hide the prompt from the read API', ok: { 200: 'PromptVisibility' } },
  'POST /api/accounts/{accountId}/prompts/{promptId}/restore': { summary: 'Bring a deleted prompt back', ok: { 200: 'PromptVisibility' } },
  'GET /api/accounts/{accountId}/keys': { summary: 'Every key (never a secret)', ok: { 200: 'KeyList' } },
  'POST /api/accounts/{accountId}/keys': { summary: 'Create a key: the key is in this answer only', ok: { 201: 'KeyCreated' }, body: 'KeyCreate' },
  'PATCH /api/accounts/{accountId}/keys/{keyId}': { summary: "Change a key's settings", ok: { 200: 'Key' }, statuses: [409], body: 'KeyPatch' },
  'POST /api/accounts/{accountId}/keys/{keyId}/rotate': {
    summary: 'A new key; the old one works for the grace',
    ok: { 201: 'KeyRotated' },
    statuses: [409],
    body: 'Rotate',
  },
  'POST /api/accounts/{accountId}/keys/{keyId}/revoke': { summary: 'Revoke a key, for good', ok: { 200: 'Key' } },
  'GET /api/accounts/{accountId}/usage': {
    summary: 'Per key: the month count and limit, and a count per UTC day',
    ok: { 200: 'Usage' },
    query: [{ name: 'month', description: 'YYYY-MM (UTC); this month when absent' }],
  },
  'GET /api/accounts/{accountId}/webhooks': { summary: 'Every webhook (never a secret)', ok: { 200: 'WebhookList' } },
  'POST /api/accounts/{accountId}/webhooks': {
    summary: 'Create a webhook (at most 20): its signing secret is in this answer only',
    ok: { 201: 'WebhookWithSecret' },
    statuses: [409],
    body: 'WebhookCreate',
  },
  'GET /api/accounts/{accountId}/webhooks/{webhookId}': { summary: 'A webhook (never a secret)', ok: { 200: 'Webhook' } },
  'PATCH /api/accounts/{accountId}/webhooks/{webhookId}': {
    summary: "Change a webhook's URL, events, description, or enable or disable it",
    ok: { 200: 'Webhook' },
    body: 'WebhookPatch',
  },
  'DELETE /api/accounts/{accountId}/webhooks/{webhookId}': { summary: 'Delete a webhook: nothing more is sent to it', ok: { 204: undefined } },
  'POST /api/accounts/{accountId}/webhooks/{webhookId}/rotate': {
    summary: 'A new signing secret, in this answer only; the one it replaces signs deliveries too for 24 hours',
    ok: { 200: 'WebhookWithSecret' },
  },
  'POST /api/accounts/{accountId}/webhooks/{webhookId}/test': {
    summary: 'Send the webhook a `webhook.test` event (to it alone, even while it is disabled)',
    ok: { 202: 'WebhookTestSent' },
  },
  'GET /api/accounts/{accountId}/webhooks/{webhookId}/deliveries': {
    summary: "The webhook's last 100 delivery attempts, newest first",
    ok: { 200: 'DeliveryList' },
  },
  'GET /api/accounts/{accountId}/members': { summary: 'Who is in the account', ok: { 200: 'MemberList' } },
  'POST /api/accounts/{accountId}/members': { summary: 'Add a person by email', ok: { 201: 'MemberAdded' }, statuses: [409], body: 'MemberAdd' },
  'PATCH /api/accounts/{accountId}/members/{userId}': { summary: "Change a member's role", ok: { 200: 'Member' }, statuses: [409], body: 'MemberPatch' },
  'DELETE /api/accounts/{accountId}/members/{userId}': {
    summary: 'Remove a member (admins); any member may remove themselves (leave), but the last owner',
    ok: { 204: undefined },
    statuses: [409],
  },
  'GET /api/accounts/{accountId}/audit': {
    summary: 'The audit log, newest first, 50 a page, narrowed by any of the filters',
    ok: { 200: 'AuditPage' },
    query: [
      { name: 'before', description: 'The cursor `next` of the previous page' },
      { name: 'actor', description: "Who: a person's email, or a CLI operator's identity" },
      { name: 'prompt', description: 'Changes to this prompt id' },
      { name: 'action', description: 'One action, e.g. `label.set` or `version.publish`' },
      { name: 'outcome', description: '`succeeded`, `failed` or `refused`' },
      { name: 'from', description: 'From this instant or day (ISO 8601, UTC), included' },
      { name: 'to', description: 'To this instant or day (ISO 8601, UTC), included' },
    ],
  },
  'POST /api/accounts/{accountId}/runs': {
    summary:
      'Run a prompt (a version, a label, or unsaved content) on a model with variables and parameters; the run is kept 90 days. Refused before it starts: 400 naming the field, 404, 429 BUDGET_EXCEEDED. A model that fails it: 502 MODEL_ERROR, 503 MODEL_THROTTLED, 504 MODEL_TIMEOUT, each with the failed run’s `runId`',
    ok: { 200: 'RunAnswer' },
    statuses: [429, 502, 504],
    body: 'RunRequest',
    events:
      'Server-sent events as the model writes: `start` {runId, model, provider}, `delta` {text} for each piece, then `end` {run} or `error` {error: {code, message}, run} (a failed run, kept). Each event is `event: <name>` and one `data:` line of JSON',
  },
  'GET /api/accounts/{accountId}/runs': {
    summary: "The account's runs, newest first, 50 a page, without their messages",
    ok: { 200: 'RunPage' },
    query: [
      { name: 'promptId', description: "One prompt's runs" },
      { name: 'before', description: 'The cursor `next` of the previous page' },
    ],
  },
  'GET /api/accounts/{accountId}/runs/{runId}': { summary: 'A run, with the messages sent', ok: { 200: 'RunAnswer' } },
  'GET /api/accounts/{accountId}/models': { summary: "The stack's catalog of models a run may name", ok: { 200: 'ModelList' } },
};

const ERROR_TEXT: Record<number, string> = {
  400: 'A bad body, parameter or header: `field` names it',
  401: 'No, malformed, expired or foreign token (answered by the gateway)',
  403: 'A member whose role does not allow this',
  404: 'No such thing, or an account the caller is not a member of',
  409: 'Contradicts what is stored (an existing id, a published version, the last owner, a revoked key, a change request already decided, another open for the label, or found stale, a label that rolls out or already has a rollout, a rollout named that the label no longer has, a 21st webhook in an account)',
  412: 'If-Match or If-None-Match does not hold: someone saved in between',
  413: "The version's content is over 300 KB",
  428: 'If-Match is required',
  429: "BUDGET_EXCEEDED: the account's monthly budget of model tokens cannot cover the run (`used`, `limit`)",
  500: 'Unexpected (never a stack trace)',
  502: "MODEL_ERROR: the model's provider refused or failed the run, in its words (`runId`: the failed run, kept)",
  503: 'The store or the user pool could not answer in time: retry. MODEL_THROTTLED: the model throttled every attempt (`runId`)',
  504: 'MODEL_TIMEOUT: the model did not finish within the run’s 120 s (`runId`)',
};

function operationFor(route: ManagementRoute): Record<string, unknown> {
  const operation = OPERATIONS[`${route.method} ${route.path}`];
  if (!operation) throw new Error(`no documentation for ${route.method} ${route.path}`);
  const changes = route.action !== undefined;
  const hasParams = /\{(promptId|version|label|keyId|userId|requestId|webhookId|runId)\}/.test(route.path) || operation.query !== undefined;
  const errors = new Set<number>([401, 500, 503, ...(operation.statuses ?? [])]);
  if (route.path !== '/api/me') errors.add(404);
  // A read needs a role too when not every member may make it (a webhook's URL is for admins).
  if (changes || (route.access !== 'signed-in' && roleFor(route.access) !== 'viewer')) errors.add(403);
  if (changes || hasParams || operation.body) errors.add(400);
  const responses: Record<string, unknown> = {};
  for (const [status, schema] of Object.entries(operation.ok)) {
    responses[status] = {
      description:
        status === '201'
          ? 'Created'
          : status === '202'
            ? 'Accepted: asked for, not done yet (a change request opened, a test event to be delivered)'
            : status === '204'
              ? 'Done'
              : 'OK',
      headers: {
        'Cache-Control': { $ref: '#/components/headers/CacheControl' },
        ...(operation.etag ? { ETag: { $ref: '#/components/headers/ETag' } } : {}),
      },
      ...(schema
        ? {
            content: {
              'application/json': { schema: ref(schema) },
              ...(operation.events ? { 'text/event-stream': { schema: { type: 'string', description: operation.events } } } : {}),
            },
          }
        : {}),
    };
  }
  for (const status of [...errors].sort()) responses[String(status)] = { $ref: `#/components/responses/E${status}` };
  const headerParams = [
    ...(operation.ifMatch ? [{ $ref: '#/components/parameters/IfMatch' }] : []),
    ...(operation.ifNoneMatch ? [{ $ref: '#/components/parameters/IfNoneMatch' }] : []),
    ...(operation.query ?? []).map((query) => ({ name: query.name, in: 'query', required: false, description: query.description, schema: str })),
  ];
  return {
    summary: operation.summary,
    operationId: `${route.method.toLowerCase()}${route.path
      .replace(/[{}]/g, '')
      .split('/')
      .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
      .join('')}`,
    description: `Needs: ${route.access === 'signed-in' ? 'any signed-in user' : `a member with the role ${roleFor(route.access)} or above`}.${changes ? ` Recorded in the audit log as \`${route.action}\`, refusals included.` : ''}`,
    ...(headerParams.length > 0 ? { parameters: headerParams } : {}),
    ...(operation.body ? { requestBody: { required: !route.bodyOptional, content: { 'application/json': { schema: ref(operation.body) } } } } : {}),
    responses,
  };
}

const PATH_PARAMETERS: Record<string, Schema> = {
  accountId: { type: 'string' },
  promptId: { type: 'string' },
  version: { type: 'string' },
  label: { type: 'string' },
  keyId: { type: 'string' },
  userId: { type: 'string' },
  requestId: { type: 'string' },
  webhookId: { type: 'string' },
  runId: { type: 'string' },
};

export function managementOpenApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ALL_ROUTES) {
    const { method, path } = route;
    const item = paths[path] ?? {
      parameters: [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: PATH_PARAMETERS[name as string] })),
    };
    paths[path] = item;
    item[method.toLowerCase()] = operationFor(route);
  }
  const bodies = Object.fromEntries(
    Object.entries(BODIES).map(([name, schema]) => {
      // A run's variables are checked as data (run-schemas.ts), which JSON Schema says as an object of strings.
      const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
        io: 'input',
        unrepresentable: 'any',
        override: ({ zodSchema, jsonSchema }) => {
          if (zodSchema._zod.def.type === 'custom') Object.assign(jsonSchema, { type: 'object', additionalProperties: { type: 'string' } });
        },
      }) as Schema;
      return [name, json];
    }),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Prompt service management API',
      version: '1.0.0',
      description:
        "The dashboard's back end (docs/management-api.md): served under /api on the dashboard's own origin, so it sends no CORS headers. " +
        'Every request carries `Authorization: Bearer <ID token>` of the user pool, checked by the gateway (Cognito authorizer). ' +
        'Errors are `{"error", "code"}`. Generated by `npm run openapi:management` from lambda/management-api/ (the request bodies from its zod schemas): do not edit by hand.',
    },
    servers: [{ url: '{origin}', variables: { origin: { default: 'https://dashboard.example.com' } } }],
    security: [{ userPool: [] }],
    paths,
    components: {
      securitySchemes: { userPool: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The ID token of the user pool' } },
      headers: {
        CacheControl: { description: 'Never cached', schema: { const: 'no-store' } },
        ETag: { description: "The version's strong ETag", schema: { type: 'string', pattern: '^"[0-9a-f]{32}"$' } },
      },
      parameters: {
        IfMatch: {
          name: 'If-Match',
          in: 'header',
          required: false,
          description: "The draft's ETag as read: required to replace, delete or publish one",
          schema: str,
        },
        IfNoneMatch: { name: 'If-None-Match', in: 'header', required: false, description: '`*`: create a new draft', schema: { const: '*' } },
      },
      responses: Object.fromEntries(
        Object.entries(ERROR_TEXT).map(([status, description]) => [
          `E${status}`,
          {
            description,
            headers: { 'Cache-Control': { $ref: '#/components/headers/CacheControl' } },
            content: { 'application/json': { schema: ref('Error') } },
          },
        ]),
      ),
      schemas: { ...bodies, ...RESPONSE_SCHEMAS },
    },
  };
}

export const renderManagementOpenApi = (): string =>
  `# Generated by npm run openapi:management from lambda/management-api/: do not edit by hand.\n${stringify(managementOpenApiDocument(), { lineWidth: 0, aliasDuplicateObjects: false })}`;

if (require.main === module) {
  writeFileSync(MANAGEMENT_OPENAPI_PATH, renderManagementOpenApi());
  process.stdout.write(`wrote ${MANAGEMENT_OPENAPI_PATH}\n`);
}
