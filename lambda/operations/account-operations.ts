import type { Actor, AuditEntryItem, Role } from '../table/item-types';
import { StoreUnavailableError } from '../table/read-path/api-store';
import { generateApiKey, hashApiKey, keyIdFromHash } from '../domain/api-key';
import { type AccountSettings, createAccount, type NewAccount, requireAccount, setAccountPlan, updateAccountSettings } from '../table/accounts';
import { type AuditAttempt, auditedChange, recordRefusal } from '../table/audit-log';
import { ConflictError, ImmutableVersionError, InvalidLabelError, NotFoundError, VersionNotPublishedError } from '../table/errors';
import type { AdminAccount, AdminApiKey } from '../table/item-builders';
import { createApiKey, revokeApiKeyById, rotateApiKey, updateApiKey, type ApiKeyChange } from '../table/keys';
import type { Plan } from '../domain/plans';
import type { PromptDetails, PromptDetailsChange } from '../domain/prompt-details';
import { type LabelChange, removeLabel, setLabel, syncLabelCopies } from '../table/labels';
import { addMember, LastOwnerError, type Member, removeMember, setMemberRole } from '../table/members';
import {
  createDraft,
  createPrompt,
  deleteDraft,
  publishDraft,
  type PromptListEntry,
  replaceDraft,
  StaleDraftError,
  type StoredVersionContent,
  type VersionContent,
  type VersionSummary,
} from '../table/prompt-authoring';
import { updatePromptDetails } from '../table/prompt-heads';
import { deletePrompt, restorePrompt } from '../table/prompts';
import { bumpPromptsRevision } from '../table/propagation';
import type { AdminTable } from '../table/admin-table';
import { normalizeEmail, type UserDirectory } from '../users/user-directory';

/** Enough of a key to recognise it in a listing (`prs_` and four more), nothing to use it with. */
export const DISPLAY_PREFIX_LENGTH = 8;

export interface OperationsDependencies {
  /** The table, bound by the request's deadline when there is one. */
  readonly table: AdminTable;
  /** Where audit entries are settled: a later deadline, so a change that used its time still gets its outcome. */
  readonly auditTable?: AdminTable;
  readonly actor: Actor;
  /** Needed to add members: finds people by email, creates those who are not users yet. */
  readonly directory?: UserDirectory;
}

export type AuditReason = NonNullable<AuditEntryItem['reason']>;

/** How a failed change is recorded: the code the API answers with, and its message. */
export function reasonOf(error: unknown): AuditReason {
  const message = error instanceof Error ? error.message : 'unknown error';
  if (error instanceof StaleDraftError) return { code: 'PRECONDITION_FAILED', message };
  if (error instanceof VersionNotPublishedError && !error.draft) return { code: 'NOT_FOUND', message };
  if (error instanceof ConflictError || error instanceof ImmutableVersionError) return { code: 'CONFLICT', message };
  if (error instanceof NotFoundError) return { code: 'NOT_FOUND', message };
  if (error instanceof InvalidLabelError) return { code: 'BAD_REQUEST', message };
  if (error instanceof StoreUnavailableError) return { code: 'SERVICE_UNAVAILABLE', message: 'the store could not answer' };
  return { code: 'INTERNAL_ERROR', message: 'unexpected error' };
}

/** How an actor is named on what they changed (`updatedBy`, `createdBy`): people by email, operators as `cli:<who>`. */
export const actorName = (actor: Actor): string => (actor.type === 'user' ? actor.email : `cli:${actor.operator}`);

type Attempt = Omit<AuditAttempt, 'actor'>;

/**
 * Every change people make to an account, through the management API or the CLI (two doors, one set
 * of operations), each recorded in the audit log before it is made and settled after (docs/data-model.md). Whether the caller may make it is the door's to decide; an attempt it refuses is recorded
 * with `refuse`.
 */
export class AccountOperations {
  private readonly table: AdminTable;
  private readonly auditTable: AdminTable;
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

  private audited<T>(attempt: Attempt, change: () => Promise<{ result: T; after?: Record<string, unknown> }>): Promise<T> {
    return auditedChange(this.table, { ...attempt, actor: this.actor }, change, { settleTable: this.auditTable, reasonOf });
  }

  // Members

