import { type Actor, actorName } from '../domain/actor';
import type { PlannedChange } from '../features/planned-change';
import { type AuditAttempt, recordRefusal } from '../table/audit-log';
import type { Table } from '../table/table';
import type { UserDirectory } from '../users/user-directory';
import type { WebhookTools } from '../webhook-delivery/sealer-from-config';
import { commitChange } from './commit';
import { type AuditReason, reasonOf } from './reasons';

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

/** A change as its audit entry names it, before the actor is added: the account, the action, on what, asked how. */
export type Attempt = Omit<AuditAttempt, 'actor'>;

/**
 * What every feature's operations share (lambda/features/<feature>/operations.ts): the table, who acts, and the
 * one way a change is made, planned from what it reads and committed with its audit entry (commit.ts).
 */
export class OperationContext {
  readonly table: Table;
  readonly actor: Actor;
  /** How the actor is named on what they change (`updatedBy`, `createdBy`, a label history's `by`). */
  readonly by: string;
  private readonly auditTable: Table;

  constructor(readonly deps: OperationsDependencies) {
    this.table = deps.table;
    this.auditTable = deps.auditTable ?? deps.table;
    this.actor = deps.actor;
    this.by = actorName(deps.actor);
  }

  /** An attempt refused before any change: recorded, and nothing else happens. */
  refuse(attempt: Attempt, reason: AuditReason): Promise<void> {
    return recordRefusal(this.table, { ...attempt, actor: this.actor }, reason);
  }

  /** One change: planned from what it reads, then committed with its audit entry in one transaction (commit.ts). */
  audited<T>(attempt: Attempt, plan: () => Promise<PlannedChange<T>>): Promise<T> {
    return commitChange(this.table, { ...attempt, actor: this.actor }, plan, {
      reasonOf,
      followUpTable: this.auditTable,
      ...(this.deps.onCopyFailed ? { onCopyFailed: this.deps.onCopyFailed } : {}),
    });
  }
}
