import type { AdminApiKey } from '../../lambda/table/item-builders';
import { listApiKeys } from '../../lambda/features/keys/keys';
import { isPlan, monthlyLimitFor } from '../../lambda/domain/plans';
import { type Command, operationsOn, stringOption, table, UsageError } from '../command';
import { DEFAULT_GRACE, describeScope, expiresOption, graceOption, keyState, scopeOption } from '../key-settings';
import { accountOption, countOption, keyIdOption } from '../option-values';

/** What a key is called when `keys create` is given no --name (the management API asks people for one). */
export const DEFAULT_KEY_NAME = 'CLI key';

const create: Command = {
  words: ['keys', 'create'],
  summary: 'Create an API key for an account; the key is shown once',
  synopsis: '--account <accountId> [--name <name>] [--monthly-limit <n>] [--scope <ids>] [--expires <when>]',
  help: [
    '--account <accountId>  the account the key belongs to (required)',
    `--name <name>          what the key is called in listings and the dashboard, 1 to 100 characters (default "${DEFAULT_KEY_NAME}")`,
    "--monthly-limit <n>    the key's own monthly request limit, overriding the account's plan",
    '--scope <ids>          only these prompts: ids and prefixes ending in *, comma-separated (e.g. welcome-email,web.*);',
    '                       any other prompt answers 404 as if it did not exist. Default: the whole account',
    '--expires <when>       refused from then on: an instant (2026-12-31T23:59:59Z) or a time from now (30d, 12h)',
    'The key is printed once and only its SHA-256 hash is stored: keep it now, it cannot be shown again.',
  ],
  examples: [
    'keys create --account acme',
    'keys create --account acme --name "Billing service" --monthly-limit 100 --json',
    "keys create --account acme --scope 'web.*' --expires 90d",
  ],
  options: {
    account: { type: 'string' },
    name: { type: 'string' },
    'monthly-limit': { type: 'string' },
    scope: { type: 'string' },
    expires: { type: 'string' },
  },
  async run(context, args) {
    const accountId = accountOption(args);
    const name = (stringOption(args, 'name') ?? DEFAULT_KEY_NAME).trim();
    if (name === '' || name.length > 100) throw new UsageError('--name must be 1 to 100 characters');
    const monthlyLimit = countOption(args, 'monthly-limit');
    const scope = scopeOption(args, { clearable: false }) ?? undefined;
    const expiresAt = expiresOption(args, context.now(), { clearable: false }) ?? undefined;
    // The operation makes the key, keeps its hash, and hands the key back once.
    const { key, apiKey } = await (await operationsOn(context, accountId)).keys.create(accountId, {
      name,
      ...(monthlyLimit === undefined ? {} : { monthlyLimit }),
      ...(scope === undefined ? {} : { scope: [...scope] }),
      ...(expiresAt === undefined ? {} : { expiresAt }),
    });
    return {
      json: { ...key, apiKey },
      text: [
        `Created key ${key.keyId} for account ${accountId}${monthlyLimit === undefined ? '' : ` (monthly limit ${monthlyLimit})`}.`,
        'This is the only time the key is shown; store it now:',
        '',
        `  ${apiKey}`,
        '',
      ].join('\n'),
    };
  },
};

const list: Command = {
  words: ['keys', 'list'],
  summary: "List an account's keys (ids and prefixes, never the keys)",
  synopsis: '--account <accountId>',
  help: ['--account <accountId>  the account (required)'],
  examples: ['keys list --account acme'],
  options: { account: { type: 'string' } },
  async run(context, args) {
    const accountId = accountOption(args);
    const keys = await listApiKeys(context.table(), accountId);
    return {
      json: keys.map((key) => ({ ...key, limit: limitInForce(key), state: keyState(key, context.now()) })),
      text:
        keys.length === 0
          ? `Account ${accountId} has no keys`
          : table(
              ['KEY ID', 'PREFIX', 'STATE', 'LIMIT', 'SCOPE', 'EXPIRES', 'CREATED'],
              keys.map((key) => keyRow(key, context.now())),
            ),
    };
  },
};

/** What the API holds the key to this month: its own limit, else its plan's (the key carries a copy of the plan). */
function limitInForce(key: AdminApiKey): number | undefined {
  return isPlan(key.plan) ? monthlyLimitFor(key.plan, key.monthlyLimit) : key.monthlyLimit;
}

function keyRow(key: AdminApiKey, now: Date): string[] {
  const limit = limitInForce(key);
  const source = key.monthlyLimit === undefined ? `${key.plan} plan` : 'own';
  return [
    key.keyId,
    key.displayPrefix ? `${key.displayPrefix}...` : '',
    keyState(key, now),
    limit === undefined ? `? (unknown plan ${key.plan})` : `${limit} (${source})`,
    describeScope(key.scope),
    key.expiresAt === undefined ? 'never' : new Date(key.expiresAt).toISOString(),
    key.createdAt ?? '',
  ];
}

