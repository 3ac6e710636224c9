import { assignableRoles, denial, labelDenial, memberDenial, ROLES as DASHBOARD_ROLES } from '../../../dashboard/src/logic/roles';
import { CAPABILITIES, type Capability, ROLES, type Role, roleFor } from '../../../lambda/domain/roles';
import { roleCheck } from '../../../lambda/management-api/middleware/role';
import type { ManagementRoute } from '../../../lambda/management-api/route';
import { ALL_ROUTES } from '../../../lambda/management-api/routes';

describe('what a role may change, and why not', () => {
  test('a viewer may change nothing, and is told which role would', () => {
    expect(denial('viewer', 'publish versions')).toBe('Viewers cannot publish versions: that needs an editor of this account.');
    expect(denial('viewer', 'edit drafts')).toBeDefined();
  });

  test('an editor writes and publishes but manages no keys', () => {
    expect(denial('editor', 'publish versions')).toBeUndefined();
    expect(denial('editor', 'manage keys')).toBe('Editors cannot manage keys: that needs an admin of this account.');
  });

  test('each role includes the one before it', () => {
    expect(denial('owner', 'manage keys')).toBeUndefined();
    expect(denial('admin', 'change account settings')).toMatch(/needs an owner/);
  });

  test('protected labels need an admin; others an editor', () => {
    expect(labelDenial('editor', 'staging', ['production'])).toBeUndefined();
    expect(labelDenial('editor', 'production', ['production'])).toBe('production is a protected label: only admins and owners can move or remove it.');
    expect(labelDenial('admin', 'production', ['production'])).toBeUndefined();
    expect(labelDenial('viewer', 'staging', ['production'])).toMatch(/Viewers cannot move labels/);
  });

  test('admins manage everyone below owner; owners everyone', () => {
    expect(memberDenial('admin', 'editor', 'viewer')).toBeUndefined();
    expect(memberDenial('admin', 'owner', undefined)).toBe('Only owners can add, change or remove owners.');
    expect(memberDenial('admin', 'viewer', 'owner')).toBeDefined();
    expect(memberDenial('owner', 'owner', 'viewer')).toBeUndefined();
    expect(memberDenial('editor', 'viewer', 'editor')).toMatch(/Editors cannot manage members/);
    expect(assignableRoles('admin')).toEqual(['viewer', 'editor', 'admin']);
    expect(assignableRoles('owner')).toEqual(['viewer', 'editor', 'admin', 'owner']);
  });
});

describe("the dashboard's capabilities are the management API's", () => {
  const underAccount = ALL_ROUTES.filter((route): route is ManagementRoute & { access: Capability } => route.access !== 'signed-in');

  /** Whether the API's role check (middleware/role.ts) lets a member with `role` call `route`. */
  function admits(route: ManagementRoute, role: Role): boolean {
    const member = { userId: 'u', email: 'u@acme.test', role, addedAt: '', addedBy: '' };
    try {
      roleCheck().before?.({ context: { route, member } } as never);
      return true;
    } catch (error) {
      expect(error).toMatchObject({ statusCode: 403 });
      return false;
    }
  }

  test.each(underAccount.map((route) => [`${route.method} ${route.path}`, route.access, route] as const))(
    '%s (%s): the dashboard greys it out for exactly the roles the API refuses',
    (_route, access, route) => {
      for (const role of ROLES) expect({ role, allowed: denial(role, access) === undefined }).toEqual({ role, allowed: admits(route, role) });
    },
  );

  test('every capability is what some route lets a member do, but protected labels, which the label routes check themselves', () => {
    const accesses = new Set<string>(underAccount.map((route) => route.access));
    expect(Object.keys(CAPABILITIES).filter((capability) => !accesses.has(capability))).toEqual(['move protected labels']);
    expect(labelDenial('editor', 'production', ['production'])).toBeDefined();
    expect(labelDenial(roleFor('move protected labels'), 'production', ['production'])).toBeUndefined();
  });

  test('the dashboard lists the roles the API knows', () => {
    expect(DASHBOARD_ROLES).toBe(ROLES);
  });
});
