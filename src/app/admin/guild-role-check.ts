import type { GuildSnapshotCache } from '../../edges/discord/guild-snapshot-cache';
import { checkRoleAssignable } from '../../core/role-hierarchy';

export type RoleCheck = { ok: true; name: string } | { ok: false; message: string; fix: string };

/** Whether the bot may grant and remove `roleId` in the guild, read fresh from Discord. */
export async function checkRole(snapshots: GuildSnapshotCache, guildId: string, roleId: string): Promise<RoleCheck> {
  snapshots.invalidate(guildId);
  const snapshot = await snapshots.get(guildId);
  const check = checkRoleAssignable({ guildId, roles: snapshot.roles, botRoleIds: snapshot.botRoleIds, roleId });
  return check.ok ? { ok: true, name: check.value.name } : { ok: false, message: check.error.message, fix: check.error.fix };
}