const set: Command = {
  words: ['keys', 'set'],
  summary: "Change a key's scope or expiry, or disable and enable it; applies from its next request",
  synopsis: '--account <accountId> --key <keyId> [--scope <ids>|none] [--expires <when>|never] [--disable|--enable]',
  help: [
    '--account <accountId>  the account the key belongs to (required)',
    '--key <keyId>          the key id from `keys list` (required)',
    '--scope <ids>|none     only these prompts (ids and prefixes ending in *, comma-separated); none: the whole account',
    '--expires <when>|never an instant (2026-12-31T23:59:59Z) or a time from now (30d, 12h); never: no expiry',
    '--disable / --enable   suspend the key (it answers 401 like an unknown key) or bring it back',
    'A revoked key cannot be changed: revocation is final.',
  ],
  examples: [
    "keys set --account acme --key key_0123456789abcdef --scope 'web.*,welcome-email'",
    'keys set --account acme --key key_0123456789abcdef --disable',
  ],
  options: {
    account: { type: 'string' },
    key: { type: 'string' },
    scope: { type: 'string' },
    expires: { type: 'string' },
    disable: { type: 'boolean' },
    enable: { type: 'boolean' },
  },
  async run(context, args) {
    const accountId = accountOption(args);
    const keyId = keyIdOption(args);
    if (args.values.disable === true && args.values.enable === true) {
      throw new UsageError('give --disable or --enable, not both');
    }
    const scope = scopeOption(args, { clearable: true });
    const expiresAt = expiresOption(args, context.now(), { clearable: true });
    const enabled = args.values.disable === true ? false : args.values.enable === true ? true : undefined;
    if (scope === undefined && expiresAt === undefined && enabled === undefined) {
      throw new UsageError('nothing to change: give --scope, --expires, --disable or --enable');
    }
    const key = await (await operationsOn(context, accountId)).keys.update(accountId, keyId, {
      ...(scope === undefined ? {} : { scope }),
      ...(expiresAt === undefined ? {} : { expiresAt }),
      ...(enabled === undefined ? {} : { enabled }),
    });
    const state = keyState(key, context.now());
    return {
      json: { ...key, state },
      text: `Key ${keyId}: ${state}, scope ${describeScope(key.scope)}, expires ${key.expiresAt === undefined ? 'never' : new Date(key.expiresAt).toISOString()}`,
    };
  },
};

const rotate: Command = {
  words: ['keys', 'rotate'],
  summary: 'Replace a key: a new one with the same limit and scope, the old one expiring after a grace period',
  synopsis: '--account <accountId> --key <keyId> [--grace <time>]',
  help: [
    '--account <accountId>  the account the key belongs to (required)',
    '--key <keyId>          the key to replace (required)',
    `--grace <time>         how long the old key keeps working (default ${DEFAULT_GRACE}); 0 revokes it at once`,
    'The new key is printed once, like `keys create`; its monthly count starts from zero (usage is per key).',
  ],
  examples: ['keys rotate --account acme --key key_0123456789abcdef', 'keys rotate --account acme --key key_0123456789abcdef --grace 0'],
  options: { account: { type: 'string' }, key: { type: 'string' }, grace: { type: 'string' } },
  async run(context, args) {
    const accountId = accountOption(args);
    const keyId = keyIdOption(args);
    const graceMs = graceOption(args);
    const { created, retired, apiKey } = await (await operationsOn(context, accountId)).keys.rotate(accountId, keyId, graceMs);
    const until = retired.status === 'revoked' ? 'revoked now' : `works until ${new Date(retired.expiresAt ?? 0).toISOString()}`;
    return {
      json: { ...created, apiKey, retired: { ...retired, state: keyState(retired, context.now()) } },
      text: [
        `Created key ${created.keyId} for account ${accountId}, replacing ${keyId} (${until}).`,
        'This is the only time the new key is shown; store it now:',
        '',
        `  ${apiKey}`,
        '',
      ].join('\n'),
    };
  },
};

const revoke: Command = {
  words: ['keys', 'revoke'],
  summary: 'Revoke an API key, at once and for good',
  synopsis: '--account <accountId> --key <keyId>',
  help: [
    '--account <accountId>  the account the key belongs to (required)',
    '--key <keyId>          the key id from `keys list` or the request log, e.g. key_0123456789abcdef (required)',
    'The next request with the key gets 401. Revoking an already revoked key changes nothing.',
  ],
  examples: ['keys revoke --account acme --key key_0123456789abcdef'],
  options: { account: { type: 'string' }, key: { type: 'string' } },
  async run(context, args) {
    const accountId = accountOption(args);
    const keyId = keyIdOption(args);
    const { key, alreadyRevoked } = await (await operationsOn(context, accountId)).keys.revoke(accountId, keyId);
    return {
      json: { ...key, alreadyRevoked },
      text: alreadyRevoked ? `Key ${keyId} was already revoked` : `Revoked key ${keyId} of account ${accountId}`,
    };
  },
};

export const keyCommands: readonly Command[] = [create, list, set, rotate, revoke];
