import { generateAccountId } from '../../lambda/domain/account-id';
import { listAccounts } from '../../lambda/features/accounts/accounts';
import { type Command, requiredOption, stringOption, table, UsageError } from '../command';
import { accountOption, planOption } from '../option-values';

const create: Command = {
  words: ['accounts', 'create'],
  summary: 'Create an account',
  synopsis: '--name <name> --plan <free|pro> [--id <accountId>]',
  help: [
    '--name <name>     what the account is called (required)',
    '--plan <plan>     free (5,000 requests a month per key) or pro (50,000) (required)',
    '--id <accountId>  the account id; generated (acct_...) when left out',
  ],
  examples: ['accounts create --name "Acme Ltd" --plan pro', 'accounts create --name "Acme Ltd" --plan free --id acme'],
  options: { name: { type: 'string' }, plan: { type: 'string' }, id: { type: 'string' } },
  async run(context, args) {
    const name = requiredOption(args, 'name').trim();
    if (name === '' || name.length > 256) throw new UsageError('--name must be 1 to 256 characters');
    const plan = planOption(args);
    const accountId = stringOption(args, 'id') === undefined ? generateAccountId() : accountOption(args, 'id');
    const account = await context.operations().accounts.create({ accountId, name, plan });
    return { json: account, text: `Created account ${account.accountId} (${account.name}, plan ${account.plan})` };
  },
};

const setPlan: Command = {
  words: ['accounts', 'set-plan'],
  summary: "Change an account's plan",
  synopsis: '--account <accountId> --plan <free|pro>',
  help: [
    '--account <accountId>  the account (required)',
    '--plan <plan>          free or pro (required); applies to every key of the account from the next request',
  ],
  examples: ['accounts set-plan --account acme --plan pro'],
  options: { account: { type: 'string' }, plan: { type: 'string' } },
  async run(context, args) {
    const accountId = accountOption(args);
    const plan = planOption(args);
    await context.operations().accounts.setPlan(accountId, plan);
    return { json: { accountId, plan }, text: `Account ${accountId} is now on plan ${plan}` };
  },
};

const list: Command = {
  words: ['accounts', 'list'],
  summary: 'List every account',
  synopsis: '',
  help: [],
  examples: ['accounts list', 'accounts list --json'],
  options: {},
  async run(context) {
    const accounts = await listAccounts(context.table());
    const rows = accounts.map((account) => [account.accountId, account.plan, account.createdAt ?? '', account.name]);
    return {
      json: accounts,
      text: accounts.length === 0 ? 'No accounts' : table(['ACCOUNT', 'PLAN', 'CREATED', 'NAME'], rows),
    };
  },
};

export const accountCommands: readonly Command[] = [create, setPlan, list];
