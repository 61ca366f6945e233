import type { GuildRepository } from '../../edges/outbound/store/repositories/guild-repository';
import type { GuildPermissions } from '../guild-permissions';
import type { DashboardSession } from './sign-in';

/** Who is looking at which server, as checked against Discord for this request. */
export interface GuildAccess {
  guildId: string;
  guildName: string;
  userId: string;
  /** Their name in this server (nickname, display name or username). */
  displayName: string;
  owner: boolean;
  /** Manage Roles (the owner and Administrator hold it): may change mappings and settings and run syncs, like the commands. */
  canChange: boolean;
}

export type GuildEntry =
  | { kind: 'allowed'; access: GuildAccess }
  /** A member without Manage Server or Manage Roles. */
  | { kind: 'forbidden'; guildName: string }
  | { kind: 'not_member'; guildName: string }
  /** Tierlink is not in this server (or never was). */
  | { kind: 'not_served' };

export interface ServerChoice {
  guildId: string;
  name: string;
  allowed: boolean;
}

/** At most this many servers are checked for the menu (each check reads Discord). */
export const MAX_MENU_SERVERS = 25;

/**
 * Who may enter a server's dashboard: members who hold Manage Server or Manage Roles in a server
 * Tierlink serves, checked on every request from guild-level permissions (the member's roles read
 * through the bot, the owner, Administrator). The OAuth guild list only builds the menu.
 */
export function createDashboardAccess(deps: { guilds: Pick<GuildRepository, 'namesOf'>; permissions: Pick<GuildPermissions, 'of'> }) {
  async function enter(session: Pick<DashboardSession, 'userId'>, guildId: string): Promise<GuildEntry> {
    const known = await deps.guilds.namesOf([guildId]);
    if (!known.has(guildId)) return { kind: 'not_served' };
    const guildName = known.get(guildId) ?? `Server ${guildId}`;
    const standing = await deps.permissions.of(guildId, session.userId);
    if (standing.kind === 'bot_absent') return { kind: 'not_served' };
    if (standing.kind === 'not_member') return { kind: 'not_member', guildName };
    if (!standing.manageGuild && !standing.manageRoles) return { kind: 'forbidden', guildName };
    return {
      kind: 'allowed',
      access: {
        guildId,
        guildName,
        userId: session.userId,
        displayName: standing.displayName,
        owner: standing.owner,
        canChange: standing.manageRoles,
      },
    };
  }

  return {
    enter,

    /** The servers of the menu: those Discord listed at sign-in that Tierlink serves, each checked now. */
    async servers(session: Pick<DashboardSession, 'userId' | 'guildIds'>): Promise<ServerChoice[]> {
      const known = await deps.guilds.namesOf(session.guildIds);
      const ids = session.guildIds.filter((id) => known.has(id)).slice(0, MAX_MENU_SERVERS);
      const entries = await Promise.all(ids.map(async (id) => ({ id, entry: await enter(session, id) })));
      return entries
        .filter(({ entry }) => entry.kind !== 'not_served' && entry.kind !== 'not_member')
        .map(({ id, entry }) => ({
          guildId: id,
          name: entry.kind === 'allowed' ? entry.access.guildName : entry.kind === 'forbidden' ? entry.guildName : id,
          allowed: entry.kind === 'allowed',
        }))
        .sort((a, b) => Number(b.allowed) - Number(a.allowed) || a.name.localeCompare(b.name));
    },
  };
}

export type DashboardAccess = ReturnType<typeof createDashboardAccess>;
