import type { GuildDirectory, GuildMemberInfo } from '../../edges/outbound/discord/guild-directory';
import type { GuildSnapshotCache } from '../../edges/outbound/discord/guild-snapshot-cache';
import type { GuildRepository } from '../../edges/outbound/store/repositories/guild-repository';
import type { PatronDirectoryRepository } from '../../edges/outbound/store/repositories/patron-directory-repository';
import type { StatusReport, StatusService } from '../linking/status-service';
import type { AuditBrowser } from './audit';
import type { AuditEntry } from './views';
import type { CompEntry, CompService } from '../comps/comp-service';

/** Results of a member search, from Discord's names and from the service's. */
export const MAX_SEARCH_RESULTS = 25;
/** A search needs this many characters (Discord's search matches the start of names). */
export const MIN_QUERY_LENGTH = 2;

export interface MemberHit {
  userId: string;
  /** Their name in the server (nickname, display name or username), when Discord found them there. */
  discordName: string | null;
  username: string | null;
  patronName: string | null;
  linked: boolean;
}

export interface MemberDetail {
  userId: string;
  discordName: string | null;
  username: string | null;
  inGuild: boolean;
  /** In the server but not yet through its Membership Screening: given nothing until they accept its rules. */
  pending: boolean;
  /** The member's roles now, highest first (ids of deleted roles are left out). */
  roles: Array<{ id: string; name: string }>;
  patronName: string | null;
  /** What `/status` says, for this member: a dry run, nothing changes. */
  status: StatusReport;
  recentChanges: AuditEntry[];
  /** The comps in force for this member here. */
  comps: CompEntry[];
}

export interface MembersDeps {
  directory: Pick<GuildDirectory, 'searchMembers' | 'getMember'>;
  snapshots: Pick<GuildSnapshotCache, 'get'>;
  guilds: Pick<GuildRepository, 'campaignsOf'>;
  patronDirectory: Pick<PatronDirectoryRepository, 'search' | 'linksOf'>;
  status: Pick<StatusService, 'explain'>;
  audit: Pick<AuditBrowser, 'page'>;
  comps: Pick<CompService, 'list'>;
}

const nameOf = (m: GuildMemberInfo) => m.nick ?? m.globalName ?? m.username;

export function createMemberLookup(deps: MembersDeps): MemberLookup {
  return {
    async search(guildId: string, text: string): Promise<{ hits: MemberHit[]; unlinkedPatrons: string[] }> {
      const query = text.trim().slice(0, 100);
      if (query.length < MIN_QUERY_LENGTH) return { hits: [], unlinkedPatrons: [] };
      const campaignIds = await deps.guilds.campaignsOf(guildId);
      const byId = /^\d{17,20}$/.test(query);
      const [found, patrons] = await Promise.all([
        byId
          ? deps.directory.getMember(guildId, query).then((m) => (m ? [m] : []))
          : deps.directory.searchMembers(guildId, query, MAX_SEARCH_RESULTS),
        byId ? Promise.resolve([]) : deps.patronDirectory.search(campaignIds, query, MAX_SEARCH_RESULTS),
      ]);
      const hits = new Map<string, MemberHit>();
      for (const m of found.filter((m) => !m.bot)) {
        hits.set(m.userId, { userId: m.userId, discordName: nameOf(m), username: m.username, patronName: null, linked: false });
      }
      const links = await deps.patronDirectory.linksOf(campaignIds, [...hits.keys()]);
      for (const [userId, link] of links) {
        const hit = hits.get(userId);
        if (hit) Object.assign(hit, { linked: true, patronName: link.patronName });
      }
      for (const p of patrons) {
        if (!p.discordUserId) continue;
        const hit = hits.get(p.discordUserId);
        if (hit) Object.assign(hit, { linked: true, patronName: p.fullName });
        else
          hits.set(p.discordUserId, { userId: p.discordUserId, discordName: null, username: null, patronName: p.fullName, linked: true });
      }
      return {
        hits: [...hits.values()].slice(0, MAX_SEARCH_RESULTS),
        unlinkedPatrons: patrons.filter((p) => p.discordUserId === null).map((p) => p.fullName),
      };
    },

    async detail(guildId: string, userId: string): Promise<MemberDetail> {
      const campaignIds = await deps.guilds.campaignsOf(guildId);
      const [member, snapshot, status, links, recent, comps] = await Promise.all([
        deps.directory.getMember(guildId, userId),
        deps.snapshots.get(guildId),
        deps.status.explain(guildId, userId),
        deps.patronDirectory.linksOf(campaignIds, [userId]),
        deps.audit.page(guildId, { discordUserId: userId }, { cursor: null, direction: 'older' }),
        deps.comps.list(guildId, userId),
      ]);
      const held = new Set(member?.roleIds ?? []);
      const roles = snapshot.roles
        .filter((r) => held.has(r.id))
        .sort((a, b) => b.position - a.position)
        .map((r) => ({ id: r.id, name: r.name }));
      return {
        userId,
        discordName: member ? nameOf(member) : null,
        username: member?.username ?? null,
        inGuild: member !== null,
        pending: member?.pending === true,
        roles,
        patronName: links.get(userId)?.patronName ?? null,
        status,
        recentChanges: recent.entries.slice(0, 10),
        comps,
      };
    },
  };
}

/** The Members page: find a member by a Discord or Patreon name (or a Discord id) and explain their roles. */
export interface MemberLookup {
  /**
   * Members whose Discord username or nickname starts with the text, or whose Patreon name contains
   * it (or the member with that Discord id); and the names of matching patrons who linked no Discord
   * account (they cannot have roles, and the page says so).
   */
  search(guildId: string, text: string): Promise<{ hits: MemberHit[]; unlinkedPatrons: string[] }>;
  detail(guildId: string, userId: string): Promise<MemberDetail>;
}