  async addMember(accountId: string, input: { email: string; role: Role }): Promise<{ member: Member; temporaryPassword?: string }> {
    const email = normalizeEmail(input.email);
    const directory = this.deps.directory;
    if (!directory) throw new Error('adding members needs the user directory (USER_POOL_ID)');
    return this.audited({ accountId, action: 'member.add', target: { email }, requested: { email, role: input.role } }, async () => {
      const found = await directory.findByEmail(email);
      const created = found ? undefined : await directory.createUser(email);
      const user = found ?? created?.user;
      if (!user) throw new Error('the user directory returned no user');
      const member = await addMember(this.table, accountId, { userId: user.userId, email: user.email, role: input.role }, this.by);
      return {
        result: { member, ...(created?.temporaryPassword ? { temporaryPassword: created.temporaryPassword } : {}) },
        after: { userId: member.userId, role: member.role, userCreated: created !== undefined },
      };
    });
  }

  setMemberRole(accountId: string, userId: string, role: Role, before?: Member): Promise<Member> {
    return this.audited(
      { accountId, action: 'member.set-role', target: { userId }, requested: { role }, ...(before ? { before: { role: before.role } } : {}) },
      async () => {
        const { after } = await setMemberRole(this.table, accountId, userId, role);
        return { result: after, after: { role: after.role } };
      },
    );
  }

  removeMember(accountId: string, userId: string, before?: Member): Promise<Member> {
    return this.audited(
      { accountId, action: 'member.remove', target: { userId }, ...(before ? { before: { role: before.role, email: before.email } } : {}) },
      async () => ({ result: await removeMember(this.table, accountId, userId) }),
    );
  }

  // The account

  updateSettings(accountId: string, change: { name?: string; protectedLabels?: string[] }): Promise<AccountSettings> {
    return this.audited({ accountId, action: 'account.update', target: { accountId }, requested: change }, async () => {
      const { before, after } = await updateAccountSettings(this.table, accountId, change);
      return {
        result: after,
        after: { name: after.name, protectedLabels: after.protectedLabels, was: { name: before.name, protectedLabels: before.protectedLabels } },
      };
    });
  }

  // Prompts, drafts, labels

  createPrompt(accountId: string, prompt: { promptId: string; promptName: string }): Promise<PromptListEntry> {
    return this.audited({ accountId, action: 'prompt.create', target: { promptId: prompt.promptId }, requested: prompt }, async () => ({
      result: await createPrompt(this.table, accountId, prompt, this.by),
      after: { promptName: prompt.promptName },
    }));
  }

  createDraft(accountId: string, promptId: string, version: string, content: VersionContent): Promise<StoredVersionContent> {
    return this.audited({ accountId, action: 'draft.create', target: { promptId, version }, requested: content }, async () => {
      const draft = await createDraft(this.table, accountId, promptId, version, content, this.by);
      return { result: draft, after: { etag: draft.etag } };
    });
  }

  replaceDraft(accountId: string, promptId: string, version: string, content: VersionContent, ifMatch: string): Promise<StoredVersionContent> {
    return this.audited({ accountId, action: 'draft.save', target: { promptId, version }, requested: content, before: { etag: ifMatch } }, async () => {
      const { after } = await replaceDraft(this.table, accountId, promptId, version, content, ifMatch, this.by);
      return { result: after, after: { etag: after.etag } };
    });
  }

  deleteDraft(accountId: string, promptId: string, version: string, ifMatch: string): Promise<void> {
    return this.audited({ accountId, action: 'draft.delete', target: { promptId, version }, before: { etag: ifMatch } }, async () => ({
      result: await deleteDraft(this.table, accountId, promptId, version, ifMatch, this.by),
    }));
  }

  publish(accountId: string, promptId: string, version: string, ifMatch: string, note: string): Promise<VersionSummary> {
    return this.audited({ accountId, action: 'version.publish', target: { promptId, version }, requested: { note }, before: { etag: ifMatch } }, async () => ({
      result: await publishDraft(this.table, accountId, promptId, version, ifMatch, note, this.by),
      after: { published: true, note },
    }));
  }

  setLabel(accountId: string, promptId: string, label: string, version: string): Promise<LabelChange> {
    return this.audited({ accountId, action: 'label.set', target: { promptId, label }, requested: { version } }, async () => {
      const result = await setLabel(this.table, accountId, promptId, label, version);
      return { result, after: { version, was: result.previousVersion ?? null } };
    });
  }

  removeLabel(accountId: string, promptId: string, label: string): Promise<LabelChange> {
    return this.audited({ accountId, action: 'label.remove', target: { promptId, label } }, async () => {
      const result = await removeLabel(this.table, accountId, promptId, label);
      // The CLI's unlabel is a no-op on a missing label; a person removing one that is not there is told so.
      if (!result.changed) throw new NotFoundError(`prompt ${promptId} has no label ${label}`);
      return { result, after: { was: result.previousVersion ?? null } };
    });
  }

