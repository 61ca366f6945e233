import type { GuildRepository } from '../../edges/outbound/store/repositories/guild-repository';
import { type MemberRolesNow, PENDING_MEMBER } from '../../edges/outbound/discord/member-roles';
import type { GuildPermissions, MemberStanding } from '../guild-permissions';
import type { Clock } from '../../shared/clock';
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
 * How long a session's standing in a server is kept for its pages: anyone can sign in with Discord,
 * and without it each page (and each server of the menu) cost a read of the member from Discord's
 * shared budget. It is dropped sooner when the gateway shows the member's roles changed (losing the
 * role closes the dashboard at once), and changes are never decided from it: a form reads the
 * member again, and so does every service that changes something (src/app/admin/actor-authority.ts).
 */
export const STANDING_TTL_MS = 30_000;
/** Standings kept at most (sessions × servers); past it the oldest go first. */
export const MAX_STANDINGS = 10_000;

/**
 * Who may enter a server's dashboard: members who hold Manage Server or Manage Roles in a server
 * Tierlink serves, checked on every request from guild-level permissions (the member's roles read
 * through the bot, the owner, Administrator). The OAuth guild list only builds the menu.
 */
/** Whether what the gateway says of the member now differs from the standing kept (undefined: it does not know). */
function outdated(standing: MemberStanding, now: MemberRolesNow | undefined): boolean {
  if (now === undefined) return false;
  if (now === null) return standing.kind !== 'not_member';
  // Still behind the server's Membership Screening: read again (a staff member is never pending for long).
  if (now === PENDING_MEMBER) return true;
  if (standing.kind !== 'member') return true;
  return standing.roleIds.length !== now.length || now.some((id) => !standing.roleIds.includes(id));
}

export function createDashboardAccess(deps: {
  guilds: Pick<GuildRepository, 'namesOf'>;
  permissions: Pick<GuildPermissions, 'of'>;
  /** The member's roles as the gateway says now, when this process knows (no request to Discord). */
  gateway?: { peek(guildId: string, userId: string): MemberRolesNow | undefined };
  clock: Clock;
  ttlMs?: number;
  maxStandings?: number;
}): DashboardAccess {
  const ttlMs = deps.ttlMs ?? STANDING_TTL_MS;
  const max = deps.maxStandings ?? MAX_STANDINGS;
  const standings = new Map<string, { standing: MemberStanding; at: number }>();

  /** The session's standing in the server: read from Discord at most once per {@link STANDING_TTL_MS}. */
  async function standingOf(
    session: Pick<DashboardSession, 'userId' | 'idHash'>,
    guildId: string,
    fresh: boolean,
  ): Promise<MemberStanding> {
    const key = `${session.idHash}:${guildId}`;
    const now = deps.clock.now().getTime();
    const kept = standings.get(key);
    if (kept && !fresh && now - kept.at < ttlMs && !outdated(kept.standing, deps.gateway?.peek(guildId, session.userId))) {
      return kept.standing;
    }
    const standing = await deps.permissions.of(guildId, session.userId);
    standings.delete(key);
    if (standings.size >= max) {
      for (const [k, v] of standings) if (now - v.at >= ttlMs) standings.delete(k);
      // Insertion order is age order: the oldest go first.
      for (const k of standings.keys()) {
        if (standings.size < max) break;
        standings.delete(k);
      }
    }
    standings.set(key, { standing, at: now });
    return standing;
  }

  /** `fresh`: read the member now (a form that changes something), not the standing kept for pages. */
  async function enter(
    session: Pick<DashboardSession, 'userId' | 'idHash'>,
    guildId: string,
    options: { fresh: boolean } = { fresh: false },
  ): Promise<GuildEntry> {
    const known = await deps.guilds.namesOf([guildId]);
    if (!known.has(guildId)) return { kind: 'not_served' };
    const guildName = known.get(guildId) ?? `Server ${guildId}`;
    const standing = await standingOf(session, guildId, options.fresh);
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

    async servers(session: Pick<DashboardSession, 'userId' | 'idHash' | 'guildIds'>): Promise<ServerChoice[]> {
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

export interface DashboardAccess {
  enter(session: Pick<DashboardSession, 'userId' | 'idHash'>, guildId: string, options?: { fresh: boolean }): Promise<GuildEntry>;
  /** The servers of the menu: those Discord listed at sign-in that Tierlink serves, each checked now. */
  servers(session: Pick<DashboardSession, 'userId' | 'idHash' | 'guildIds'>): Promise<ServerChoice[]>;
}
