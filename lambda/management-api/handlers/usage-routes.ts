import { quotaPeriodAt } from '../../domain/quota-period';
import { listKeyUsage } from '../../table/keys';
import { badRequest } from '../management-errors';
import type { ManagementRequest, RouteSpec } from '../management-request';
import { Month } from '../schemas';

const param = (request: ManagementRequest, name: string): string => request.params[name] as string;

export const usageRoutes: readonly RouteSpec[] = [
  {
    method: 'GET',
    path: '/api/accounts/{accountId}/usage',
    access: 'viewer',
    async handle(request) {
      const month = request.query.month ?? quotaPeriodAt(request.now).month;
      if (!Month.safeParse(month).success) throw badRequest('month: must be YYYY-MM, e.g. 2026-11', 'month');
      const usage = await listKeyUsage(request.table, param(request, 'accountId'), month);
      return {
        status: 200,
        body: {
          month,
          keys: usage.map(({ key, limit, used, days }) => ({ keyId: key.keyId, name: key.name ?? null, used, limit, days })),
        },
      };
    },
  },
];
