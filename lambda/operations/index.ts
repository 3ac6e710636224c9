import type { Actor } from '../domain/actor';
import { AccountOperations } from '../features/accounts/operations';
import { ChangeRequestOperations } from '../features/change-requests/operations';
import { KeyOperations } from '../features/keys/operations';
import { LabelOperations } from '../features/labels/operations';
import { MemberOperations } from '../features/members/operations';
import { PromptOperations } from '../features/prompts/operations';
import { RolloutOperations } from '../features/rollouts/operations';
import { WebhookOperations } from '../features/webhooks/operations';
import { type Attempt, OperationContext, type OperationsDependencies } from './context';
import type { AuditReason } from './reasons';

/**
 * Every change people make to an account, through the management API, the CLI, prompts as code or the rollout
 * automation (four doors, one set of operations), each recorded in the audit log with the change it makes
 * (docs/data-model.md): one feature's operations each (lambda/features/<feature>/operations.ts), acting as one actor.
 * Whether the caller may make a change is the door's to decide; an attempt it refuses is recorded with `refuse`.
 */
export class Operations {
  readonly accounts: AccountOperations;
  readonly changeRequests: ChangeRequestOperations;
  readonly keys: KeyOperations;
  readonly labels: LabelOperations;
  readonly members: MemberOperations;
  readonly prompts: PromptOperations;
  readonly rollouts: RolloutOperations;
  readonly webhooks: WebhookOperations;
  private readonly context: OperationContext;

  constructor(deps: OperationsDependencies) {
    const context = new OperationContext(deps);
    this.context = context;
    this.accounts = new AccountOperations(context);
    this.changeRequests = new ChangeRequestOperations(context);
    this.keys = new KeyOperations(context);
    this.labels = new LabelOperations(context);
    this.members = new MemberOperations(context);
    this.prompts = new PromptOperations(context);
    this.rollouts = new RolloutOperations(context);
    this.webhooks = new WebhookOperations(context);
  }

  /** Who acts. */
  get actor(): Actor {
    return this.context.actor;
  }

  /** An attempt refused before any change: recorded, and nothing else happens. */
  refuse(attempt: Attempt, reason: AuditReason): Promise<void> {
    return this.context.refuse(attempt, reason);
  }
}

export type { OperationsDependencies } from './context';
