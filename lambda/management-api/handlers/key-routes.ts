import { quotaPeriodAt } from '../../domain/quota-period';
import { parseInstant } from '../../domain/content-rules';
import type { Table } from '../../table/table';
import { keyAnswer } from '../../features/keys/answers';
import type { ApiKeyChange } from '../../features/keys/keys';
import { listKeyUsage, planLimitOf } from '../../features/keys/keys';
import { badRequest } from '../management-errors';
import { defineRoute, type ManagementRoute } from '../route';
import * as contracts from './key-contracts';

/**
 * Through the API a key's own monthly limit may be lower than its account's plan, never higher (plans are
 * the operator's, and the operator's CLI may set any limit): 400 naming the plan's.
 */
async function requireWithinPlan(table: Table, accountId: string, monthlyLimit: number | null | undefined): Promise<void> {
  if (monthlyLimit === undefined || monthlyLimit === null) return;
  const { plan, limit: ceiling } = await planLimitOf(table, accountId);
  if (monthlyLimit > ceiling) {
    throw badRequest(`monthlyLimit: must be at most ${ceiling}, the monthly limit of the account's ${plan} plan`, 'monthlyLimit');
  }
}

/** An expiry the body's schema (Instant) has already read as an instant. */
function instantOf(text: string): number {
  const at = parseInstant(text);
  if (at === undefined) throw new Error(`the schema took an expiry that is no instant: ${text}`);
  return at;
}

export const keyRoutes: readonly ManagementRoute[] = [
  defineRoute(contracts.listKeys, {
    access: 'read the account',
    async handle(request) {
      const usage = await listKeyUsage(request.table, request.params.accountId, quotaPeriodAt(request.now).month);
      return {
        status: 200,
        body: { keys: usage.map(({ key, limit, used }) => keyAnswer(key, request.now, { limit, usedThisMonth: used })) },
      };
    },
  }),
  defineRoute(contracts.createKey, {
    access: 'manage keys',
    action: 'key.create',
    bodyTarget: ['name'],
    async handle(request) {
      const input = request.body;
      await requireWithinPlan(request.table, request.params.accountId, input.monthlyLimit);
      const { key, apiKey } = await request.ops.keys.create(request.params.accountId, {
        name: input.name,
        ...(input.monthlyLimit === undefined ? {} : { monthlyLimit: input.monthlyLimit }),
        ...(input.scope === undefined ? {} : { scope: input.scope }),
        ...(input.expiresAt === undefined ? {} : { expiresAt: instantOf(input.expiresAt) }),
      });
      // The only answer that ever holds the key.
      return { status: 201, body: { key: keyAnswer(key, request.now), apiKey } };
    },
  }),
  defineRoute(contracts.updateKey, {
    access: 'manage keys',
    action: 'key.update',
    async handle(request) {
      const input = request.body;
      await requireWithinPlan(request.table, request.params.accountId, input.monthlyLimit);
      const change: ApiKeyChange = {
        ...(input.name === undefined ? {} : { name: input.name }),
        ...(input.monthlyLimit === undefined ? {} : { monthlyLimit: input.monthlyLimit }),
        ...(input.scope === undefined ? {} : { scope: input.scope }),
        ...(input.expiresAt === undefined ? {} : { expiresAt: input.expiresAt === null ? null : instantOf(input.expiresAt) }),
        ...(input.disabled === undefined ? {} : { enabled: !input.disabled }),
      };
      const key = await request.ops.keys.update(request.params.accountId, request.params.keyId, change);
      return { status: 200, body: keyAnswer(key, request.now) };
    },
  }),
  defineRoute(contracts.rotateKey, {
    access: 'manage keys',
    action: 'key.rotate',
    async handle(request) {
      const { graceSeconds } = request.body;
      const { created, retired, apiKey } = await request.ops.keys.rotate(request.params.accountId, request.params.keyId, graceSeconds * 1000);
      return { status: 201, body: { key: keyAnswer(created, request.now), apiKey, retired: keyAnswer(retired, request.now) } };
    },
  }),
  defineRoute(contracts.revokeKey, {
    access: 'manage keys',
    action: 'key.revoke',
    async handle(request) {
      const { key } = await request.ops.keys.revoke(request.params.accountId, request.params.keyId);
      return { status: 200, body: keyAnswer(key, request.now) };
    },
  }),
];
