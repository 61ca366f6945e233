import { ADMINISTRATOR, MANAGE_GUILD, MANAGE_ROLES, basePermissions, hasPermission } from '../../src/core/member-permissions';

const G = '100000000000000000';
const role = (id: string, position: number, permissions: bigint) => ({
  id,
  name: `r${id}`,
  position,
  permissions: permissions.toString(),
  managed: false,
});
const roles = [
  role(G, 0, 1n << 10n), // @everyone: View Channel
  role('100000000000000001', 1, MANAGE_ROLES),
  role('100000000000000002', 2, MANAGE_GUILD),
  role('100000000000000003', 3, ADMINISTRATOR),
  role('100000000000000004', 3, 0n),
];
const member = (roleIds: string[], userId = '5') => ({ guildId: G, ownerId: '9', roles, userId, roleIds });

test('guild-level permissions: @everyone and the member’s roles together; Administrator and the owner hold everything', () => {
  expect(basePermissions(member([]))).toBe(1n << 10n);
  expect(hasPermission(basePermissions(member(['100000000000000001'])), MANAGE_ROLES)).toBe(true);
  expect(hasPermission(basePermissions(member(['100000000000000002'])), MANAGE_ROLES)).toBe(false);
  expect(hasPermission(basePermissions(member(['100000000000000002'])), MANAGE_GUILD)).toBe(true);
  const admin = basePermissions(member(['100000000000000003']));
  expect(hasPermission(admin, MANAGE_ROLES) && hasPermission(admin, MANAGE_GUILD) && hasPermission(admin, 1n << 40n)).toBe(true);
  expect(hasPermission(basePermissions(member([], '9')), MANAGE_ROLES)).toBe(true);
  // A role id the guild does not have grants nothing.
  expect(basePermissions(member(['100000000000000099']))).toBe(1n << 10n);
});
