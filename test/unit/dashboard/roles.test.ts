import { assignableRoles, denial, labelDenial, memberDenial } from '../../../dashboard/src/logic/roles';

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
