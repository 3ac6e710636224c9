import * as z from 'zod/mini';
import { contract, described, named } from '../contract';
import { PromptId } from '../fields';

/** The audit log, read and never written through the API. */

const DAY_OR_INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?Z)?$/;

/** The instant a filter's bound means: a day is the whole of it (UTC), from its first millisecond or to its last. */
function instantOf(text: string, end: 'from' | 'to'): Date {
  return new Date(text.length === 10 ? `${text}T${end === 'from' ? '00:00:00.000' : '23:59:59.999'}Z` : text);
}

/** A day (the whole of it, UTC) or an instant, ISO 8601; read as the instant a filter's bound means. */
const AuditBound = (end: 'from' | 'to') =>
  z.pipe(
    z.string().check(
      z.regex(DAY_OR_INSTANT, { error: 'must be a day (2026-11-24) or an instant in UTC (2026-11-24T10:00:00Z)' }),
      // Only of what has the shape: the pattern's own problem is the one to name.
      z.refine(
        (text) => {
          const at = instantOf(text, end);
          return !DAY_OR_INSTANT.test(text) || (!Number.isNaN(at.getTime()) && at.toISOString().startsWith(text.slice(0, 10)));
        },
        { error: 'must be a day or an instant that exists' },
      ),
    ),
    z.transform((text: string) => instantOf(text, end).toISOString()),
  );

/** The audit log's query (docs/management-api.md, "The management API": Audit log): the page's cursor, and filters that each narrow the log. */
export const AuditQuery = z.object({
  before: z.optional(described('The cursor `next` of the previous page', z.string())),
  actor: z.optional(
    described(
      "Who: a person's email, or a CLI operator's identity",
      z.string().check(z.trim(), z.minLength(1, { error: 'must not be empty' }), z.maxLength(320, { error: 'must be at most 320 characters' })),
    ),
  ),
  prompt: z.optional(described('Changes to this prompt id', PromptId)),
  action: z.optional(
    described(
      'One action, e.g. `label.set` or `version.publish`',
      z.string().check(z.regex(/^[a-z]+(\.[a-z-]+)+$/, { error: 'must be an action such as label.set or version.publish' }), z.maxLength(64)),
    ),
  ),
  outcome: z.optional(
    described('`succeeded`, `failed` or `refused`', z.enum(['succeeded', 'failed', 'refused'], { error: 'must be succeeded, failed or refused' })),
  ),
  from: z.optional(described('From this instant or day (ISO 8601, UTC), included', AuditBound('from'))),
  to: z.optional(described('To this instant or day (ISO 8601, UTC), included', AuditBound('to'))),
});

const Actor = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('user'), userId: z.string(), email: z.string() }),
  z.strictObject({ type: z.literal('cli'), operator: z.string() }),
  z.strictObject({ type: z.literal('system'), name: z.enum(['rollout-steps', 'guard-alarm']) }),
]);

export const AuditEntry = named(
  'AuditEntry',
  z.strictObject({
    entryId: z.string(),
    at: z.string(),
    actor: Actor,
    action: z.string(),
    target: z.record(z.string(), z.string()),
    requested: z.optional(
      described("The change asked for (a request's body, strings cut at 200 characters, 4 levels, 100 values), never a key's secret", z.unknown()),
    ),
    before: z.optional(z.record(z.string(), z.unknown())),
    after: z.optional(z.record(z.string(), z.unknown())),
    outcome: described(
      "`succeeded`: written in the change's own transaction; `refused`: nothing changed; `failed`: a step outside the transaction (the user pool) went wrong. `pending` only on entries written before every change was one transaction",
      z.enum(['succeeded', 'failed', 'refused', 'pending']),
    ),
    reason: z.optional(z.strictObject({ code: z.string(), message: z.string() })),
    settledAt: z.optional(z.string()),
  }),
);

const AuditPage = named(
  'AuditPage',
  z.strictObject({
    entries: z.array(AuditEntry),
    next: described('Pass as `before` for the next page; null on the last', z.nullable(z.string())),
  }),
);

export const readAudit = contract({
  method: 'GET',
  path: '/api/accounts/{accountId}/audit',
  summary: 'The audit log, newest first, 50 a page, narrowed by any of the filters',
  query: AuditQuery,
  answers: { 200: AuditPage },
});
