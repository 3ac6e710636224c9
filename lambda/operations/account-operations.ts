import type { AuditEntryItem, Role } from '../table/item-types';
import { generateApiKey, hashApiKey, keyIdFromHash } from '../domain/api-key';
import {
  type AccountSettings,
  type AccountSettingsChange,
  type NewAccount,
  planCreateAccount,
  planSetAccountPlan,
  planUpdateAccountSettings,
  requireAccount,
} from '../features/accounts/accounts';
import { BreakGlassNotAllowedError, type Mover } from '../features/change-requests/approval-gate';
import { type Decider, planApproveRequest, planCloseRequest, type RequestDecision } from '../features/change-requests/change-requests';
import type { ChangeRequestItem } from '../table/item-types';
import { type AuditAttempt, recordRefusal } from '../table/audit-log';
import { commitChange } from './commit';
import { ConflictError, NotFoundError, StoreUnavailableError } from '../table/errors';
import type { AdminAccount, AdminApiKey } from '../table/item-builders';
import { type ApiKeyChange, planCreateApiKey, planRevokeApiKeyById, planRotateApiKey, planUpdateApiKey } from '../features/keys/keys';
import type { Plan } from '../domain/plans';
import type { PromptDetails, PromptDetailsChange } from '../domain/prompt-details';
import { type LabelMove, planLabelMove, planRolloutStartOrRequest, type RolloutStartOutcome } from '../features/change-requests/gated-moves';
import { LastOwnerError, type Member, planAddMember, planRemoveMember, planSetMemberRole } from '../features/members/members';
import {
  planCreateDraft,
  planCreatePrompt,
  planDeleteDraft,
  planPublishDraft,
  type PromptListEntry,
  planReplaceDraft,
  StaleDraftError,
  type StoredVersionContent,
  type VersionContent,
  type VersionSummary,
} from '../features/prompts/authoring';
import { planDeletePrompt, planRestorePrompt } from '../features/prompts/deletion';
import { planPromptRelease, type PromptRelease, type ReleaseResult, releaseSteps } from '../features/prompts/release';
import {
  findRollout,
  hasDueStep,
  NoRolloutError,
  NoStepDueError,
  OtherRolloutError,
  planAbortRollout,
  planApplyDueStep,
  planChangeRollout,
  planCompleteRollout,
  type Rollout,
  type RolloutChange,
  readRollout,
} from '../features/rollouts/rollouts';
import type { RolloutStep } from '../domain/rollout';
import { holdingServedCounts } from '../table/served-counts';
import type { Table } from '../table/table';
import type { WebhookItem } from '../table/item-types';
import {
  auditedChange,
  planCreateWebhook,
  planDeleteWebhook,
  planRotateWebhookSecret,
  planTestWebhook,
  planUpdateWebhook,
  type WebhookChange,
} from '../features/webhooks/webhooks';
import { descriptionProblem, eventsProblem, MAX_WEBHOOK_URL_LENGTH, recordedUrl, urlsRecordedIn } from '../domain/webhook-rules';
import { generateSecret } from '../webhook-delivery/signature';
import { SealerUnavailableError } from '../webhook-delivery/secret-sealer';
import { LookupTimeoutError } from '../webhook-delivery/destination';
import type { WebhookTools } from '../webhook-delivery/sealer-from-config';
import { normalizeEmail, type UserDirectory } from '../users/user-directory';
import type { Actor } from '../domain/actor';
import { actorIdentity, actorName, eventActor } from '../domain/actor';
import type { PlannedChange } from '../features/planned-change';
import { ImmutableVersionError, VersionNotPublishedError, InvalidLabelError, InvalidRolloutError, InvalidWebhookError } from '../features/errors';
import { planUpdatePromptDetails } from '../features/prompts/details';

/** Enough of a key to recognise it in a listing (`prs_` and four more), nothing to use it with. */
export const DISPLAY_PREFIX_LENGTH = 8;

export interface OperationsDependencies {
  /** The table, bound by the request's deadline when there is one. */
  readonly table: Table;
  /**
   * Where refusals are recorded and a committed change is copied to the account's keys: a later deadline,
   * so a change that used its time still gets its record and its copies.
   */
  readonly auditTable?: Table;
  /** A committed change whose copy to the keys failed: it stands, and the next change copies again; the door logs it. */
  readonly onCopyFailed?: (accountId: string, error: unknown) => void;
  readonly actor: Actor;
  /** Needed to add members: finds people by email, creates those who are not users yet. */
  readonly directory?: UserDirectory;
  /** Needed to create webhooks and rotate their secrets: seals each secret, and says where a URL may point. */
  readonly webhooks?: WebhookTools;
}

