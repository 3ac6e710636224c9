import type { AnswerBody, RequestBody } from '../../../lambda/management-api/contract';
import type * as accounts from '../../../lambda/management-api/handlers/account-contracts';
import type * as audit from '../../../lambda/management-api/handlers/audit-contracts';
import type * as changeRequests from '../../../lambda/management-api/handlers/change-request-contracts';
import type * as keys from '../../../lambda/management-api/handlers/key-contracts';
import type * as members from '../../../lambda/management-api/handlers/member-contracts';
import type * as prompts from '../../../lambda/management-api/handlers/prompt-contracts';
import type * as runs from '../../../lambda/management-api/handlers/run-contracts';
import type * as rollouts from '../../../lambda/management-api/handlers/rollout-contracts';
import type * as usage from '../../../lambda/management-api/handlers/usage-contracts';
import type * as webhooks from '../../../lambda/management-api/handlers/webhook-contracts';

/**
 * The management API's answers and bodies as the dashboard reads and sends them: each derived from its route's
 * contract (lambda/management-api/handlers/*-contracts.ts), which the API answers by and the client parses every
 * answer with (client.ts), under the names the pages use. Only what the client makes of answers is its own here.
 */

export type Me = AnswerBody<typeof accounts.readMe, 200>;
export type Membership = Me['accounts'][number];
export type AccountSettings = AnswerBody<typeof accounts.readAccount, 200>;
/** Which labels move only after others approve, and how many approvals each move needs; `labels: []` when none. */
export type ApprovalSettings = AccountSettings['approvals'];
export type AccountChange = RequestBody<typeof accounts.updateAccount>;

export type PromptListEntry = AnswerBody<typeof prompts.createPrompt, 201>;
export type PromptDetailsChange = RequestBody<typeof prompts.updatePromptDetails>;
export type VersionSummary = AnswerBody<typeof prompts.publishVersion, 200>;
export type PromptDetail = AnswerBody<typeof prompts.readPrompt, 200>;
/** What a draft is saved with. */
export type VersionContent = RequestBody<typeof prompts.saveDraft>;
export type PromptConfig = VersionContent['config'];
/** A version as read: `etag` is the strong ETag, quoted, as If-Match wants it back. */
export type StoredVersion = AnswerBody<typeof prompts.readVersion, 200>;

export type ApiKey = AnswerBody<typeof keys.updateKey, 200>;
export type KeyState = ApiKey['state'];
/** The only answers that hold a key's secret: creating and rotating (which also answers the key it retired). */
export type IssuedKey = AnswerBody<typeof keys.createKey, 201> & Partial<Pick<AnswerBody<typeof keys.rotateKey, 201>, 'retired'>>;
export type NewKey = RequestBody<typeof keys.createKey>;
export type KeyChange = RequestBody<typeof keys.updateKey>;

export type Member = AnswerBody<typeof members.setMemberRole, 200>;
/** `temporaryPassword` only where the user pool sends no invitation (locally): shown once to whoever added the person. */
export type AddedMember = AnswerBody<typeof members.addMember, 201>;

export type Usage = AnswerBody<typeof usage.readUsage, 200>;
export type KeyUsage = Usage['keys'][number];

export type AuditPage = AnswerBody<typeof audit.readAudit, 200>;
export type AuditEntry = AuditPage['entries'][number];

export type ChangeRequest = AnswerBody<typeof changeRequests.withdrawChangeRequest, 200>['request'];
export type LabelHistoryPage = AnswerBody<typeof prompts.labelHistory, 200>;
export type LabelHistoryEntry = LabelHistoryPage['entries'][number];
/** A change request with what it would change: both versions (null: no version), and the variables added and removed. */
export type RequestDetail = AnswerBody<typeof changeRequests.readChangeRequest, 200>;
/** A version as a request compares it: its messages and config. */
export type RequestVersion = NonNullable<RequestDetail['fromVersion']>;
export type RequestsPage = AnswerBody<typeof changeRequests.listChangeRequests, 200>;

/** What a label move came to: moved at once, or a change request opened for others to approve. */
export type LabelMove = { readonly kind: 'moved' } | { readonly kind: 'requested'; readonly request: ChangeRequest };

/** What a label removal came to: removed at once, or a change request opened. */
export type LabelRemoval = { readonly kind: 'removed' } | { readonly kind: 'requested'; readonly request: ChangeRequest };

export type Rollout = AnswerBody<typeof rollouts.readRollout, 200>['rollout'];
export type RolloutStep = Rollout['steps'][number];
/** What starting a rollout asks for (docs/rollouts.md). */
export type RolloutStart = RequestBody<typeof rollouts.startRollout>;

/** What starting a rollout came to: started at once, or a change request opened that carries it. */
export type RolloutStartOutcome = { readonly kind: 'started'; readonly rollout: Rollout } | { readonly kind: 'requested'; readonly request: ChangeRequest };

/** A webhook as the API answers it (docs/events.md "Webhooks"): never a secret. */
export type Webhook = AnswerBody<typeof webhooks.readWebhook, 200>;
/** The only answers that hold a webhook's secret: creating and rotating. */
export type IssuedWebhookSecret = AnswerBody<typeof webhooks.createWebhook, 201>;
export type NewWebhook = RequestBody<typeof webhooks.createWebhook>;
export type WebhookChange = RequestBody<typeof webhooks.updateWebhook>;
/** One attempt to deliver an event to a webhook; `status` null when no answer came. */
export type WebhookDelivery = AnswerBody<typeof webhooks.listDeliveries, 200>['deliveries'][number];

/** A run of a prompt on a model (docs/runs.md "Runs"): its output, usage, cost and times; `messages` what was sent. */
export type Run = AnswerBody<typeof runs.readRun, 200>['run'];
/** A run as the runs list shows it: without its messages. */
export type RunSummary = AnswerBody<typeof runs.listRuns, 200>['runs'][number];
export type RunsPage = AnswerBody<typeof runs.listRuns, 200>;
export type RunRequest = RequestBody<typeof runs.runPrompt>;
/** What the stream says first: the run's id, and the model and provider it runs on. */
export type RunStart = { readonly runId: string; readonly model: string; readonly provider: Run['provider'] };
/** A model of the stack's catalog. */
export type Model = AnswerBody<typeof runs.listModels, 200>['models'][number];
