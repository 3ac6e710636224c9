import type { Role } from '../table/item-types';

export type { Role };

/** Each role includes the one before it (shared/spec "Roles"). */
export const ROLES: readonly Role[] = ['viewer', 'editor', 'admin', 'owner'];

export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value);

export const atLeast = (role: Role, needed: Role): boolean => ROLES.indexOf(role) >= ROLES.indexOf(needed);

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
  protectedLabels.includes(label) ? 'admin' : 'editor';