export type AuditReason = NonNullable<AuditEntryItem['reason']>;

/** How a failed change is recorded: the code the API answers with, and its message. */
export function reasonOf(error: unknown): AuditReason {
  const message = error instanceof Error ? urlsRecordedIn(error.message) : 'unknown error';
  if (error instanceof StaleDraftError) return { code: 'PRECONDITION_FAILED', message };
  if (error instanceof VersionNotPublishedError && !error.draft) return { code: 'NOT_FOUND', message };
  if (error instanceof ConflictError || error instanceof ImmutableVersionError) return { code: 'CONFLICT', message };
  if (error instanceof NotFoundError) return { code: 'NOT_FOUND', message };
  if (error instanceof InvalidLabelError || error instanceof InvalidRolloutError || error instanceof InvalidWebhookError)
    return { code: 'BAD_REQUEST', message };
  if (error instanceof StoreUnavailableError) return { code: 'SERVICE_UNAVAILABLE', message: 'the store could not answer' };
  if (error instanceof LookupTimeoutError) return { code: 'SERVICE_UNAVAILABLE', message: 'DNS did not answer in time' };
  if (error instanceof SealerUnavailableError) return { code: 'SERVICE_UNAVAILABLE', message: 'the sealing key did not answer in time' };
  if (error instanceof BreakGlassNotAllowedError) return { code: 'FORBIDDEN', message };
  return { code: 'INTERNAL_ERROR', message: 'unexpected error' };
}

type Attempt = Omit<AuditAttempt, 'actor'>;

/**
 * Every change people make to an account, through the management API or the CLI (two doors, one set
 * of operations), each recorded in the audit log before it is made and settled after (docs/data-model.md). Whether the caller may make it is the door's to decide; an attempt it refuses is recorded
 * with `refuse`.
 */
export class AccountOperations {
  private readonly table: Table;
  private readonly auditTable: Table;
  readonly actor: Actor;

  constructor(private readonly deps: OperationsDependencies) {
    this.table = deps.table;
    this.auditTable = deps.auditTable ?? deps.table;
    this.actor = deps.actor;
  }

  private get by(): string {
    return actorName(this.actor);
  }

  /** An attempt refused before any change: recorded, and nothing else happens. */
  refuse(attempt: Attempt, reason: AuditReason): Promise<void> {
    return recordRefusal(this.table, { ...attempt, actor: this.actor }, reason);
  }

  /** One change: planned from what it reads, then committed with its audit entry in one transaction (operations/commit.ts). */
  private audited<T>(attempt: Attempt, plan: () => Promise<PlannedChange<T>>): Promise<T> {
    return commitChange(this.table, { ...attempt, actor: this.actor }, plan, {
      reasonOf,
      followUpTable: this.auditTable,
      ...(this.deps.onCopyFailed ? { onCopyFailed: this.deps.onCopyFailed } : {}),
    });
  }

  // Members

  /**
   * Finding or creating the person in the user pool cannot be in the store's transaction: a user created for
   * a membership that then fails stays a user (with no account), and the entry says `failed`.
   */
  async addMember(accountId: string, input: { email: string; role: Role }): Promise<{ member: Member; temporaryPassword?: string }> {
    const email = normalizeEmail(input.email);
    const directory = this.deps.directory;
    if (!directory) throw new Error('adding members needs the user directory (USER_POOL_ID)');
    let created: Awaited<ReturnType<UserDirectory['createUser']>> | undefined;
    return this.audited({ accountId, action: 'member.add', target: { email }, requested: { email, role: input.role } }, async () => {
      const found = await directory.findByEmail(email);
      created = found ? undefined : (created ?? (await directory.createUser(email)));
      const user = found ?? created?.user;
      if (!user) throw new Error('the user directory returned no user');
      const planned = planAddMember(this.table, accountId, { userId: user.userId, email: user.email, role: input.role }, this.by);
      const temporaryPassword = created?.temporaryPassword;
      return {
        ...planned,
        result: { member: planned.result, ...(temporaryPassword ? { temporaryPassword } : {}) },
        after: { userId: user.userId, role: input.role, userCreated: created !== undefined },
      };
    });
  }

