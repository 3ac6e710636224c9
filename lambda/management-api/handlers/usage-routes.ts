import { quotaPeriodAt } from '../../domain/quota-period';
import { modelTokensOf } from '../../features/budget/model-budget';
import { listKeyUsage } from '../../features/keys/keys';
import { defineRoute, type ManagementRoute } from '../route';
import * as contracts from './usage-contracts';

export const usageRoutes: readonly ManagementRoute[] = [
  defineRoute(contracts.readUsage, {
    access: 'read the account',
    async handle(request) {
      const month = request.query.month ?? quotaPeriodAt(request.now).month;
      const [usage, modelTokens] = await Promise.all([
        listKeyUsage(request.table, request.params.accountId, month),
        modelTokensOf(request.table, request.params.accountId, month),
      ]);
      return {
        status: 200,
        body: {
          month,
          keys: usage.map(({ key, limit, used, days }) => ({ keyId: key.keyId, name: key.name ?? null, used, limit, days })),
          // The runs' tokens (docs/runs.md "Budget"): the month's, and each UTC day's.
          modelTokens: modelTokens.used,
          modelTokensByDay: modelTokens.days,
        },
      };
    },
  }),
];
