/**
 * What each role may do (shared/spec management-api.md "Roles"), so the page can grey out what a
 * person may not change and say why before they try. The API decides; this only explains.
 */
export type Role = 'viewer' | 'editor' | 'admin' | 'owner';

export const ROLES: readonly Role[] = ['viewer', 'editor', 'admin', 'owner'];

export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value);

export const atLeast = (role: Role, needed: Role): boolean => ROLES.indexOf(role) >= ROLES.indexOf(needed);

export type Action =
  | 'create prompts'
  | 'edit drafts'
  | 'publish versions'
  | 'move labels'
  | 'delete and restore prompts'
  | 'manage keys'
  | 'manage members'
  | 'change account settings';

const NEEDED: Readonly<Record<Action, Role>> = {
  'create prompts': 'editor',
  'edit drafts': 'editor',
  'publish versions': 'editor',
  'move labels': 'editor',
  'delete and restore prompts': 'admin',
  'manage keys': 'admin',
  'manage members': 'admin',
  'change account settings': 'owner',
};

const article = (role: Role) => (role === 'admin' || role === 'owner' || role === 'editor' ? 'an' : 'a');
const plural = (role: Role) => `${role[0]?.toUpperCase()}${role.slice(1)}s`;

/** Why `role` may not do `action`, in words for the person; undefined when it may. */
export function denial(role: Role, action: Action): string | undefined {
  const needed = NEEDED[action];
  if (atLeast(role, needed)) return undefined;
  return `${plural(role)} cannot ${action}: that needs ${article(needed)} ${needed} of this account.`;
}

/** Moving or removing a label: editors for ordinary labels, admins for the account's protected ones. */
export function labelDenial(role: Role, label: string, protectedLabels: readonly string[]): string | undefined {
  if (!protectedLabels.includes(label)) return denial(role, 'move labels');
  if (atLeast(role, 'admin')) return undefined;
  return `${label} is a protected label: only admins and owners can move or remove it.`;
}

/** Admins manage everyone below owner, owners everyone; `to` undefined is a removal. */
export function memberDenial(caller: Role, from: Role | undefined, to: Role | undefined): string | undefined {
  const general = denial(caller, 'manage members');
  if (general) return general;
  if (caller === 'owner') return undefined;
  if (from === 'owner' || to === 'owner') return 'Only owners can add, change or remove owners.';
  return undefined;
}

/** The roles `caller` may hand out. */
export const assignableRoles = (caller: Role): Role[] => ROLES.filter((role) => memberDenial(caller, undefined, role) === undefined);

export const ROLE_SUMMARY: Readonly<Record<Role, string>> = {
  viewer: 'reads everything, changes nothing',
  editor: 'writes drafts, publishes, moves unprotected labels',
  admin: 'also protected labels, keys, members and deleting prompts',
  owner: 'everything, including other owners and the account settings',
};