  setMemberRole(accountId: string, userId: string, role: Role, before?: Member): Promise<Member> {
    return this.audited(
      { accountId, action: 'member.set-role', target: { userId }, requested: { role }, ...(before ? { before: { role: before.role } } : {}) },
      () => planSetMemberRole(this.table, accountId, userId, role),
    );
  }

  removeMember(accountId: string, userId: string, before?: Member): Promise<Member> {
    return this.audited(
      { accountId, action: 'member.remove', target: { userId }, ...(before ? { before: { role: before.role, email: before.email } } : {}) },
      () => planRemoveMember(this.table, accountId, userId),
    );
  }

  // The account

  updateSettings(accountId: string, change: AccountSettingsChange): Promise<AccountSettings> {
    return this.audited({ accountId, action: 'account.update', target: { accountId }, requested: change }, () =>
      planUpdateAccountSettings(this.table, accountId, change),
    );
  }

  // Prompts, drafts, labels

  createPrompt(accountId: string, prompt: { promptId: string; promptName: string }): Promise<PromptListEntry> {
    return this.audited({ accountId, action: 'prompt.create', target: { promptId: prompt.promptId }, requested: prompt }, () =>
      planCreatePrompt(this.table, accountId, prompt, this.by),
    );
  }

  createDraft(accountId: string, promptId: string, version: string, content: VersionContent): Promise<StoredVersionContent> {
    return this.audited({ accountId, action: 'draft.create', target: { promptId, version }, requested: content }, () =>
      planCreateDraft(this.table, accountId, promptId, version, content, this.by),
    );
  }

  replaceDraft(accountId: string, promptId: string, version: string, content: VersionContent, ifMatch: string): Promise<StoredVersionContent> {
    return this.audited({ accountId, action: 'draft.save', target: { promptId, version }, requested: content, before: { etag: ifMatch } }, () =>
      planReplaceDraft(this.table, accountId, promptId, version, content, ifMatch, this.by),
    );
  }

  deleteDraft(accountId: string, promptId: string, version: string, ifMatch: string): Promise<void> {
    return this.audited({ accountId, action: 'draft.delete', target: { promptId, version }, before: { etag: ifMatch } }, () =>
      planDeleteDraft(this.table, accountId, promptId, version, ifMatch, this.by),
    );
  }

  publish(accountId: string, promptId: string, version: string, ifMatch: string, note: string): Promise<VersionSummary> {
    return this.audited({ accountId, action: 'version.publish', target: { promptId, version }, requested: { note }, before: { etag: ifMatch } }, () =>
      planPublishDraft(this.table, accountId, promptId, version, ifMatch, note, this.by),
    );
  }

  /** Who moves a label, as the approval gate (table/approval-gate.ts) knows them. */
  private mover(breakGlass?: boolean): Mover {
    return { actor: this.actor, by: this.by, ...(breakGlass ? { breakGlass } : {}) };
  }

  /**
   * Points the label at a published version, its history entry saying how (the note, `restore` for a move back to
   * a past version). Where the account puts the label under approval, it is asked for instead (`request`), unless
   * it points there already (nothing moved) or the operator breaks the glass (`breakGlass`, the CLI's alone: the
   * move is made, and its history and audit entry say `break-glass`). Decided inside the change, for every door.
   */
  setLabel(
    accountId: string,
    promptId: string,
    label: string,
    version: string,
    options: { note?: string; restore?: boolean; breakGlass?: boolean } = {},
  ): Promise<LabelMove> {
    const { note, restore, breakGlass } = options;
    const requested = { version, ...(note === undefined ? {} : { note }), ...(restore ? { restore: true } : {}), ...(breakGlass ? { breakGlass: true } : {}) };
    return this.audited({ accountId, action: 'label.set', target: { promptId, label }, requested }, () =>
      planLabelMove(this.table, accountId, { promptId, label, to: version, note, restore }, this.mover(breakGlass)),
    );
  }

