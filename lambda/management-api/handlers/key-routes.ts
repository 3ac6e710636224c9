import type * as z from 'zod';
import { quotaPeriodAt } from '../../domain/quota-period';
import { keyState } from '../../domain/api-key';
import { parseInstant } from '../../domain/content-rules';
import { getAccountSettings } from '../../table/accounts';
import { type AdminApiKey, limitInForce } from '../../table/item-builders';
import type { ApiKeyChange } from '../../table/keys';
import { listKeyUsage } from '../../table/keys';
import { badRequest } from '../management-errors';
import type { ManagementRequest, RouteSpec } from '../management-request';
import { KeyCreateBody, KeyPatchBody, RotateBody } from '../schemas';

const KEYS = '/api/accounts/{accountId}/keys';
const KEY = `${KEYS}/{keyId}`;

const param = (request: ManagementRequest, name: string): string => request.params[name] as string;

/** A key as people see it: never the key itself, which is not stored anywhere. */
export function keyBody(key: AdminApiKey, now: Date, extra: { limit?: number; usedThisMonth?: number } = {}) {
  return {
    keyId: key.keyId,
    name: key.name ?? null,
    displayPrefix: key.displayPrefix ?? null,
    state: keyState(key, now),
    ...(extra.limit === undefined ? {} : { limit: extra.limit }),
    monthlyLimit: key.monthlyLimit ?? null,
    scope: key.scope ?? null,
    expiresAt: key.expiresAt === undefined ? null : new Date(key.expiresAt).toISOString(),
    createdAt: key.createdAt ?? null,
    createdBy: key.createdBy ?? null,
    ...(extra.usedThisMonth === undefined ? {} : { usedThisMonth: extra.usedThisMonth }),
  };
}

/**
 * Through the API a key's own monthly limit may be lower than its account's plan, never higher (plans are
 * the operator's, and the operator's CLI may set any limit): 400 naming the plan's.
 */
async function requireWithinPlan(request: ManagementRequest, monthlyLimit: number | null | undefined): Promise<void> {
  if (monthlyLimit === undefined || monthlyLimit === null) return;
  const { plan } = await getAccountSettings(request.table, param(request, 'accountId'));
  const ceiling = limitInForce(plan, undefined);
  if (monthlyLimit > ceiling) {
    throw badRequest(`monthlyLimit: must be at most ${ceiling}, the monthly limit of the account's ${plan} plan`, 'monthlyLimit');
  }
}

export const keyRoutes: readonly RouteSpec[] = [
  {
    method: 'GET',
    path: KEYS,
    access: 'viewer',
    async handle(request) {
      const usage = await listKeyUsage(request.table, param(request, 'accountId'), quotaPeriodAt(request.now).month);
      return {
        status: 200,
        body: { keys: usage.map(({ key, limit, used }) => keyBody(key, request.now, { limit, usedThisMonth: used })) },
      };
    },
  },
  {
    method: 'POST',
    path: KEYS,
    access: 'admin',
    action: 'key.create',
    bodyTarget: ['name'],
    body: KeyCreateBody,
    async handle(request) {
      const input = request.body as z.infer<typeof KeyCreateBody>;
      await requireWithinPlan(request, input.monthlyLimit);
      const { key, apiKey } = await request.ops.createKey(param(request, 'accountId'), {
        name: input.name,
        ...(input.monthlyLimit === undefined ? {} : { monthlyLimit: input.monthlyLimit }),
        ...(input.scope === undefined ? {} : { scope: input.scope }),
        ...(input.expiresAt === undefined ? {} : { expiresAt: parseInstant(input.expiresAt) as number }),
      });
      // The only answer that ever holds the key.
      return { status: 201, body: { key: keyBody(key, request.now), apiKey } };
    },
  },
  {
    method: 'PATCH',
    path: KEY,
    access: 'admin',
    action: 'key.update',
    body: KeyPatchBody,
    async handle(request) {
      const input = request.body as z.infer<typeof KeyPatchBody>;
      await requireWithinPlan(request, input.monthlyLimit);
      const change: ApiKeyChange = {
        ...(input.name === undefined ? {} : { name: input.name }),
        ...(input.monthlyLimit === undefined ? {} : { monthlyLimit: input.monthlyLimit }),
        ...(input.scope === undefined ? {} : { scope: input.scope }),
        ...(input.expiresAt === undefined ? {} : { expiresAt: input.expiresAt === null ? null : (parseInstant(input.expiresAt) as number) }),
        ...(input.disabled === undefined ? {} : { enabled: !input.disabled }),
      };
      const key = await request.ops.updateKey(param(request, 'accountId'), param(request, 'keyId'), change);
      return { status: 200, body: keyBody(key, request.now) };
    },
  },
  {
    method: 'POST',
    path: `${KEY}/rotate`,
    access: 'admin',
    action: 'key.rotate',
    body: RotateBody,
    async handle(request) {
      const { graceSeconds } = request.body as z.infer<typeof RotateBody>;
      const { created, retired, apiKey } = await request.ops.rotateKey(param(request, 'accountId'), param(request, 'keyId'), graceSeconds * 1000);
      return { status: 201, body: { key: keyBody(created, request.now), apiKey, retired: keyBody(retired, request.now) } };
    },
  },
  {
    method: 'POST',
    path: `${KEY}/revoke`,
    access: 'admin',
    action: 'key.revoke',
    async handle(request) {
      const { key } = await request.ops.revokeKey(param(request, 'accountId'), param(request, 'keyId'));
      return { status: 200, body: keyBody(key, request.now) };
    },
  },
];
