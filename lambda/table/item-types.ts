import type { ChangeRequestState } from '../domain/change-request';
import type { Actor } from '../domain/actor';
import type { PromptConfig, PromptContent } from '../domain/prompt';
import type { Role } from '../domain/roles';

/**
 * What the table holds: one interface per item, as docs/data-model.md lists them. schema.ts
 * builds their keys; the read API reads them (lambda/read-api/store/) and the operator tools write them (admin/table/).
 * Each interface is the item's own attributes: its keys and its `type` tag are WithKeys below.
 */

export interface AccountItem {
  accountId: string;
  name: string;
  /** As written; a reader checks it is a known plan. */
  plan: string;
  createdAt?: string;
  /**
   * Raised by every change to what the API serves of the account's prompts (publish, label, delete,
   * restore) and copied to the account's keys; absent until the first such change.
   */
  promptsRevision?: number;
  /** Labels only admins and owners may move or remove; absent means the default, `production`. */
  protectedLabels?: string[];
  /**
   * Labels that move only through an approved change request, and how many distinct approvals one needs;
   * absent: none (docs/management-api.md "Change requests").
   */
  approvals?: { labels: string[]; required: number };
  /**
   * Raised by every change of the owners' settings (name, protected labels, approvals); absent until the first. A
   * change decided on them (does this label need a request? may this approver approve it?) holds it unchanged in
   * its transaction (lambda/table/approval-gate.ts).
   */
  settingsRevision?: number;
  /**
   * The owners' user ids: the guard that an account always keeps one (docs/data-model.md). It never
   * names someone who is not an owner; the member items hold the roles.
   */
  owners?: Set<string>;
  /** Hashes of keys written since the revision was last raised (lambda/table/propagation.ts). */
  newKeys?: Set<string>;
  /**
   * How many keys were ever registered on the account (each writer of a key adds one with `newKeys`): an end of a
   * rollout, which fences every key of the account in its transaction, is conditional on it (served-counts.ts).
   */
  keyRegistrations?: number;
  /** How many webhooks the account has: the guard of their limit (lambda/table/webhooks.ts); absent until the first. */
  webhookCount?: number;
  /** The owners' budget of model tokens per UTC month (runs, experiments, judges); absent: none (docs/runs.md "Budget"). */
  models?: { monthlyTokens: number };
}

/** A member's role: the one list of lambda/domain/roles.ts, which the routes and the dashboard use too. */
export type { Role };

/** One person in one account: in the account's partition, indexed under the user (gsi1). */
export interface MemberItem {
  accountId: string;
  /** The identity provider's `sub`. */
  userId: string;
  email: string;
  role: Role;
  addedAt: string;
  addedBy: string;
}

/**
 * `succeeded`: written in the change's own transaction; `refused`: nothing changed; `failed`: a step outside
 * the store's transaction (the user pool) went wrong. Entries of releases before transactions may say `pending`.
 */
export type AuditOutcome = 'succeeded' | 'failed' | 'refused';

/** One attempt at a change: written with the change (or alone, when refused); never changed afterwards. */
export interface AuditEntryItem {
  accountId: string;
  at: string;
  actor: Actor;
  action: string;
  /** What the change is to, e.g. `{ promptId, version }`. */
  target: Record<string, string>;
  /**
   * The change that was asked for (a request's body, cut short), whatever became of it: JSON text, since
   * its names are the requester's (`constructor`, `__proto__`), which a stored map cannot hold.
   */
  requested?: string;
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
  outcome: AuditOutcome;
  /** Why it was refused or failed: an error code and its message. */
  reason?: { code: string; message: string };
  settledAt?: string;
}

