import { dangerousPermissionsOf } from './authority';
import type { GuildRoleInfo } from './planner/types';
import { type HierarchyRole, checkRoleAssignable } from './role-hierarchy';

/** Every role of the guild but @everyone, with the problem that keeps the bot from managing it. */
export function guildRoles(
  guildId: string,
  snapshot: { roles: readonly HierarchyRole[]; botRoleIds: readonly string[] },
): Map<string, GuildRoleInfo> {
  const roles = new Map<string, GuildRoleInfo>();
  for (const role of snapshot.roles) {
    if (role.id === guildId) continue;
    const check = checkRoleAssignable({ guildId, roles: snapshot.roles, botRoleIds: snapshot.botRoleIds, roleId: role.id });
    roles.set(role.id, {
      id: role.id,
      name: role.name,
      problem: check.ok ? null : { message: check.error.message, fix: check.error.fix },
      dangerous: dangerousPermissionsOf(role.permissions).length > 0,
    });
  }
  return roles;
}
