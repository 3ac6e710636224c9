import { decodeCursor, listAudit } from '../../table/audit-log';
import { badRequest } from '../management-errors';
import type { ManagementRequest, RouteSpec } from '../management-request';

const param = (request: ManagementRequest, name: string): string => request.params[name] as string;

/** The audit log is read here and nowhere written: entries are never changed or deleted through the API. */
export const auditRoutes: readonly RouteSpec[] = [
  {
    method: 'GET',
    path: '/api/accounts/{accountId}/audit',
    access: 'viewer',
    async handle(request) {
      const before = request.query.before;
      if (before !== undefined && decodeCursor(before) === undefined) {
        throw badRequest('before: must be a cursor from a previous page of the audit log', 'before');
      }
      const page = await listAudit(request.table, param(request, 'accountId'), before === undefined ? {} : { before });
      return { status: 200, body: { entries: page.entries, next: page.next ?? null } };
    },
  },
];
