import { actorIdentity } from '../../domain/actor';
import type { OperationContext } from '../../operations/context';
import type { ChangeRequestItem } from '../../table/item-types';
import { planApproveChangeRequest } from './approving';
import { type ChangeRequestDecision, type Decider, planCloseChangeRequest } from './decisions';

/** Which change request a decision is about, as its audit entry names it. */
type Decided = Pick<ChangeRequestItem, 'requestId' | 'promptId' | 'label'>;

/**
 * Change requests (`ops.changeRequests`, docs/management-api.md "Change requests"): a move of a label under approval,
 * asked for (by the label's own operations, the rollouts' start and a push), then decided here.
 */
export class ChangeRequestOperations {
  constructor(private readonly context: OperationContext) {}

  /**
   * The caller's approval; the `required`-th that counts (from a member who may still give it) applies the move, or
   * finds the request stale (`stale: true`). Whether the caller may approve now is the door's to say.
   */
  approve(accountId: string, changeRequest: Decided, comment?: string): Promise<ChangeRequestDecision> {
    return this.context.audited({ accountId, action: 'request.approve', target: decided(changeRequest), ...commented(comment) }, () =>
      planApproveChangeRequest(this.context.table, accountId, changeRequest.requestId, this.decider(comment)),
    );
  }

  reject(accountId: string, changeRequest: Decided, comment?: string): Promise<ChangeRequestDecision> {
    return this.context.audited({ accountId, action: 'request.reject', target: decided(changeRequest), ...commented(comment) }, () =>
      planCloseChangeRequest(this.context.table, accountId, changeRequest.requestId, 'rejected', this.decider(comment)),
    );
  }

  withdraw(accountId: string, changeRequest: Decided): Promise<ChangeRequestDecision> {
    return this.context.audited({ accountId, action: 'request.withdraw', target: decided(changeRequest) }, () =>
      planCloseChangeRequest(this.context.table, accountId, changeRequest.requestId, 'withdrawn', this.decider()),
    );
  }

  private decider(comment?: string): Decider {
    return { who: actorIdentity(this.context.actor), by: this.context.by, ...(comment === undefined ? {} : { comment }) };
  }
}

const decided = ({ requestId, promptId, label }: Decided) => ({ requestId, promptId, label });
const commented = (comment: string | undefined) => (comment === undefined ? {} : { requested: { comment } });