  /**
   * A new name, description or tags. A new name is what the read API serves from the next request: the label
   * items carry copies of it, and the account's prompt revision moves, as for every change the read API shows.
   */
  updatePromptDetails(accountId: string, promptId: string, change: PromptDetailsChange): Promise<PromptDetails> {
    return this.audited({ accountId, action: 'prompt.update', target: { promptId }, requested: change }, async () => {
      const { before, after } = await updatePromptDetails(this.table, accountId, promptId, change, this.by);
      if (after.promptName !== before.promptName) {
        await syncLabelCopies(this.table, accountId, promptId);
        await bumpPromptsRevision(this.table, accountId);
      }
      return { result: after, after: { ...after } };
    });
  }

  deletePrompt(accountId: string, promptId: string): Promise<{ alreadyDeleted: boolean }> {
    return this.audited({ accountId, action: 'prompt.delete', target: { promptId } }, async () => ({
      result: await deletePrompt(this.table, accountId, promptId),
      after: { deleted: true },
    }));
  }

  restorePrompt(accountId: string, promptId: string): Promise<{ alreadyVisible: boolean }> {
    return this.audited({ accountId, action: 'prompt.restore', target: { promptId } }, async () => ({
      result: await restorePrompt(this.table, accountId, promptId),
      after: { deleted: false },
    }));
  }

  // Keys: the key itself is returned to the caller once and goes nowhere else (not the audit log).

  createKey(
    accountId: string,
    settings: { name: string; monthlyLimit?: number; scope?: string[]; expiresAt?: number },
  ): Promise<{ key: AdminApiKey; apiKey: string }> {
    return this.audited({ accountId, action: 'key.create', target: { name: settings.name }, requested: requestedKeySettings(settings) }, async () => {
      const apiKey = generateApiKey();
      const keyHash = hashApiKey(apiKey);
      const key = await createApiKey(this.table, {
        keyHash,
        keyId: keyIdFromHash(keyHash),
        accountId,
        displayPrefix: apiKey.slice(0, DISPLAY_PREFIX_LENGTH),
        createdBy: this.by,
        ...settings,
      });
      return { result: { key, apiKey }, after: publicKeyFields(key) };
    });
  }

  updateKey(accountId: string, keyId: string, change: ApiKeyChange): Promise<AdminApiKey> {
    return this.audited({ accountId, action: 'key.update', target: { keyId }, requested: requestedKeySettings(change) }, async () => {
      const key = await updateApiKey(this.table, accountId, keyId, change);
      return { result: key, after: publicKeyFields(key) };
    });
  }

  rotateKey(accountId: string, keyId: string, graceMs: number): Promise<{ created: AdminApiKey; retired: AdminApiKey; apiKey: string }> {
    return this.audited({ accountId, action: 'key.rotate', target: { keyId }, requested: { graceSeconds: graceMs / 1000 } }, async () => {
      const apiKey = generateApiKey();
      const keyHash = hashApiKey(apiKey);
      const { created, retired } = await rotateApiKey(
        this.table,
        accountId,
        keyId,
        { keyHash, keyId: keyIdFromHash(keyHash), displayPrefix: apiKey.slice(0, DISPLAY_PREFIX_LENGTH), createdBy: this.by },
        graceMs,
      );
      return { result: { created, retired, apiKey }, after: { newKeyId: created.keyId, graceMs } };
    });
  }

  revokeKey(accountId: string, keyId: string): Promise<{ key: AdminApiKey; alreadyRevoked: boolean }> {
    return this.audited({ accountId, action: 'key.revoke', target: { keyId } }, async () => {
      const result = await revokeApiKeyById(this.table, accountId, keyId);
      return { result, after: { status: 'revoked' } };
    });
  }

  // What only an operator changes: the management API has no route to these (the CLI's accounts commands call them).

  createAccount(account: NewAccount): Promise<AdminAccount> {
    const { accountId, name, plan } = account;
    return this.audited({ accountId, action: 'account.create', target: { accountId }, requested: { name, plan } }, async () => {
      const created = await createAccount(this.table, account);
      return { result: created, after: { name: created.name, plan: created.plan } };
    });
  }

  /** From each key's next request. An account that does not exist is refused before anything is written: it has no log. */
  async setAccountPlan(accountId: string, plan: Plan): Promise<void> {
    const before = await requireAccount(this.table, accountId);
    await this.audited({ accountId, action: 'account.set-plan', target: { accountId }, requested: { plan }, before: { plan: before.plan } }, async () => {
      await setAccountPlan(this.table, accountId, plan);
      return { result: undefined, after: { plan } };
    });
  }
}

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
