import { NotFoundError } from '../../table/errors';
import { RUN_ID_PATTERN, readRunItem, runItemsPage } from '../../table/runs';
import type { Table } from '../../table/table';
import type { RunRecord } from './run-record';
import { runFromItem } from './stored-run';

/** Runs are read by any member of their account (docs/runs.md "Runs"): one, or a page of them newest first. */

export const RUNS_PAGE_SIZE = 50;

export const isRunId = (value: string): boolean => RUN_ID_PATTERN.test(value);

/** One run of the account; another account's, or one gone after 90 days, is not found. */
export async function getRun(table: Table, accountId: string, runId: string): Promise<RunRecord> {
  const item = isRunId(runId) ? await readRunItem(table, accountId, runId) : undefined;
  if (!item) throw new NotFoundError(`account ${accountId} has no run ${runId}`);
  const run = runFromItem(item);
  if (!('messages' in run)) throw new Error(`run ${runId} was kept without its messages`);
  return run;
}

/** A page of the account's runs (of one prompt, when given), newest first, without their messages; `next` goes on below it. */
export async function listRuns(
  table: Table,
  accountId: string,
  options: { readonly promptId?: string; readonly before?: string; readonly limit?: number } = {},
): Promise<{ runs: Omit<RunRecord, 'messages'>[]; next?: string }> {
  const page = await runItemsPage(table, accountId, { ...options, limit: options.limit ?? RUNS_PAGE_SIZE });
  return { runs: page.items.map((item) => runFromItem({ run: item.run })), ...(page.next ? { next: page.next } : {}) };
}
