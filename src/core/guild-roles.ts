import { dangerousPermissionsOf, heldBack } from './authority';
import type { GuildRoleInfo } from './planner/types';
import { type HierarchyRole, checkRoleAssignable } from './role-hierarchy';

/**
 * Every role of the guild but @everyone, with the problem that keeps the bot from managing it, and
 * whether it is held back: a role with dangerous permissions beyond those the owner or an
 * administrator allowed for it (`allowed`, by role id; none when absent).
 */
export function guildRoles(
  guildId: string,
  snapshot: { roles: readonly HierarchyRole[]; botRoleIds: readonly string[] },
  allowed: ReadonlyMap<string, bigint> = new Map(),
): Map<string, GuildRoleInfo> {
  const roles = new Map<string, GuildRoleInfo>();
  for (const role of snapshot.roles) {
    if (role.id === guildId) continue;
    const check = checkRoleAssignable({ guildId, roles: snapshot.roles, botRoleIds: snapshot.botRoleIds, roleId: role.id });
    roles.set(role.id, {
      id: role.id,
      name: role.name,
      problem: check.ok
        ? null
        : {
            message: check.error.message,
            fix: check.error.fix,
            facts: { code: check.error.code, roleName: check.error.roleName, botRoleName: check.error.botRoleName },
          },
      dangerous: dangerousPermissionsOf(role.permissions).length > 0,
      heldBack: heldBack(role, allowed.get(role.id)),
    });
  }
  return roles;
}