  /** Takes the label off (404 when the prompt does not carry it); under approval, as `setLabel` says. */
  removeLabel(accountId: string, promptId: string, label: string, options: { breakGlass?: boolean } = {}): Promise<LabelMove> {
    const requested = options.breakGlass ? { breakGlass: true } : undefined;
    return this.audited({ accountId, action: 'label.remove', target: { promptId, label }, ...(requested ? { requested } : {}) }, () =>
      planLabelMove(this.table, accountId, { promptId, label, to: null }, this.mover(options.breakGlass)),
    );
  }

  /** A new name, description or tags; a new name is what the read API serves from the next request. */
  updatePromptDetails(accountId: string, promptId: string, change: PromptDetailsChange): Promise<PromptDetails> {
    return this.audited({ accountId, action: 'prompt.update', target: { promptId }, requested: change }, () =>
      planUpdatePromptDetails(this.table, accountId, promptId, change, this.by),
    );
  }

  /**
   * One prompt of a `prompts push`: created, published, labelled and described in one transaction, each step
   * with its own audit entry, so the prompt is as the file says or as it was. A label the account puts under
   * approval is not moved: a change request is opened for it in the same transaction (`requests`).
   */
  async releasePrompt(accountId: string, release: PromptRelease, options: { note?: string } = {}): Promise<ReleaseResult> {
    const asked = { ...release, ...(options.note === undefined ? {} : { requestNote: options.note }) };
    // The entry names the first step as asked; the plan names it anew once the gate has split the labels.
    const [first] = releaseSteps(asked, { was: new Map(), promptName: '', description: null, tags: [] });
    if (!first) return { steps: 0, requests: [] };
    const { after: _after, ...step } = first;
    return this.audited({ accountId, ...step }, () => planPromptRelease(this.table, accountId, asked, { actor: this.actor, by: this.by }));
  }

  // Rollouts: a label moved for a share of subjects first (docs/rollouts.md).

  /**
   * Starts moving the label to `to` for `percent` of subjects; where the account puts the label under approval, a
   * change request that carries the rollout is opened instead (`request`), and its approval starts it. Decided
   * inside the change, as a move is.
   */
  startRollout(accountId: string, promptId: string, label: string, input: RolloutInput): Promise<RolloutStartOutcome> {
    return this.audited({ accountId, action: 'rollout.start', target: { promptId, label }, requested: rolloutRequested(input) }, () =>
      planRolloutStartOrRequest(this.table, accountId, { promptId, label, ...input }, this.mover()),
    );
  }

  /** The label's active rollout, with what each side served so far (404 when it has none). */
  readRollout(accountId: string, promptId: string, label: string): Promise<Rollout> {
    return readRollout(this.table, accountId, promptId, label);
  }

  /** A new share, and with `steps` a new schedule (without, the steps still above the new share stay). */
  changeRollout(accountId: string, promptId: string, label: string, change: RolloutChange): Promise<Rollout> {
    const requested = {
      percent: change.percent,
      ...(change.steps === undefined ? {} : { steps: change.steps }),
      ...(change.rolloutId === undefined ? {} : { rolloutId: change.rolloutId }),
    };
    return this.audited({ accountId, action: 'rollout.change', target: { promptId, label }, requested }, () =>
      planChangeRollout(this.table, accountId, promptId, label, change, { by: this.by }),
    );
  }

  /**
   * The label moves to the rollout's `to`; the rollout ends, its served counts kept in the label's history and the
   * audit entry. With `rolloutId`, only that rollout (409 when the label has another).
   */
  completeRollout(accountId: string, promptId: string, label: string, options: { rolloutId?: string | undefined } = {}): Promise<Rollout> {
    const { rolloutId } = options;
    return holdingServedCounts(this.table, (holds) =>
      this.audited({ accountId, action: 'rollout.complete', target: { promptId, label }, ...meantRollout(rolloutId) }, () =>
        planCompleteRollout(this.table, accountId, { promptId, label, rolloutId }, { by: this.by }, holds),
      ),
    );
  }

  /**
   * The label stays where it points; the rollout ends, its served counts kept in the label's history and the audit
   * entry. With `rolloutId`, only that rollout (409 when the label has another).
   */
  abortRollout(
    accountId: string,
    promptId: string,
    label: string,
    options: { reason?: string | undefined; rolloutId?: string | undefined } = {},
  ): Promise<Rollout> {
    const { reason, rolloutId } = options;
    const requested = { ...(reason === undefined ? {} : { reason }), ...(rolloutId === undefined ? {} : { rolloutId }) };
    return holdingServedCounts(this.table, (holds) =>
      this.audited({ accountId, action: 'rollout.abort', target: { promptId, label }, ...(Object.keys(requested).length > 0 ? { requested } : {}) }, () =>
        planAbortRollout(this.table, accountId, { promptId, label, rolloutId }, { by: this.by }, holds, reason),
      ),
    );
  }

