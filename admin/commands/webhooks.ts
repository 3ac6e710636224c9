import type { WebhookItem } from '../../lambda/table/item-types';
import { type Command, operationsOn, requiredOption, stringOption, table, UsageError } from '../command';
import { accountOption } from '../option-values';
import { listWebhooks } from '../../lambda/table/webhooks';

/** Webhooks from the CLI (docs/events.md "Webhooks"): the operations the management API uses, audited as `cli`. */

const webhookOption = (args: Parameters<Command['run']>[1]): string => requiredOption(args, 'webhook');

/** A webhook as the CLI shows it: never a secret, sealed or not. */
const shown = ({ webhookId, url, events, enabled, description, createdAt, createdBy, updatedAt }: WebhookItem) => ({
  webhookId,
  url,
  events,
  enabled,
  description,
  createdAt,
  createdBy,
  updatedAt,
});

const create: Command = {
  words: ['webhooks', 'create'],
  summary: "Create a webhook for an account's events; its signing secret is shown once",
  synopsis: '--account <accountId> --url <url> --events <types>|* [--description <text>]',
  help: [
    '--account <accountId>  the account (required)',
    '--url <url>            where deliveries go: https to a public address (locally, http://127.0.0.1:<port> too)',
    '--events <types>       event types, comma-separated (prompt.label.moved,rollout.completed), or * for every one',
    '--description <text>   what it is for, at most 500 characters',
    'The secret is printed once and stored sealed only: keep it now, it cannot be shown again (rotate for a new one).',
  ],
  examples: ["webhooks create --account acme --url https://hooks.example.com/prompts --events 'prompt.label.moved,rollout.completed'"],
  options: { account: { type: 'string' }, url: { type: 'string' }, events: { type: 'string' }, description: { type: 'string' } },
  async run(context, args) {
    const accountId = accountOption(args);
    const url = requiredOption(args, 'url');
    const events = requiredOption(args, 'events')
      .split(',')
      .map((type) => type.trim())
      .filter((type) => type !== '');
    if (events.length === 0) throw new UsageError('--events must name at least one event type, or be *');
    const description = stringOption(args, 'description');
    const { webhook, secret } = await (await operationsOn(context, accountId)).webhooks.create(accountId, {
      url,
      events,
      ...(description === undefined ? {} : { description }),
    });
    return {
      json: { webhook: shown(webhook), secret },
      text: [
        `Created webhook ${webhook.webhookId} for account ${accountId}, sending ${webhook.events.join(', ')} to ${webhook.url}.`,
        'This is the only time its signing secret is shown; store it now:',
        '',
        `  ${secret}`,
        '',
      ].join('\n'),
    };
  },
};

const list: Command = {
  words: ['webhooks', 'list'],
  summary: "List an account's webhooks (never a secret)",
  synopsis: '--account <accountId>',
  help: ['--account <accountId>  the account (required)'],
  examples: ['webhooks list --account acme'],
  options: { account: { type: 'string' } },
  async run(context, args) {
    const accountId = accountOption(args);
    const webhooks = await listWebhooks(context.table(), accountId);
    return {
      json: webhooks.map(shown),
      text:
        webhooks.length === 0
          ? `Account ${accountId} has no webhooks`
          : table(
              ['WEBHOOK ID', 'URL', 'EVENTS', 'ENABLED', 'CREATED'],
              webhooks.map((webhook) => [webhook.webhookId, webhook.url, webhook.events.join(','), webhook.enabled ? 'yes' : 'no', webhook.createdAt]),
            ),
    };
  },
};

const remove: Command = {
  words: ['webhooks', 'delete'],
  summary: 'Delete a webhook: nothing more is sent to it',
  synopsis: '--account <accountId> --webhook <webhookId>',
  help: ['--account <accountId>  the account (required)', '--webhook <webhookId>  the webhook, as webhooks list shows it (required)'],
  examples: ['webhooks delete --account acme --webhook wh_0123456789abcdef'],
  options: { account: { type: 'string' }, webhook: { type: 'string' } },
  async run(context, args) {
    const accountId = accountOption(args);
    const webhookId = webhookOption(args);
    const webhook = await (await operationsOn(context, accountId)).webhooks.delete(accountId, webhookId);
    return { json: shown(webhook), text: `Deleted webhook ${webhookId} (${webhook.url}) of account ${accountId}.` };
  },
};

const test: Command = {
  words: ['webhooks', 'test'],
  summary: 'Send a webhook a webhook.test event (to it alone)',
  synopsis: '--account <accountId> --webhook <webhookId>',
  help: ['--account <accountId>  the account (required)', '--webhook <webhookId>  the webhook (required); a disabled one is tested too'],
  examples: ['webhooks test --account acme --webhook wh_0123456789abcdef'],
  options: { account: { type: 'string' }, webhook: { type: 'string' } },
  async run(context, args) {
    const accountId = accountOption(args);
    const webhookId = webhookOption(args);
    const { eventId } = await (await operationsOn(context, accountId)).webhooks.test(accountId, webhookId);
    return { json: { eventId }, text: `Queued ${eventId} (webhook.test) for webhook ${webhookId}: its delivery carries it as webhook-id.` };
  },
};

export const webhookCommands: readonly Command[] = [create, list, remove, test];