export interface ApiKeyItem {
  keyId: string;
  accountId: string;
  /** `disabled` can be undone; `revoked` is final. Only `active` keys are admitted. */
  status: 'active' | 'disabled' | 'revoked';
  /** Epoch milliseconds from which the key is refused; absent for a key that never expires. */
  expiresAt?: number;
  /** Prompt ids and `prefix*` entries the key may read; absent for the whole account. */
  scope?: string[];
  /** A copy of the account's plan, kept in step by the writers. */
  plan: string;
  /** The key's own monthly limit, overriding the plan's. */
  monthlyLimit?: number;
  /** The limit in force (own, else the plan's), kept by the writers, so admission reads nothing else. */
  limit: number;
  /** Copied from the account by the writers; absent until the account's prompts first change. */
  promptsRevision?: number;
  /** What a listing may show of the key: its recognisable prefix and first characters, never the key. */
  displayPrefix?: string;
  /** What people call the key in the dashboard. */
  name?: string;
  createdAt?: string;
  /** `user:<userId>` or `cli:<operator>`. */
  createdBy?: string;
  revokedAt?: string;
  /**
   * Counts per UTC day, for this month and the one before only, so that the item (and with it the
   * write that counts a request) stays the same size however long the key lives. `days` counts the
   * days of `daysMonth`, keyed `01` to `31`; the first request of a new month moves them to
   * `prevDays`/`prevDaysMonth` (or drops them, when that month is not the one before) and starts again.
   */
  daysMonth?: string;
  days?: Record<string, number>;
  prevDaysMonth?: string;
  prevDays?: Record<string, number>;
  /** `used#YYYY-MM` counters, one per month the key was used. */
  [usage: `used#${string}`]: number | undefined;
  /** `served#<rolloutId>#from` and `#to`: the reads this key was answered with each side of a rollout (schema.ts servedAttribute). */
  [served: `served#${string}`]: number | undefined;
  /** `hold#<rolloutId>`: an end of that rollout holding its counters still (schema.ts holdAttribute). */
  [hold: `hold#${string}`]: number | undefined;
}

/**
 * A version's content as stored (stored-content.ts reads and writes it). `config` is JSON text: its
 * `schema` and `inputData` are the author's JSON, whose names (`__proto__`, `constructor`) a store map
 * does not keep. Items written before hold it as a map, which reads the same.
 */
export interface StoredContent extends Omit<PromptContent, 'config'> {
  config: string | PromptConfig;
}

export interface PromptHeadItem {
  promptId: string;
  promptName: string;
  /** What people say of it, for finding it (domain/prompt-details.ts); never served by the read API. */
  description?: string;
  tags?: string[];
  deleted: boolean;
  /** A copy of the highest published version, so "latest" is a single read. Absent until one is published. */
  latest?: StoredContent;
  /**
   * versionSortKey(latest.version): lets a publish move `latest` up in one conditional write, never down,
   * however many publishes race. Heads written before it existed lack it.
   */
  latestKey?: string;
  /**
   * label -> version: every label of the prompt, so writers find its label items (and move their copies
   * of `promptName` and `deleted`) without a pass over the account. Written before a label item and
   * removed after it, so it names every label item there is.
   */
  labels?: Record<string, string>;
  /** Raised by every change to `labels`: each change is conditional on it, and label items carry it. */
  labelsRevision?: number;
  updatedAt?: string;
  updatedBy?: string;
}

/**
 * One label of one prompt: a copy of the labelled version's content, as the head holds latest, so a read
 * at a label costs what a read of latest costs, and a list at a label is one Query per page.
 */
export interface PromptLabelItem {
  promptId: string;
  label: string;
  /** Copies of the head's, kept in step by the writers: the list at a label reads nothing else. */
  promptName: string;
  deleted: boolean;
  labelled: StoredContent;
  /** The head's labelsRevision this was written under: a slower writer never puts back an older target. */
  labelsRevision: number;
  /**
   * While the label rolls out: the rollout's id, its share and a copy of the version it moves to, so a read
   * at the label (and the list at it) picks a side with no further read. Written with the rollout item.
   */
  rollout?: LabelRollout;
}

/** What a label item carries of its rollout: enough for a reader to pick a side and serve it. */
export interface LabelRollout {
  rolloutId: string;
  percent: number;
  to: StoredContent;
}

/**
 * The active rollout of one label of one prompt (docs/rollouts.md): at most one per label, since its key is the
 * label's. Completing or aborting it deletes the item in the same transaction; the label's history entry and the
 * audit entry of that change keep how it ended, with its served counts.
 */
export interface RolloutItem {
  accountId: string;
  rolloutId: string;
  promptId: string;
  label: string;
  from: string;
  to: string;
  percent: number;
  startedAt: string;
  /** A person's email, or `cli:<operator>` (as `updatedBy`). */
  startedBy: string;
  /** Shares scheduled ahead, in time order; each one applied is removed (deployed: the step function). */
  steps?: { percent: number; afterMinutes: number }[];
  /** The CloudWatch alarm whose change to ALARM aborts the rollout (deployed: the alarm rule). */
  guardAlarm?: string;
  updatedAt: string;
  /** What the person who started it said of it. */
  note?: string;
  /**
   * The change request whose approval started it, when one did: on a label the account puts under approval, only such
   * a rollout completes (lambda/features/change-requests/approval-gate.ts).
   */
  requestId?: string;
  /** Raised by every change to the rollout: each is conditional on the one it read. */
  revision: number;
}

