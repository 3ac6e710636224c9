import { Operations } from '../../lambda/operations';
import type { Rollout } from '../../lambda/features/rollouts/rollouts';
import { Table } from '../../lambda/table/table';
import type { LocalStore } from './local-store';
import type { Actor } from '../../lambda/domain/actor';

/** Who the read path's tests run their rollouts as: an operator, as the admin CLI's `prompts rollout` does. */
export const ROLLOUT_OPERATOR: Actor = { type: 'cli', operator: 'rollout-tests' };

/** One label's rollout, run through the management side's operations. */
export interface LabelRollout {
  /** Starts it; the answer carries the rollout's id, which is the service's to choose. */
  start(input: { to: string; percent: number }): Promise<Rollout>;
  change(percent: number): Promise<Rollout>;
  complete(): Promise<Rollout>;
  abort(reason?: string): Promise<Rollout>;
  /** As `GET .../rollout` answers it: `served` is what a person reads of the served counts. */
  read(): Promise<Rollout>;
}

/**
 * A label's rollout as people run it (ops.rollouts: lambda/features/rollouts/operations.ts), so that what the read path is tested
 * against is what the service writes: the rollout item, the label item's copy, the history and audit entries, and
 * the account's prompt revision copied to its keys, each change in its one transaction. The label must not be under
 * approval: starting it there opens a change request instead, which these tests have no use for.
 */
export function labelRollout(
  store: Pick<LocalStore, 'client' | 'tableName'>,
  { accountId, promptId, label }: { accountId: string; promptId: string; label: string },
): LabelRollout {
  const operations = new Operations({ table: new Table(store.client, store.tableName, () => new Date()), actor: ROLLOUT_OPERATOR });
  return {
    async start(input) {
      const started = await operations.rollouts.start(accountId, promptId, label, input);
      if (!('rollout' in started)) throw new Error(`labelRollout: ${label} is under approval; starting opened ${started.changeRequest.requestId}`);
      return started.rollout;
    },
    change: (percent) => operations.rollouts.change(accountId, promptId, label, { percent }),
    complete: () => operations.rollouts.complete(accountId, promptId, label),
    abort: (reason) => operations.rollouts.abort(accountId, promptId, label, reason === undefined ? {} : { reason }),
    read: () => operations.rollouts.read(accountId, promptId, label),
  };
}
