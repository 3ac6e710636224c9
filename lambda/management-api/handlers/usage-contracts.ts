import * as z from 'zod/mini';
import { contract, described, named } from '../contract';

/** Requests counted per key: the month and each UTC day. */

const Month = z.string().check(z.regex(/^\d{4}-(0[1-9]|1[0-2])$/, { error: 'must be YYYY-MM, e.g. 2026-11' }));

const Usage = named(
  'Usage',
  z.strictObject({
    month: z.string(),
    keys: z.array(
      z.strictObject({
        keyId: z.string(),
        name: z.nullable(z.string()),
        used: z.int(),
        limit: z.int(),
        days: described('Count per UTC day, `01` to `31`; null for months before the last two', z.nullable(z.record(z.string(), z.int()))),
      }),
    ),
    modelTokens: described("The month's model tokens of runs (input and output), counted against the budget", z.int()),
    modelTokensByDay: described('Model tokens per UTC day, `01` to `31`, of days with any', z.record(z.string(), z.int())),
  }),
);

export const readUsage = contract({
  method: 'GET',
  path: '/api/accounts/{accountId}/usage',
  summary: 'Per key: the month count and limit, and a count per UTC day',
  query: z.object({ month: z.optional(described('YYYY-MM (UTC); this month when absent', Month)) }),
  answers: { 200: Usage },
});