  /**
   * The latest step of the rollout that is due at `now` (deployed: the step function, every minute): its share
   * applied, and it and the steps before it taken off the schedule, audited as `rollout.change`. Nothing due, the
   * rollout ended, or the label rolling out another one since: nothing is written or recorded (`applied: false`,
   * and why).
   */
  async applyDueStep(
    accountId: string,
    rollout: { readonly promptId: string; readonly label: string; readonly rolloutId: string },
    now: Date,
  ): Promise<{ applied: false; why: string } | { applied: true; rollout: Rollout }> {
    const { promptId, label, rolloutId } = rollout;
    const item = await findRollout(this.table, accountId, promptId, label);
    if (!item) return { applied: false, why: `rollout ${rolloutId} has ended` };
    if (item.rolloutId !== rolloutId) return { applied: false, why: new OtherRolloutError(promptId, label, rolloutId, item.rolloutId).message };
    if (!hasDueStep(item, now)) return { applied: false, why: `no step of rollout ${rolloutId} is due` };
    try {
      const changed = await this.audited(
        { accountId, action: 'rollout.change', target: { promptId, label }, requested: { dueAt: now.toISOString(), rolloutId } },
        () => planApplyDueStep(this.table, accountId, rollout, now, { by: this.by }),
      );
      return { applied: true, rollout: changed };
    } catch (error) {
      // Another applier took the step, or the rollout ended (and maybe another began), between the look and the change.
      if (error instanceof NoStepDueError || error instanceof NoRolloutError || error instanceof OtherRolloutError)
        return { applied: false, why: error.message };
      throw error;
    }
  }

  // Change requests: a move of a label under approval, asked for, then decided (docs/management-api.md "Change requests").

  /**
   * The caller's approval; the `required`-th that counts (from a member who may still give it) applies the move, or
   * finds the request stale (`stale: true`). Whether the caller may approve now is the door's to say.
   */
  approveRequest(accountId: string, request: Pick<ChangeRequestItem, 'requestId' | 'promptId' | 'label'>, comment?: string): Promise<RequestDecision> {
    return this.audited({ accountId, action: 'request.approve', target: requestTarget(request), ...commented(comment) }, () =>
      planApproveRequest(this.table, accountId, request.requestId, this.decider(comment)),
    );
  }

  rejectRequest(accountId: string, request: Pick<ChangeRequestItem, 'requestId' | 'promptId' | 'label'>, comment?: string): Promise<RequestDecision> {
    return this.audited({ accountId, action: 'request.reject', target: requestTarget(request), ...commented(comment) }, () =>
      planCloseRequest(this.table, accountId, request.requestId, 'rejected', this.decider(comment)),
    );
  }

  withdrawRequest(accountId: string, request: Pick<ChangeRequestItem, 'requestId' | 'promptId' | 'label'>): Promise<RequestDecision> {
    return this.audited({ accountId, action: 'request.withdraw', target: requestTarget(request) }, () =>
      planCloseRequest(this.table, accountId, request.requestId, 'withdrawn', this.decider()),
    );
  }

  private decider(comment?: string): Decider {
    return { who: actorIdentity(this.actor), by: this.by, ...(comment === undefined ? {} : { comment }) };
  }

  deletePrompt(accountId: string, promptId: string): Promise<{ alreadyDeleted: boolean }> {
    return this.audited({ accountId, action: 'prompt.delete', target: { promptId } }, () => planDeletePrompt(this.table, accountId, promptId));
  }

  restorePrompt(accountId: string, promptId: string): Promise<{ alreadyVisible: boolean }> {
    return this.audited({ accountId, action: 'prompt.restore', target: { promptId } }, () => planRestorePrompt(this.table, accountId, promptId));
  }

  // Keys: the key itself is returned to the caller once and goes nowhere else (not the audit log).

