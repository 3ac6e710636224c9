import { isPlan, monthlyLimitFor } from '../../lambda/domain/plans';
import { quotaPeriodAt } from '../../lambda/domain/quota-period';
import type { Command } from '../command';
import { accountOption, keyIdOption, monthOption } from '../option-values';

const usage: Command = {
  words: ['usage'],
  summary: "A key's request count and limit for a month",
  synopsis: '--account <accountId> --key <keyId> [--month <YYYY-MM>]',
  help: [
    '--account <accountId>  the account the key belongs to (required)',
    '--key <keyId>          the key id, e.g. key_0123456789abcdef (required)',
    '--month <YYYY-MM>      the UTC calendar month (default: this month)',
    "The limit is the key's own monthly limit if it has one, else its account's plan's.",
  ],
  examples: ['usage --account acme --key key_0123456789abcdef', 'usage --account acme --key key_0123456789abcdef --month 2026-10 --json'],
  options: { account: { type: 'string' }, key: { type: 'string' }, month: { type: 'string' } },
  async run(context, args) {
    const accountId = accountOption(args);
    const keyId = keyIdOption(args);
    const month = monthOption(args, quotaPeriodAt(context.now()).month);
    const { key, plan, used } = await context.admin().keyUsage(accountId, keyId, month);
    if (!isPlan(plan)) throw new Error(`account ${accountId} has an unknown plan "${plan}"`);
    const limit = monthlyLimitFor(plan, key.monthlyLimit);
    return {
      json: { accountId, keyId, month, used, limit, remaining: Math.max(0, limit - used), status: key.status },
      text: `Key ${keyId} (${key.status}) used ${used} of ${limit} requests in ${month}`,
    };
  },
};

export const usageCommands: readonly Command[] = [usage];
