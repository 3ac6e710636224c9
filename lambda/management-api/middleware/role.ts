import { may, roleFor } from '../../domain/roles';
import type { ManagementMiddleware } from '../management-context';
import { forbidden } from '../management-errors';

/** 403 for a member whose role may not do what the route's access names (domain/roles.ts). */
export const roleCheck = (): ManagementMiddleware => ({
  before: ({ context: { route, member } }) => {
    if (!route) throw new Error('routeLookup must run before roleCheck');
    if (route.access !== 'signed-in' && (!member || !may(member.role, route.access))) {
      throw forbidden(`your role in this account (${member?.role ?? 'none'}) does not allow this: it needs ${roleFor(route.access)}`);
    }
  },
});
