import type { AdminApiKey } from '../../lambda/data/dynamo-admin-store';
import { generateApiKey, hashApiKey, keyIdFromHash } from '../../lambda/domain/api-key';
import { isPlan, monthlyLimitFor } from '../../lambda/domain/plans';
import { type Command, table } from '../command';
import { accountOption, countOption, keyIdOption } from '../option-values';

/** Enough of the key to recognise it in a listing (`prs_` and four more), nothing to use it with. */
const DISPLAY_PREFIX_LENGTH = 8;

const create: Command = {
  words: ['keys', 'create'],
  summary: 'Create an API key for an account; the key is shown once',
  synopsis: '--account <accountId> [--monthly-limit <n>]',
  help: [
    '--account <accountId>  the account the key belongs to (required)',
    "--monthly-limit <n>    the key's own monthly request limit, overriding the account's plan",
    'The key is printed once and only its SHA-256 hash is stored: keep it now, it cannot be shown again.',
  ],
  examples: ['keys create --account acme', 'keys create --account acme --monthly-limit 100 --json'],
  options: { account: { type: 'string' }, 'monthly-limit': { type: 'string' } },
  async run(context, args) {
    const accountId = accountOption(args);
    const monthlyLimit = countOption(args, 'monthly-limit');
    const apiKey = generateApiKey();
    const keyHash = hashApiKey(apiKey);
    const key = await context.admin().createApiKey({
      keyHash,
      keyId: keyIdFromHash(keyHash),
      accountId,
      displayPrefix: apiKey.slice(0, DISPLAY_PREFIX_LENGTH),
      ...(monthlyLimit === undefined ? {} : { monthlyLimit }),
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
    const keys = await context.admin().listApiKeys(accountId);
    return {
      json: keys.map((key) => ({ ...key, limit: limitInForce(key) })),
      text: keys.length === 0 ? `Account ${accountId} has no keys` : table(['KEY ID', 'PREFIX', 'STATUS', 'LIMIT', 'CREATED'], keys.map(keyRow)),
    };
  },
};

/** What the API holds the key to this month: its own limit, else its plan's (the key carries a copy of the plan). */
function limitInForce(key: AdminApiKey): number | undefined {
  return isPlan(key.plan) ? monthlyLimitFor(key.plan, key.monthlyLimit) : key.monthlyLimit;
}

function keyRow(key: AdminApiKey): string[] {
  const limit = limitInForce(key);
  const source = key.monthlyLimit === undefined ? `${key.plan} plan` : 'own';
  return [
    key.keyId,
    key.displayPrefix ? `${key.displayPrefix}...` : '',
    key.status,
    limit === undefined ? `? (unknown plan ${key.plan})` : `${limit} (${source})`,
    key.createdAt ?? '',
  ];
}

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
    const { key, alreadyRevoked } = await context.admin().revokeApiKeyById(accountId, keyId);
    return {
      json: { ...key, alreadyRevoked },
      text: alreadyRevoked ? `Key ${keyId} was already revoked` : `Revoked key ${keyId} of account ${accountId}`,
    };
  },
};

export const keyCommands: readonly Command[] = [create, list, revoke];
