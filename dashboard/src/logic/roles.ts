import { atLeast, type Capability, mayManageMember, ROLES, type Role, roleFor, roleForLabel } from '../../../lambda/domain/roles';

/**
 * What each role may do, in words for the person, so the page can grey out what they may not change and
 * say why before they try. The roles and who may do what are the management API's own
 * (lambda/domain/roles.ts, which its routes' `access` names): the API decides; this only explains.
 */
export { ROLES, type Role };

/** What a person does, as a route's `access` names it. */
export type Action = Capability;

const article = (role: Role) => (role === 'admin' || role === 'owner' || role === 'editor' ? 'an' : 'a');
const plural = (role: Role) => `${role[0]?.toUpperCase()}${role.slice(1)}s`;

/** Why `role` may not do `action`, in words for the person; undefined when it may. */
export function denial(role: Role, action: Action): string | undefined {
  const needed = roleFor(action);
  if (atLeast(role, needed)) return undefined;
  return `${plural(role)} cannot ${action}: that needs ${article(needed)} ${needed} of this account.`;
}

/** Moving or removing a label: editors for ordinary labels, admins for the account's protected ones. */
export function labelDenial(role: Role, label: string, protectedLabels: readonly string[]): string | undefined {
  if (!protectedLabels.includes(label)) return denial(role, 'move labels');
  if (atLeast(role, roleForLabel(label, protectedLabels))) return undefined;
  return `${label} is a protected label: only admins and owners can move or remove it.`;
}

/** Admins manage everyone below owner, owners everyone; `to` undefined is a removal. */
export function memberDenial(caller: Role, from: Role | undefined, to: Role | undefined): string | undefined {
  const general = denial(caller, 'manage members');
  if (general) return general;
  if (mayManageMember(caller, from, to)) return undefined;
  return 'Only owners can add, change or remove owners.';
}

/** The roles `caller` may hand out. */
export const assignableRoles = (caller: Role): Role[] => ROLES.filter((role) => memberDenial(caller, undefined, role) === undefined);

export const ROLE_SUMMARY: Readonly<Record<Role, string>> = {
  viewer: 'reads everything, changes nothing',
  editor: 'writes drafts, publishes, moves unprotected labels',
  admin: 'also protected labels, keys, members and deleting prompts',
  owner: 'everything, including other owners and the account settings',
};
