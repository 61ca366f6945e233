import type { GuildDirectory, GuildMemberInfo } from './guild-directory';
import { MemberRoleTable, PENDING_MEMBER, type PendingMember } from './member-role-table';

export { PENDING_MEMBER, type PendingMember } from './member-role-table';

/**
 * A member in Discord as a reconcile needs them: their role ids; null when they are not in the
 * guild; {@link PENDING_MEMBER} when they are in it but have not passed its Membership Screening
 * (Tierlink gives them nothing yet: a role given now would let them skip the server's rules).
 */
export type MemberRolesNow = readonly string[] | null | PendingMember;

/** What a reconcile needs of a member in Discord. */
export interface MemberRoles {
  rolesOf(guildId: string, userId: string): Promise<MemberRolesNow>;
  /** What the gateway says now without asking Discord: as {@link MemberRoles.rolesOf}, or undefined (not known here). */
  peek?(guildId: string, userId: string): MemberRolesNow | undefined;
  /** Whether this process receives the guild's gateway events (its member table is kept by them). */
  trusted?(guildId: string): boolean;
}

/** What a gateway session reports beside keeping the table. */
export interface GatewaySessionEvents {
  /**
   * A member the table held as pending passed the server's Membership Screening
   * (GUILD_MEMBER_UPDATE with `pending: false`): their roles are due now, as on a join.
   */
  screeningPassed?(guildId: string, userId: string): void;
}

/** One gateway session's events, as discord.js hands them over (src/edges/inbound/bot/discord-bot.ts). */
export interface GatewaySessionFeed {
  /** Every dispatch of the session (`{ t, d }`), as discord.js's `raw` event gives it. */
  dispatch(packet: unknown): void;
  /** The session's connection dropped or closed: events may be missed from now on. */
  lost(): void;
}

export interface MemberRoleCacheOptions {
  directory: Pick<GuildDirectory, 'getMember'>;
  /** Entries (members and known non-members) over every guild; past it, unknown members are read each time. Default 2,000,000. */
  maxEntries?: number;
  /** Told about each lookup: answered from the cache, read because unknown, or read because the guild is not trusted. */
  onLookup?(result: 'hit' | 'miss' | 'untrusted'): void;
}

export interface MemberRoleStats {
  guilds: number;
  entries: number;
  bytes: number;
}

/** What a read remembers of the moment it started: the guild's table then, and its generation. */
interface ReadTicket {
  table: MemberRoleTable;
  generation: number;
}

interface RawMember {
  guild_id?: unknown;
  id?: unknown;
  unavailable?: unknown;
  role_id?: unknown;
  roles?: unknown;
  pending?: unknown;
  user?: { id?: unknown };
}

const isString = (v: unknown): v is string => typeof v === 'string';

