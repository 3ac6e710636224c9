import type { AdminApiKey } from '../../lambda/table/item-builders';
import { keyUsage, listApiKeys } from '../../lambda/features/keys/keys';
import { isPlan, monthlyLimitFor } from '../../lambda/domain/plans';
import { quotaPeriodAt } from '../../lambda/domain/quota-period';
import { type Command, type CommandContext, stringOption, table } from '../command';
import { accountOption, keyIdOption, monthOption } from '../option-values';

/** How many keys' counts are read at once: enough to be quick, few enough to stay clear of throttling. */
const READ_CONCURRENCY = 4;

interface KeyMonth {
  keyId: string;
  status: AdminApiKey['status'];
  used: number;
  limit: number;
  remaining: number;
}

async function keyMonth(context: CommandContext, accountId: string, keyId: string, month: string): Promise<KeyMonth> {
  const { key, plan, used } = await keyUsage(context.table(), accountId, keyId, month);
  if (!isPlan(plan)) throw new Error(`account ${accountId} has an unknown plan "${plan}"`);
  const limit = monthlyLimitFor(plan, key.monthlyLimit);
  return { keyId, status: key.status, used, limit, remaining: Math.max(0, limit - used) };
}

async function inBatches<T, R>(items: readonly T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += size) {
    results.push(...(await Promise.all(items.slice(start, start + size).map(work))));
  }
  return results;
}

const usage: Command = {
  words: ['usage'],
  summary: "Request counts and limits for a month: one key's, or every key's of an account",
  synopsis: '--account <accountId> [--key <keyId>] [--month <YYYY-MM>]',
  help: [
    '--account <accountId>  the account (required)',
    '--key <keyId>          one key, e.g. key_0123456789abcdef; without it, every key of the account',
    '--month <YYYY-MM>      the UTC calendar month (default: this month)',
    "The limit is the key's own monthly limit if it has one, else its account's plan's.",
  ],
  examples: [
    'usage --account acme',
    'usage --account acme --key key_0123456789abcdef',
    'usage --account acme --key key_0123456789abcdef --month 2026-10 --json',
  ],
  options: { account: { type: 'string' }, key: { type: 'string' }, month: { type: 'string' } },
  async run(context, args) {
    const accountId = accountOption(args);
    const month = monthOption(args, quotaPeriodAt(context.now()).month);
    if (stringOption(args, 'key') !== undefined) {
      const one = await keyMonth(context, accountId, keyIdOption(args), month);
      return {
        json: { accountId, keyId: one.keyId, month, used: one.used, limit: one.limit, remaining: one.remaining, status: one.status },
        text: `Key ${one.keyId} (${one.status}) used ${one.used} of ${one.limit} requests in ${month}`,
      };
    }
    const keys = await listApiKeys(context.table(), accountId);
    const months = await inBatches(keys, READ_CONCURRENCY, (key) => keyMonth(context, accountId, key.keyId, month));
    const rows = months.map((row) => [row.keyId, row.status, String(row.used), String(row.limit), String(row.remaining)]);
    return {
      json: { accountId, month, keys: months },
      text:
        months.length === 0
          ? `Account ${accountId} has no keys`
          : `Usage of account ${accountId}'s keys in ${month}:\n${table(['KEY ID', 'STATUS', 'USED', 'LIMIT', 'REMAINING'], rows)}`,
    };
  },
};

export const usageCommands: readonly Command[] = [usage];
