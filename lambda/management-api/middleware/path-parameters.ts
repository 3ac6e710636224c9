import type * as z from 'zod';
import type { ManagementMiddleware } from '../management-context';
import { invalidBody } from '../management-errors';
import { nameTable } from '../name-table';
import { KeyId, Label, PromptId, RequestId, UserId, Version, WebhookId } from '../schemas';

const PARAMETERS: ReadonlyMap<string, z.ZodType<string>> = new Map([
  ['promptId', PromptId],
  ['version', Version],
  ['label', Label],
  ['keyId', KeyId],
  ['userId', UserId],
  ['requestId', RequestId],
  ['webhookId', WebhookId],
]);

/** The path's parameters, each by its rule (400 naming it), beside the account membership already checked. */
export const pathParameters = (): ManagementMiddleware => ({
  before: ({ event, context }) => {
    const params = nameTable();
    if (context.accountId !== undefined) params.accountId = context.accountId;
    for (const [name, value] of Object.entries(event.pathParameters ?? {})) {
      if (name === 'accountId' || value === undefined) continue;
      const parsed = PARAMETERS.get(name)?.safeParse(value);
      if (parsed && !parsed.success) throw invalidBody(parsed.error, name);
      params[name] = value;
    }
    context.params = params;
  },
});