export function createMemberRoleCache(options: MemberRoleCacheOptions): MemberRoleCache {
  const { directory } = options;
  const maxEntries = options.maxEntries ?? 2_000_000;
  const live = new Map<string, MemberRoleTable>();
  let entries = 0;

  function put(table: MemberRoleTable, userId: string, roleIds: MemberRolesNow): void {
    const had = table.has(userId);
    if (!had && entries >= maxEntries) return;
    if (table.set(userId, roleIds) && !had) entries += 1;
  }

  function learn(guildId: string, ticket: ReadTicket, userId: string, roleIds: MemberRolesNow): void {
    if (live.get(guildId) !== ticket.table) return;
    if (ticket.table.stampOf(userId) > ticket.generation) return;
    put(ticket.table, userId, roleIds);
  }

  function available(guildId: string): void {
    if (!live.has(guildId)) live.set(guildId, new MemberRoleTable());
  }

  function unavailable(guildId: string): void {
    const table = live.get(guildId);
    if (!table) return;
    entries -= table.size;
    live.delete(guildId);
  }

  const cache = {
    async rolesOf(guildId: string, userId: string): Promise<MemberRolesNow> {
      const table = live.get(guildId);
      const known = table?.get(userId);
      if (known !== undefined) {
        options.onLookup?.('hit');
        return known;
      }
      options.onLookup?.(table ? 'miss' : 'untrusted');
      const ticket = table ? { table, generation: table.generation } : null;
      const member = await directory.getMember(guildId, userId);
      const roleIds = member ? (member.pending === true ? PENDING_MEMBER : member.roleIds) : null;
      if (ticket) learn(guildId, ticket, userId, roleIds);
      return roleIds;
    },

    /**
     * What the gateway says of the member right now, without asking Discord: their roles, null
     * when they are not in the guild, undefined when this process does not know (the guild's events
     * go to another instance, or the member was never seen).
     */
    peek(guildId: string, userId: string): MemberRolesNow | undefined {
      return live.get(guildId)?.get(userId);
    },

    /** Our own request was accepted: the member holds the role now (or no longer). */
    roleChanged(guildId: string, userId: string, roleId: string, op: 'add' | 'remove'): void {
      live.get(guildId)?.change(userId, roleId, op);
    },

    /** Discord answered "unknown member" (10007) to a request about the user. */
    notAMember(guildId: string, userId: string): void {
      const table = live.get(guildId);
      if (table) put(table, userId, null);
    },

    /**
     * Passes a member listing through, learning each page. A listing read from the start to its end
     * (`complete`) also forgets members it did not list and no event mentioned since it began.
     */
    async *observeListing(guildId: string, pages: AsyncIterable<GuildMemberInfo[]>, complete: boolean): AsyncIterable<GuildMemberInfo[]> {
      const table = live.get(guildId);
      const ticket = table ? { table, generation: table.generation } : null;
      for await (const page of pages) {
        if (ticket) for (const m of page) learn(guildId, ticket, m.userId, m.pending === true ? PENDING_MEMBER : m.roleIds);
        yield page;
      }
      if (ticket && complete && live.get(guildId) === ticket.table) entries -= ticket.table.sweep(ticket.generation);
    },

    /** A feed for one gateway session: the guilds it delivers are trusted while it stays connected. */
    session(events: GatewaySessionEvents = {}): GatewaySessionFeed {
      const guilds = new Set<string>();
      const suspended = new Set<string>();
      return {
        dispatch(packet) {
          const { t, d } = (packet ?? {}) as { t?: unknown; d?: RawMember };
          if (!isString(t) || typeof d !== 'object' || d === null) return;
          const guildId = d.guild_id;
          switch (t) {
            case 'READY':
              // A new session: its guilds arrive as GUILD_CREATE; nothing suspended comes back.
              suspended.clear();
              return;
            case 'RESUMED':
              // Discord replayed what was missed; the tables were dropped, so they start empty.
              for (const id of suspended) {
                guilds.add(id);
                available(id);
              }
              suspended.clear();
              return;
            case 'GUILD_CREATE':
              if (isString(d.id) && d.unavailable !== true) {
                guilds.add(d.id);
                available(d.id);
              }
              return;
            case 'GUILD_DELETE':
              if (isString(d.id)) {
                guilds.delete(d.id);
                unavailable(d.id);
              }
              return;
          }
          if (!isString(guildId)) return;
          const table = live.get(guildId);
          if (!table) return;
          const userId = d.user?.id;
          if ((t === 'GUILD_MEMBER_ADD' || t === 'GUILD_MEMBER_UPDATE') && isString(userId) && Array.isArray(d.roles)) {
            const passed = t === 'GUILD_MEMBER_UPDATE' && d.pending !== true && table.get(userId) === PENDING_MEMBER;
            put(table, userId, d.pending === true ? PENDING_MEMBER : d.roles.filter(isString));
            if (passed) events.screeningPassed?.(guildId, userId);
          } else if (t === 'GUILD_MEMBER_REMOVE' && isString(userId)) {
            put(table, userId, null);
          } else if (t === 'GUILD_ROLE_DELETE' && isString(d.role_id)) {
            table.dropRole(d.role_id);
          }
        },
        lost() {
          for (const id of guilds) {
            unavailable(id);
            suspended.add(id);
          }
          guilds.clear();
        },
      };
    },

    /** Whether the guild's entries are trusted now (its events reach this process). */
    trusted(guildId: string): boolean {
      return live.has(guildId);
    },

    stats(): MemberRoleStats {
      let bytes = 0;
      for (const table of live.values()) bytes += table.bytes();
      return { guilds: live.size, entries, bytes };
    },
  };
  return cache;
}

/**
 * Each member's role ids per guild, kept by the gateway, so that a reconcile costs exactly its role
 * requests instead of one `GET /guilds/{g}/members/{u}` more (docs/decisions.md §18).
 *
 * Trust: a guild's entries are used only while this process receives that guild's gateway events:
 * from its `GUILD_CREATE` (or `RESUMED`) on a session of this process until the session drops, the
 * guild goes (`GUILD_DELETE`) or the process stops; then the guild's table is thrown away. Any other
 * guild (another instance holds its shard, or no gateway runs here) is read over REST every time.
 *
 * Kept by `GUILD_MEMBER_ADD` and `GUILD_MEMBER_UPDATE` (their `roles` is the full list, their
 * `pending` whether the member is still behind the server's Membership Screening),
 * `GUILD_MEMBER_REMOVE` (remembered as not a member), `GUILD_ROLE_DELETE` (the id leaves every
 * member: Discord sends no member update for it; docs/discord-api-notes.md §5), our own accepted
 * `PUT`/`DELETE`, the full sync's member listing, and every read of a member it did not know.
 * A read or a listing page only writes entries that no event touched since the read began, so an
 * answer older than an event never overwrites it.
 */
export interface MemberRoleCache {
  rolesOf(guildId: string, userId: string): Promise<MemberRolesNow>;
  peek(guildId: string, userId: string): MemberRolesNow | undefined;
  roleChanged(guildId: string, userId: string, roleId: string, op: 'add' | 'remove'): void;
  notAMember(guildId: string, userId: string): void;
  observeListing(guildId: string, pages: AsyncIterable<GuildMemberInfo[]>, complete: boolean): AsyncIterable<GuildMemberInfo[]>;
  session(events?: GatewaySessionEvents): GatewaySessionFeed;
  trusted(guildId: string): boolean;
  stats(): MemberRoleStats;
}

/**
 * The directory with its member listings passing through the cache: the full sync's guild pass
 * reads every member page, which refreshes every member's entry (docs/decisions.md §18).
 */
export function listingThroughCache(directory: GuildDirectory, cache: Pick<MemberRoleCache, 'observeListing'>): GuildDirectory {
  return {
    ...directory,
    listMembers: (guildId, options) => cache.observeListing(guildId, directory.listMembers(guildId, options), options?.after === undefined),
  };
}
