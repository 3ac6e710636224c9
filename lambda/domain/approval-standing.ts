import { atLeast, type Role, ROLES, roleForLabel } from './roles';

/**
 * Whether an approval of a change request counts (docs/management-api.md "Change requests"): it does while its
 * giver may still give it, a member whose role may approve a change of that label now (protected labels: admins;
 * the rest: editors). An approval from someone demoted or removed since stays on the request, and does not count.
 */

export interface ApprovalStanding {
  readonly counts: boolean;
  /** The approver's role in the account (`null`: not a member). */
  readonly role: Role | null;
  /** Why it does not count, as what the approver is (`a viewer, and approving a change of production needs the admin role`); `null` when it counts. */
  readonly why: string | null;
}

/** How an approval of a change of `label` stands when its giver has `role` (undefined: no member of the account). */
export function approvalStanding(role: Role | undefined, label: string, protectedLabels: readonly string[]): ApprovalStanding {
  const needed = roleForLabel(label, protectedLabels);
  if (role === undefined) return { counts: false, role: null, why: 'not a member of the account' };
  if (!atLeast(role, needed))
    return { counts: false, role, why: `${/^[aeiou]/.test(role) ? 'an' : 'a'} ${role}, and approving a change of ${label} needs the ${needed} role` };
  return { counts: true, role, why: null };
}

/** The roles that may approve a change of `label`: what a counted approver's membership must still hold when the request applies. */
export const rolesThatApprove = (label: string, protectedLabels: readonly string[]): Role[] => {
  const needed = roleForLabel(label, protectedLabels);
  return ROLES.filter((role) => atLeast(role, needed));
};