/**
 * One move or removal of one label of one prompt, written in the move's own transaction: where it pointed
 * before (`from`) and after (`to`), `null` for no label. Never changed, never deleted.
 */
export interface LabelHistoryItem {
  accountId: string;
  promptId: string;
  label: string;
  at: string;
  /** A person's email, or `cli:<operator>` (as `updatedBy`). */
  by: string;
  from: string | null;
  to: string | null;
  /** How: the mover's note, `push`, `restore` (`restore: <note>`), `request <id>`, `rollout <id>`, `import`; null for a move without a note. */
  reason: string | null;
  /** On the entries of a rollout: which, what happened to it, its share and where it moves the label (and, once ended, what each side served). */
  rollout?: LabelHistoryRollout;
}

/** What a label's history says of one event of a rollout (docs/rollouts.md). */
export interface LabelHistoryRollout {
  rolloutId: string;
  event: 'started' | 'changed' | 'completed' | 'aborted';
  percent: number;
  to: string;
  /** The read requests each side answered, counted when it ended (completed or aborted). */
  served?: { from: number; to: number };
}

/** A change request's states: domain/change-request.ts, which the management API's contracts use too. */
export type { ChangeRequestState };

/** One approval of a change request: who (a person's email), when, and what they said. */
export interface ChangeRequestApproval {
  /** The approver's identity, one approval each: a user id, or `cli:<operator>`. */
  who: string;
  by: string;
  at: string;
  comment: string | null;
  /**
   * How it stood when the request closed (whether it counted, the approver's role then, why not): kept then. While
   * the request is open, it is read anew from the approver's membership (lambda/domain/approval-standing.ts).
   */
  standing?: { counts: boolean; role: Role | null; why: string | null };
}

/** A move (or removal) of a label that needs approvals, asked for and then decided (docs/management-api.md "Change requests"). */
export interface ChangeRequestItem {
  accountId: string;
  requestId: string;
  promptId: string;
  label: string;
  /** Where the label pointed when it was asked. */
  from: string | null;
  /** Where it would point; `null`: the label removed. */
  to: string | null;
  note: string | null;
  /** Asked as a restore of a past version (the dashboard's history). */
  restore: boolean;
  requestedBy: string;
  requester: Actor;
  requestedAt: string;
  /** Distinct approvals it needs: the account's setting when it was asked. */
  required: number;
  approvals: ChangeRequestApproval[];
  state: ChangeRequestState;
  /** Who took it out of `open`, when, and their comment. */
  decision?: { by: string; at: string; comment: string | null };
  /** Raised by every change to the request: each is conditional on the one it read. */
  revision: number;
  /** A request to start a rollout to `to` (not to move the label): the approval that applies it starts it. */
  rollout?: ChangeRequestRollout;
}

/** The rollout a change request carries, started as asked when it is applied. */
export interface ChangeRequestRollout {
  percent: number;
  steps?: { percent: number; afterMinutes: number }[];
  guardAlarm?: string;
}

/** The open request of one label of one prompt, while it is open: at most one per label. */
export interface OpenChangeRequestItem {
  accountId: string;
  promptId: string;
  label: string;
  requestId: string;
  to: string | null;
}

export interface PromptVersionItem extends StoredContent {
  promptId: string;
  published: boolean;
  /** The strong ETag of the content: a save or publish is conditional on it (docs/data-model.md). */
  etag?: string;
  updatedAt?: string;
  updatedBy?: string;
  publishedAt?: string;
  publishedBy?: string;
  note?: string;
}

/** An item as written and read whole: its keys (schema.ts), its kind, and its attributes. */
export type WithKeys<T> = T & {
  pk: string;
  sk: string;
  /** `account`, `apiKey`, `prompt`, `promptVersion`, `promptLabel`, `labelHistory`, `changeRequest`, `openRequest` or `rollout`. */
  type: string;
  /** The admin index's keys: on account and API key items only. */
  gsi1pk?: string;
  gsi1sk?: string;
};

