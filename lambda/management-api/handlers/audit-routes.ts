import { readAuditLog } from '../../features/audit/audit-log';
import { defineRoute, type ManagementRoute } from '../route';
import * as contracts from './audit-contracts';

/** The audit log is read here and nowhere written: entries are never changed or deleted through the API. */
export const auditRoutes: readonly ManagementRoute[] = [
  defineRoute(contracts.readAudit, {
    access: 'read the account',
    async handle(request) {
      const { before, actor, prompt, action, outcome, from, to } = request.query;
      const filter = {
        ...(actor === undefined ? {} : { actor }),
        ...(prompt === undefined ? {} : { promptId: prompt }),
        ...(action === undefined ? {} : { action }),
        ...(outcome === undefined ? {} : { outcome }),
        ...(from === undefined ? {} : { from }),
        ...(to === undefined ? {} : { to }),
      };
      const page = await readAuditLog(request.table, request.params.accountId, { ...(before === undefined ? {} : { before }), filter });
      return { status: 200, body: page };
    },
  }),
];
