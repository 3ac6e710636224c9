import * as z from 'zod/mini';
import { parseInstant } from '../../domain/content-rules';
import { MAX_SCOPE_ENTRIES, SCOPE_ENTRY_PATTERN } from '../../domain/prompt-scope';
import { contract, described, named } from '../contract';
import { Name } from '../fields';

/** API keys: listed (never a secret), created, changed, rotated and revoked. */

const Scope = z
  .array(z.string().check(z.regex(SCOPE_ENTRY_PATTERN, { error: 'must be a prompt id or a prefix of one followed by *' })))
  .check(
    z.minLength(1, { error: 'must list at least one prompt id or prefix' }),
    z.maxLength(MAX_SCOPE_ENTRIES, { error: `must list at most ${MAX_SCOPE_ENTRIES} prompt ids or prefixes` }),
  );
const Instant = z
  .string()
  .check(z.refine((value) => parseInstant(value) !== undefined, { error: 'must be an ISO 8601 instant with its time zone, e.g. 2026-12-31T23:59:59Z' }));
const MonthlyLimit = z.number().check(z.int({ error: 'must be a whole number of 0 or more' }), z.gte(0, { error: 'must be a whole number of 0 or more' }));

export const KeyCreateBody = named(
  'KeyCreate',
  z.strictObject({ name: Name(100), monthlyLimit: z.optional(MonthlyLimit), scope: z.optional(Scope), expiresAt: z.optional(Instant) }),
);

/** `null` clears an own limit, a scope or an expiry. */
export const KeyPatchBody = named(
  'KeyPatch',
  z
    .strictObject({
      name: z.optional(Name(100)),
      monthlyLimit: z.optional(z.nullable(MonthlyLimit)),
      scope: z.optional(z.nullable(Scope)),
      expiresAt: z.optional(z.nullable(Instant)),
      disabled: z.optional(z.boolean({ error: 'must be true or false' })),
    })
    .check(z.refine((body) => Object.keys(body).length > 0, { error: 'give at least one of name, monthlyLimit, scope, expiresAt, disabled' })),
);

export const MAX_GRACE_SECONDS = 30 * 86_400;
const GRACE_ERROR = `must be a whole number of seconds from 0 to ${MAX_GRACE_SECONDS}`;

export const RotateBody = named(
  'Rotate',
  z.strictObject({
    graceSeconds: z.number().check(z.int({ error: GRACE_ERROR }), z.gte(0, { error: GRACE_ERROR }), z.lte(MAX_GRACE_SECONDS, { error: GRACE_ERROR })),
  }),
);

export const KEY_STATES = ['active', 'disabled', 'expired', 'revoked'] as const;

export const KeyAnswer = named(
  'Key',
  z.strictObject({
    keyId: z.string(),
    name: z.nullable(z.string()),
    displayPrefix: z.nullable(z.string()),
    state: z.enum(KEY_STATES),
    limit: z.optional(described("The limit in force: the key's own, or its plan's (in the list)", z.int())),
    monthlyLimit: z.nullable(z.int()),
    scope: z.nullable(z.array(z.string())),
    expiresAt: z.nullable(z.string()),
    createdAt: z.nullable(z.string()),
    createdBy: z.nullable(z.string()),
    usedThisMonth: z.optional(described('Requests counted this month (in the list)', z.int())),
  }),
);

const KeyList = named('KeyList', z.strictObject({ keys: z.array(KeyAnswer) }));

export const KeyCreated = named(
  'KeyCreated',
  z.strictObject({ key: KeyAnswer, apiKey: described('The key itself: in this answer only, never again', z.string()) }),
);

const KeyRotated = named(
  'KeyRotated',
  z.strictObject({ key: KeyAnswer, apiKey: described('The new key: in this answer only', z.string()), retired: KeyAnswer }),
);

const KEYS = '/api/accounts/{accountId}/keys';
const KEY = `${KEYS}/{keyId}`;

export const listKeys = contract({ method: 'GET', path: KEYS, summary: 'Every key (never a secret)', answers: { 200: KeyList } });

export const createKey = contract({
  method: 'POST',
  path: KEYS,
  summary: 'Create a key: the key is in this answer only',
  description: "A key's own monthly limit may be lower than its account's plan's, never higher.",
  body: KeyCreateBody,
  answers: { 201: KeyCreated },
});

export const updateKey = contract({
  method: 'PATCH',
  path: KEY,
  summary: "Change a key's settings",
  body: KeyPatchBody,
  answers: { 200: KeyAnswer },
  refusals: [409],
});

export const rotateKey = contract({
  method: 'POST',
  path: `${KEY}/rotate`,
  summary: 'A new key; the old one works for the grace',
  body: RotateBody,
  answers: { 201: KeyRotated },
  refusals: [409],
});

export const revokeKey = contract({ method: 'POST', path: `${KEY}/revoke`, summary: 'Revoke a key, for good', answers: { 200: KeyAnswer } });
