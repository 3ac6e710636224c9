import type { RunItem, WithKeys } from './item-types';
import { newestFirstPage, belowKey } from './newest-first';
import { runKeys, TTL_ATTRIBUTE } from './schema';
import type { Table } from './table';
import type { TransactionWrite } from './transaction';
import { buildCondition } from './update-expression';

/**
 * Runs of prompts on models as the table holds them: one item each in the account's partition, written once (in
 * the transaction that settles its tokens) and kept 90 days, then DynamoDB removes it (`ttl`). What a run is and
 * says is lambda/features/runs/'s; here, its item.
 */

export const RUN_RETENTION_DAYS = 90;

export { RUN_ID_PATTERN } from '../domain/run-rules';

export const runIdAt = (at: string, tail: string): string => `run_${at.replace(/[-:.]/g, '')}_${tail}`;

export interface StoredRun {
  readonly runId: string;
  readonly promptId: string | undefined;
  readonly at: string;
  /** The run without its messages: JSON text as stored. */
  readonly run: string;
  readonly messages: string;
}

/** The put of a run, conditional on its id being new. */
export function runWrite(accountId: string, stored: StoredRun): TransactionWrite {
  const item: WithKeys<RunItem> = {
    ...runKeys.run(accountId, stored.runId),
    type: 'run',
    accountId,
    runId: stored.runId,
    ...(stored.promptId === undefined ? {} : { promptId: stored.promptId }),
    at: stored.at,
    run: stored.run,
    messages: stored.messages,
    [TTL_ATTRIBUTE]: Math.floor(Date.parse(stored.at) / 1000) + RUN_RETENTION_DAYS * 24 * 60 * 60,
  };
  return { Put: { Item: item, ConditionExpression: 'attribute_not_exists(pk)' } };
}

export function readRunItem(table: Table, accountId: string, runId: string): Promise<RunItem | undefined> {
  return table.get<RunItem>('readRun', runKeys.run(accountId, runId));
}

/** A page of the account's runs (of one prompt, when given), newest first, without their messages. */
export async function runItemsPage(
  table: Table,
  accountId: string,
  options: { readonly promptId?: string; readonly before?: string; readonly limit: number },
): Promise<{ items: Pick<RunItem, 'runId' | 'run'>[]; next?: string }> {
  const page = await newestFirstPage<WithKeys<Pick<RunItem, 'runId' | 'run'>>>(table, 'listRuns', {
    accountId,
    lower: runKeys.runsPrefix,
    upper: options.before === undefined ? `${runKeys.runsPrefix}~` : belowKey(runKeys.run(accountId, options.before).sk),
    limit: options.limit,
    ...(options.promptId === undefined
      ? {}
      : {
          filter: (({ ConditionExpression, ...placeholders }) => ({ FilterExpression: ConditionExpression, ...placeholders }))(
            buildCondition((e) => `${e.name('promptId')} = ${e.value(options.promptId)}`),
          ),
        }),
  });
  return {
    items: page.items.map(({ runId, run }) => ({ runId, run })),
    ...(page.nextKey ? { next: page.nextKey.slice(runKeys.runsPrefix.length) } : {}),
  };
}
