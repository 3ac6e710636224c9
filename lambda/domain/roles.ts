/**
 * Roles and what each may do in an account (docs/management-api.md, "The management API": Roles). No imports: the management
 * API's routes take their access from here, and the dashboard (dashboard/src/logic/roles.ts) its
 * explanation of what a person may not do, so the two cannot disagree.
 */

/** Each role includes the one before it. */
export const ROLES = ['viewer', 'editor', 'admin', 'owner'] as const;

export type Role = (typeof ROLES)[number];

export const isRole = (value: unknown): value is Role => typeof value === 'string' && ROLES.some((role) => role === value);

export const atLeast = (role: Role, needed: Role): boolean => ROLES.indexOf(role) >= ROLES.indexOf(needed);

/**
 * What people do in an account, each with the least role that may: a management route names one as its
 * `access`, and the dashboard greys out a control with the same words ("Viewers cannot publish versions").
 */
export const CAPABILITIES = {
  'read the account': 'viewer',
  'leave the account': 'viewer',
  'create prompts': 'editor',
  'edit prompt details': 'editor',
  'edit drafts': 'editor',
  'publish versions': 'editor',
  'move labels': 'editor',
  'run prompts': 'editor',
  'move protected labels': 'admin',
  'delete and restore prompts': 'admin',
  'manage keys': 'admin',
  'manage members': 'admin',
  'manage webhooks': 'admin',
  'change account settings': 'owner',
} as const satisfies Readonly<Record<string, Role>>;

export type Capability = keyof typeof CAPABILITIES;

/** The least role that may do `capability`. */
export const roleFor = (capability: Capability): Role => CAPABILITIES[capability];

/** Whether `role` may do `capability`. */
export const may = (role: Role, capability: Capability): boolean => atLeast(role, roleFor(capability));

/** Labels an account protects unless its owners say otherwise. */
export const DEFAULT_PROTECTED_LABELS: readonly string[] = ['production'];

/**
 * Whether `caller` may give `member` (now `from`, or nobody yet) the role `to` (or remove them: `to`
 * undefined): admins manage everyone below owner, owners everyone.
 */
export function mayManageMember(caller: Role, from: Role | undefined, to: Role | undefined): boolean {
  if (caller === 'owner') return true;
  if (caller !== 'admin') return false;
  return from !== 'owner' && to !== 'owner';
}

/** Moving or removing a label: editors for ordinary labels, admins for protected ones. */
export const roleForLabel = (label: string, protectedLabels: readonly string[]): Role =>
  roleFor(protectedLabels.includes(label) ? 'move protected labels' : 'move labels');
