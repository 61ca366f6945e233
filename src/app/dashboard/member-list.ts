import type { CampaignRepository } from '../../edges/outbound/store/repositories/campaign-repository';
import type { GuildRepository } from '../../edges/outbound/store/repositories/guild-repository';
import {
  MEMBER_FILTER_KEYS,
  MEMBER_SORT_KEYS,
  type ListedMember,
  type ListedStanding,
  type MemberCounts,
  type MemberFilter,
  type MemberListRepository,
  type MemberListScope,
  type MemberSort,
} from '../../edges/outbound/store/repositories/member-list-repository';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';

export type { ListedMember, ListedStanding, MemberCounts, MemberFilter, MemberSort };
export { MEMBER_FILTER_KEYS, MEMBER_SORT_KEYS };

/** Rows on one page of the Members list. */
export const MEMBERS_PAGE_SIZE = 50;
/** Rows the CSV export reads per statement. */
const EXPORT_BATCH = 2_000;

/** A listed person with their tiers' titles. */
export interface MemberRow extends ListedMember {
  tierTitles: string[];
}

export interface MemberListPage {
  filter: MemberFilter;
  sort: MemberSort;
  /** 1-based. */
  page: number;
  pages: number;
  counts: MemberCounts;
  rows: MemberRow[];
  /** When the list was counted; `refreshing`: the data changed since and a new count is being made. */
  asOf: Date;
  refreshing: boolean;
}

export interface MemberListDeps {
  guilds: Pick<GuildRepository, 'campaignsOf' | 'settings'>;
  campaigns: Pick<CampaignRepository, 'tiersOf'>;
  memberList: Pick<MemberListRepository, 'counts' | 'page' | 'version' | 'state' | 'rebuild'>;
  clock: Clock;
  logger: Logger;
}

export const isMemberFilter = (v: unknown): v is MemberFilter => typeof v === 'string' && (MEMBER_FILTER_KEYS as string[]).includes(v);
export const isMemberSort = (v: unknown): v is MemberSort => typeof v === 'string' && (MEMBER_SORT_KEYS as string[]).includes(v);

export function createMemberList(deps: MemberListDeps): MemberList {
  const rebuilding = new Map<string, Promise<void>>();

  function rebuild(guildId: string, version: string): Promise<void> {
    const running = rebuilding.get(guildId);
    if (running) return running;
    const started = deps.memberList
      .rebuild(guildId, deps.clock.now(), version)
      .catch((error: unknown) => deps.logger.error({ err: error, guildId }, 'the members list could not be counted again'))
      .finally(() => rebuilding.delete(guildId));
    rebuilding.set(guildId, started);
    return started;
  }

  /**
   * The list as of now: built at the first view; after a change to the data behind it, the page
   * shows the last count (saying when it was made) while a new one is made, so a view never waits
   * for a count of 100,000 members once there is one.
   */
  async function current(guildId: string): Promise<{ asOf: Date; refreshing: boolean }> {
    const [version, state] = await Promise.all([deps.memberList.version(guildId), deps.memberList.state(guildId)]);
    if (!state) {
      await rebuild(guildId, version);
      return { asOf: (await deps.memberList.state(guildId))?.builtAt ?? deps.clock.now(), refreshing: false };
    }
    if (state.version === version) return { asOf: state.builtAt, refreshing: rebuilding.has(guildId) };
    void rebuild(guildId, version);
    return { asOf: state.builtAt, refreshing: true };
  }

  /** Counts again now if the data changed, and waits for it (the CSV export, the tests). */
  async function refresh(guildId: string): Promise<void> {
    await rebuilding.get(guildId);
    const [version, state] = await Promise.all([deps.memberList.version(guildId), deps.memberList.state(guildId)]);
    if (state?.version !== version) await rebuild(guildId, version);
  }

  async function scopeOf(guildId: string): Promise<MemberListScope> {
    const settings = await deps.guilds.settings(guildId);
    return { guildId, now: deps.clock.now(), graceDays: settings.graceDays };
  }

  async function titlesOf(guildId: string): Promise<Map<string, string>> {
    const tiers = await deps.campaigns.tiersOf(await deps.guilds.campaignsOf(guildId));
    return new Map(tiers.map((t) => [t.id, t.title]));
  }

  const named = (titles: Map<string, string>) => (m: ListedMember) => ({
    ...m,
    tierTitles: m.tierIds.flatMap((id) => (titles.has(id) ? [titles.get(id)!] : [])),
  });

  return {
    async counts(guildId: string): Promise<MemberCounts> {
      await current(guildId);
      return deps.memberList.counts(await scopeOf(guildId));
    },

    refresh,

    async page(guildId: string, options: { filter: MemberFilter; sort: MemberSort; page: number }): Promise<MemberListPage> {
      const fresh = await current(guildId);
      const scope = await scopeOf(guildId);
      const counts = await deps.memberList.counts(scope);
      const pages = Math.max(1, Math.ceil(counts[options.filter] / MEMBERS_PAGE_SIZE));
      const page = Math.min(Math.max(1, Math.floor(options.page)), pages);
      const [rows, titles] = await Promise.all([
        deps.memberList.page(scope, options.filter, options.sort, (page - 1) * MEMBERS_PAGE_SIZE, MEMBERS_PAGE_SIZE),
        titlesOf(guildId),
      ]);
      return { filter: options.filter, sort: options.sort, page, pages, counts, rows: rows.map(named(titles)), ...fresh };
    },

    async *export(guildId: string, filter: MemberFilter): AsyncIterable<MemberRow[]> {
      await refresh(guildId);
      const scope = await scopeOf(guildId);
      const titles = await titlesOf(guildId);
      for (let offset = 0; ; offset += EXPORT_BATCH) {
        const rows = await deps.memberList.page(scope, filter, 'name', offset, EXPORT_BATCH);
        if (rows.length > 0) yield rows.map(named(titles));
        if (rows.length < EXPORT_BATCH) return;
      }
    },
  };
}

/** The Members list: everyone the server's campaigns and comps know, counted per state, filtered, sorted, paged and exported. */
export interface MemberList {
  /** The counts alone (the Overview's key numbers). */
  counts(guildId: string): Promise<MemberCounts>;
  refresh(guildId: string): Promise<void>;
  page(guildId: string, options: { filter: MemberFilter; sort: MemberSort; page: number }): Promise<MemberListPage>;
  /** Every person of a filter, by name, in batches (the CSV export). */
  export(guildId: string, filter: MemberFilter): AsyncIterable<MemberRow[]>;
}