  createKey(
    accountId: string,
    settings: { name: string; monthlyLimit?: number; scope?: string[]; expiresAt?: number },
  ): Promise<{ key: AdminApiKey; apiKey: string }> {
    const apiKey = generateApiKey();
    const keyHash = hashApiKey(apiKey);
    return this.audited({ accountId, action: 'key.create', target: { name: settings.name }, requested: requestedKeySettings(settings) }, async () => {
      const planned = await planCreateApiKey(this.table, {
        keyHash,
        keyId: keyIdFromHash(keyHash),
        accountId,
        displayPrefix: apiKey.slice(0, DISPLAY_PREFIX_LENGTH),
        createdBy: this.by,
        ...settings,
      });
      return { ...planned, result: { key: planned.result, apiKey }, after: publicKeyFields(planned.result) };
    });
  }

  updateKey(accountId: string, keyId: string, change: ApiKeyChange): Promise<AdminApiKey> {
    return this.audited({ accountId, action: 'key.update', target: { keyId }, requested: requestedKeySettings(change) }, async () => {
      const planned = await planUpdateApiKey(this.table, accountId, keyId, change);
      return { ...planned, after: publicKeyFields(planned.result) };
    });
  }

  rotateKey(accountId: string, keyId: string, graceMs: number): Promise<{ created: AdminApiKey; retired: AdminApiKey; apiKey: string }> {
    const apiKey = generateApiKey();
    const keyHash = hashApiKey(apiKey);
    return this.audited({ accountId, action: 'key.rotate', target: { keyId }, requested: { graceSeconds: graceMs / 1000 } }, async () => {
      const planned = await planRotateApiKey(
        this.table,
        accountId,
        keyId,
        { keyHash, keyId: keyIdFromHash(keyHash), displayPrefix: apiKey.slice(0, DISPLAY_PREFIX_LENGTH), createdBy: this.by },
        graceMs,
      );
      return { ...planned, result: { ...planned.result, apiKey } };
    });
  }

  revokeKey(accountId: string, keyId: string): Promise<{ key: AdminApiKey; alreadyRevoked: boolean }> {
    return this.audited({ accountId, action: 'key.revoke', target: { keyId } }, () => planRevokeApiKeyById(this.table, accountId, keyId));
  }

  // Webhooks (docs/events.md "Webhooks"): a secret is answered once, stored sealed, and written to no audit entry.

  private get webhookTools(): WebhookTools {
    if (!this.deps.webhooks) throw new Error('managing webhooks needs the secret sealer (WEBHOOK_KEY_ID or WEBHOOK_LOCAL_KEY_FILE)');
    return this.deps.webhooks;
  }

  /** The URL within its length, and a place the destination policy lets deliveries go (after DNS, deployed). */
  private async requireDestination(url: string): Promise<void> {
    if (url.length > MAX_WEBHOOK_URL_LENGTH) throw new InvalidWebhookError(`must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`, 'url');
    if (!URL.canParse(url)) throw new InvalidWebhookError('must be an absolute URL', 'url');
    const checked = await this.webhookTools.checkDestination(url);
    if (!checked.ok) throw new InvalidWebhookError(checked.reason, 'url');
  }

  private async requireValidSettings(change: WebhookChange): Promise<void> {
    const eventsWrong = change.events === undefined ? undefined : eventsProblem(change.events);
    if (eventsWrong) throw new InvalidWebhookError(eventsWrong, 'events');
    const descriptionWrong = change.description ? descriptionProblem(change.description) : undefined;
    if (descriptionWrong) throw new InvalidWebhookError(descriptionWrong, 'description');
    if (change.url !== undefined) await this.requireDestination(change.url);
  }

  /** A new webhook, enabled, with a new secret: the answer is the only place the secret ever appears in plaintext. */
  async createWebhook(
    accountId: string,
    input: { url: string; events: readonly string[]; description?: string | null },
  ): Promise<{ webhook: WebhookItem; secret: string }> {
    const description = input.description || null;
    const requested = { url: recordedUrl(input.url), events: input.events, description };
    const secret = generateSecret();
    return this.audited({ accountId, action: 'webhook.create', target: { url: recordedUrl(input.url) }, requested }, async () => {
      await this.requireValidSettings({ url: input.url, events: input.events, description });
      const sealedSecret = await this.webhookTools.sealer.seal(secret);
      const planned = await planCreateWebhook(this.table, accountId, { url: input.url, events: input.events, description, sealedSecret, by: this.by });
      return { ...planned, result: { webhook: planned.result, secret } };
    });
  }

