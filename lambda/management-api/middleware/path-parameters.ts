import * as z from 'zod/mini';
import { ACCOUNT_ID_PATTERN, ACCOUNT_ID_RULE } from '../../domain/account-id';
import { RUN_ID_PATTERN } from '../../domain/run-rules';
import { WEBHOOK_ID_PATTERN } from '../../domain/webhook-rules';
import { Label, PromptId, Version } from '../fields';
import { ChangeRequestId } from '../handlers/change-request-contracts';
import type { ManagementMiddleware } from '../management-context';
import { invalidBody } from '../management-errors';
import { nameTable } from '../name-table';

export const AccountId = z.string().check(z.regex(ACCOUNT_ID_PATTERN, { error: `must be ${ACCOUNT_ID_RULE}` }));
const KeyId = z.string().check(z.regex(/^key_[0-9a-f]{16}$/, { error: 'must be a key id: key_ and 16 hex digits' }));
const UserId = z.string().check(z.regex(/^[A-Za-z0-9_.:@+-]{1,128}$/, { error: 'must be a user id, as the members list shows it' }));
const RunId = z.string().check(z.regex(RUN_ID_PATTERN, { error: 'must be a run id, as the runs list shows it (run_...)' }));
const WebhookId = z.string().check(z.regex(WEBHOOK_ID_PATTERN, { error: 'must be a webhook id: wh_ and 16 hex digits' }));

/** Every path parameter by its rule (accountId's is membership.ts's); openapi-management.yaml documents each with its schema. */
export const PATH_PARAMETERS: ReadonlyMap<string, z.ZodMiniType<string>> = new Map<string, z.ZodMiniType<string>>([
  ['accountId', AccountId],
  ['promptId', PromptId],
  ['version', Version],
  ['label', Label],
  ['keyId', KeyId],
  ['userId', UserId],
  ['requestId', ChangeRequestId],
  ['webhookId', WebhookId],
  ['runId', RunId],
]);

/** The path's parameters, each by its rule (400 naming it), beside the account membership already checked. */
export const pathParameters = (): ManagementMiddleware => ({
  before: ({ event, context }) => {
    const params = nameTable();
    if (context.accountId !== undefined) params.accountId = context.accountId;
    for (const [name, value] of Object.entries(event.pathParameters ?? {})) {
      if (name === 'accountId' || value === undefined) continue;
      const parsed = PATH_PARAMETERS.get(name)?.safeParse(value);
      if (parsed && !parsed.success) throw invalidBody(parsed.error, name);
      params[name] = value;
    }
    context.params = params;
  },
});