/**
 * An event in the outbox (docs/events.md): written in its change's own transaction, so it exists exactly when
 * the change happened; the dispatcher (deployed: the table's stream; locally: npm start's poller) announces it.
 * Kept 30 days (`ttl`, the table's TTL attribute), then DynamoDB removes it.
 */
export interface EventItem {
  accountId: string;
  eventId: string;
  eventType: string;
  time: string;
  /** The whole body as JSON text: `data`'s names are the requester's (`constructor`, `__proto__`), which a map cannot hold. */
  body: string;
  /** Epoch seconds: the table's TTL attribute (not `expiresAt`, which on a key item is its expiry in milliseconds). */
  ttl: number;
}

/** One sealed signing secret of a webhook; after a rotation the previous one stays valid until `expiresAt`. */
export interface WebhookSecret {
  /** The secret (`whsec_…`) sealed by the stack's key (lambda/webhook-delivery/secret-sealer.ts): never stored in plaintext. */
  sealed: string;
  createdAt: string;
  /** Absent for the current secret; the retired one's end, 24 hours after the rotation. */
  expiresAt?: string;
}

/** A team's URL that receives the account's events (docs/events.md "Webhooks"). */
export interface WebhookItem {
  accountId: string;
  webhookId: string;
  url: string;
  /** Event types, or `["*"]` for every one. */
  events: string[];
  enabled: boolean;
  description: string | null;
  createdAt: string;
  createdBy: string;
  updatedAt: string;
  /** Newest first: the current secret, then the retired one while it is still valid. */
  secrets: WebhookSecret[];
  /** Raised by every change to the webhook: each is conditional on the one it read. */
  revision: number;
}

/** One attempt to deliver one event to one webhook; kept 30 days (`ttl`), the API lists the last 100. */
export interface DeliveryItem {
  accountId: string;
  webhookId: string;
  deliveryId: string;
  eventId: string;
  eventType: string;
  /** 1 for the first attempt. */
  attempt: number;
  at: string;
  /** The receiver's HTTP status, or null when it did not answer (refused, timed out, unreachable, not allowed). */
  status: number | null;
  durationMs: number;
  error?: string;
  /** Epoch seconds: the table's TTL attribute (not `expiresAt`, which on a key item is its expiry in milliseconds). */
  ttl: number;
}

/**
 * One attempt of one event's delivery to one webhook, claimed before its POST (lambda/table/delivery-claims.ts):
 * a run that finds it claimed never sends it again. Kept past any queue message that could name it (`ttl`).
 */
export interface DeliveryClaimItem {
  accountId: string;
  webhookId: string;
  eventId: string;
  attempt: number;
  /** The run that claimed it: random per run, so a run knows its own claim from another's. */
  holder: string;
  /** When the attempt started: its line's `at` in the delivery log. */
  at: string;
  /** Its line's id in the delivery log, chosen when it was claimed, so whoever records it writes the same line. */
  deliveryId: string;
  /** `sending` from the claim to its line; `recorded` once the line is written; `followed` once the next attempt is queued. */
  state: 'sending' | 'recorded' | 'followed';
  /** Once recorded: what the attempt came to, for a run that finds it recorded and has to go on from it. */
  outcome?: { delivered: boolean; status: number | null; durationMs: number; error?: string; final?: boolean };
  /** Epoch seconds: the table's TTL attribute. */
  ttl: number;
}

/**
 * One run of a prompt on a model (docs/runs.md "Runs"), written once when it ends, completed or failed, and kept 90
 * days (`ttl`). The run as answered is JSON text, as requests' names (variables, the model's JSON) are data a map
 * would not keep; what is sent to the model is apart, so a list of runs reads less.
 */
export interface RunItem {
  accountId: string;
  runId: string;
  /** The prompt run, for lists of its runs; absent for unsaved content run on its own. */
  promptId?: string;
  at: string;
  /** The run without `messages`, as JSON text. */
  run: string;
  /** `messages`, as JSON text. */
  messages: string;
  /** Epoch seconds: the table's TTL attribute. */
  ttl: number;
}

/**
 * An account's model tokens in one UTC month: `held` is what runs counted (`used`) plus what calls under way hold,
 * and never passes the account's budget, as every reservation is conditional on it; `days` counts `used` per UTC
 * day, `01` to `31`, so the item stays the size of a month.
 */
export interface ModelTokensItem {
  accountId: string;
  month: string;
  held: number;
  used: number;
  days: Record<string, number>;
}
