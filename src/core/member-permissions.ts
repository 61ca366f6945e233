import { ADMINISTRATOR, MANAGE_ROLES, type HierarchyRole } from './role-hierarchy';

/** Discord permission bits the staff tools read (docs/discord-api-notes.md §7). */
export const MANAGE_GUILD = 1n << 5n;
export { ADMINISTRATOR, MANAGE_ROLES };

/** Every bit Discord defines today and those it may add: what the owner and Administrator hold. */
const ALL = (1n << 64n) - 1n;

export interface MemberInGuild {
  guildId: string;
  ownerId: string;
  /** The guild's roles as read from Discord (with @everyone, whose id is the guild id). */
  roles: readonly HierarchyRole[];
  userId: string;
  /** The member's role ids (without @everyone). */
  roleIds: readonly string[];
}

/**
 * A member's guild-level ("base") permissions, as Discord computes them (docs/discord-api-notes.md
 * §7): the owner holds everything; otherwise @everyone's bits OR every role's bits, and Administrator
 * means everything. Channel overwrites do not count: the staff tools act on the whole server.
 */
export function basePermissions(member: MemberInGuild): bigint {
  if (member.userId === member.ownerId) return ALL;
  const mine = new Set([...member.roleIds, member.guildId]);
  let bits = 0n;
  for (const role of member.roles) if (mine.has(role.id)) bits |= BigInt(role.permissions);
  return (bits & ADMINISTRATOR) !== 0n ? ALL : bits;
}

export function hasPermission(permissions: bigint, bit: bigint): boolean {
  return (permissions & bit) === bit;
}