  /** A new URL (checked as at creation), events, description, or enabled flag; the secrets stay. */
  updateWebhook(accountId: string, webhookId: string, change: WebhookChange): Promise<WebhookItem> {
    return this.audited({ accountId, action: 'webhook.update', target: { webhookId }, requested: auditedChange(change) }, async () => {
      await this.requireValidSettings(change);
      return planUpdateWebhook(this.table, accountId, webhookId, change);
    });
  }

  deleteWebhook(accountId: string, webhookId: string): Promise<WebhookItem> {
    return this.audited({ accountId, action: 'webhook.delete', target: { webhookId } }, () => planDeleteWebhook(this.table, accountId, webhookId));
  }

  /** A new secret, answered once; the one it replaces still signs deliveries for 24 hours. */
  async rotateWebhookSecret(accountId: string, webhookId: string): Promise<{ webhook: WebhookItem; secret: string }> {
    const secret = generateSecret();
    return this.audited({ accountId, action: 'webhook.rotate', target: { webhookId } }, async () => {
      const sealedSecret = await this.webhookTools.sealer.seal(secret);
      const planned = await planRotateWebhookSecret(this.table, accountId, webhookId, sealedSecret);
      return { ...planned, result: { webhook: planned.result, secret } };
    });
  }

  /** A `webhook.test` event, delivered to this webhook alone as any event is; its id, to find its delivery. */
  testWebhook(accountId: string, webhookId: string): Promise<{ eventId: string }> {
    return this.audited({ accountId, action: 'webhook.test', target: { webhookId } }, () =>
      planTestWebhook(this.table, accountId, webhookId, eventActor(this.actor)),
    );
  }

  // What only an operator changes: the management API has no route to these (the CLI's accounts commands call them).

  createAccount(account: NewAccount): Promise<AdminAccount> {
    const { accountId, name, plan } = account;
    return this.audited({ accountId, action: 'account.create', target: { accountId }, requested: { name, plan } }, async () =>
      planCreateAccount(this.table, account),
    );
  }

  /** From each key's next request. An account that does not exist is refused before anything is written: it has no log. */
  async setAccountPlan(accountId: string, plan: Plan): Promise<void> {
    const before = await requireAccount(this.table, accountId);
    await this.audited({ accountId, action: 'account.set-plan', target: { accountId }, requested: { plan }, before: { plan: before.plan } }, async () =>
      planSetAccountPlan(accountId, plan),
    );
  }
}

/** What starting a rollout asks for (the body of `PUT .../rollout`). */
export interface RolloutInput {
  readonly to: string;
  readonly percent: number;
  readonly note?: string | undefined;
  readonly steps?: readonly RolloutStep[] | undefined;
  readonly guardAlarm?: string | undefined;
}

const rolloutRequested = ({ to, percent, note, steps, guardAlarm }: RolloutInput) => ({
  to,
  percent,
  ...(note === undefined ? {} : { note }),
  ...(steps === undefined ? {} : { steps }),
  ...(guardAlarm === undefined ? {} : { guardAlarm }),
});

const requestTarget = ({ requestId, promptId, label }: Pick<ChangeRequestItem, 'requestId' | 'promptId' | 'label'>) => ({ requestId, promptId, label });
const commented = (comment: string | undefined) => (comment === undefined ? {} : { requested: { comment } });
/** The rollout a caller named, as its attempt records it. */
const meantRollout = (rolloutId: string | undefined) => (rolloutId === undefined ? {} : { requested: { rolloutId } });

/** A key's settings as a person asks for them (the management API's words: an ISO expiry, `disabled`), never the key. */
function requestedKeySettings(change: ApiKeyChange): Record<string, unknown> {
  const { enabled, expiresAt, ...rest } = change;
  return {
    ...rest,
    ...(expiresAt === undefined ? {} : { expiresAt: expiresAt === null ? null : new Date(expiresAt).toISOString() }),
    ...(enabled === undefined ? {} : { disabled: !enabled }),
  };
}

/** What the audit log may say of a key: its settings, never the key. */
export function publicKeyFields(key: AdminApiKey): Record<string, unknown> {
  const { keyId, name, status, monthlyLimit, scope, expiresAt, displayPrefix } = key;
  return { keyId, name, status, monthlyLimit, scope, expiresAt, displayPrefix };
}

export { LastOwnerError };
