import { DiscordProblemError } from '../edges/outbound/discord/discord-problem';
import type { GuildDirectory } from '../edges/outbound/discord/guild-directory';
import type { GuildSnapshotCache } from '../edges/outbound/discord/guild-snapshot-cache';
import { Permission, authorityOf, hasPermission } from '../core/authority';
import type { Clock } from '../shared/clock';
import { MINUTE } from '../shared/clock';

/** What a user may do in a guild, read from Discord (guild-level: channel overwrites do not count). */
export type MemberStanding =
  | {
      kind: 'member';
      owner: boolean;
      permissions: bigint;
      manageRoles: boolean;
      manageGuild: boolean;
      displayName: string;
      /** The member's roles as read. */
      roleIds: readonly string[];
    }
  | { kind: 'not_member' }
  /** The bot is not (or no longer) in the guild: nothing can be read or changed there. */
  | { kind: 'bot_absent' };

export interface GuildPermissionsDeps {
  directory: Pick<GuildDirectory, 'getGuild' | 'getMember'>;
  snapshots: Pick<GuildSnapshotCache, 'get'>;
  clock: Clock;
  /** How long a guild's owner id is trusted; a minute when absent (the role snapshot's TTL). */
  ownerTtlMs?: number;
}

export function createGuildPermissions(deps: GuildPermissionsDeps): GuildPermissions {
  const ttl = deps.ownerTtlMs ?? MINUTE;
  const owners = new Map<string, { ownerId: string; at: number }>();

  async function ownerOf(guildId: string): Promise<string> {
    const now = deps.clock.now().getTime();
    const known = owners.get(guildId);
    if (known && now - known.at < ttl) return known.ownerId;
    const guild = await deps.directory.getGuild(guildId);
    if (owners.size > 1000) owners.clear();
    owners.set(guildId, { ownerId: guild.ownerId, at: now });
    return guild.ownerId;
  }

  async function of(guildId: string, userId: string): Promise<MemberStanding> {
    try {
      const [member, ownerId, snapshot] = await Promise.all([
        deps.directory.getMember(guildId, userId),
        ownerOf(guildId),
        deps.snapshots.get(guildId),
      ]);
      if (!member) return { kind: 'not_member' };
      const authority = authorityOf({ guildId, userId, ownerId, memberRoleIds: member.roleIds, roles: snapshot.roles });
      return {
        kind: 'member',
        owner: authority.isOwner,
        permissions: authority.permissions,
        manageRoles: hasPermission(authority, Permission.ManageRoles),
        manageGuild: hasPermission(authority, Permission.ManageGuild),
        displayName: member.nick ?? member.globalName ?? member.username,
        roleIds: member.roleIds,
      };
    } catch (error) {
      if (error instanceof DiscordProblemError && (error.kind === 'missing_access' || error.kind === 'unknown_guild')) {
        owners.delete(guildId);
        return { kind: 'bot_absent' };
      }
      throw error;
    }
  }

  return {
    of,
    async canManageRoles(guildId: string, userId: string): Promise<boolean> {
      const standing = await of(guildId, userId);
      return standing.kind === 'member' && standing.manageRoles;
    },
  };
}

/**
 * A member's standing in a guild, for the staff tools (the dashboard, `/status member`, `/audit`):
 * never from the client (an OAuth guild list, an interaction's channel-level permissions), always
 * from Discord through the bot: the member and their roles read now, the guild's roles from the
 * short-lived snapshot that role events invalidate, the owner from `GET /guilds/{id}` (kept a
 * minute, like the roles).
 */
export interface GuildPermissions {
  of(guildId: string, userId: string): Promise<MemberStanding>;
  /** Manage Roles at guild level (the owner and Administrator hold it): who may look at other members. */
  canManageRoles(guildId: string, userId: string): Promise<boolean>;
}
