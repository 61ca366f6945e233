import { sql } from 'drizzle-orm';
import { queryRows } from '../database';
import type { Db } from '../database';

/** A campaign member as the dashboard lists them: their name on the service and the Discord account linked to it. */
export interface PatronEntry {
  patreonUserId: string;
  fullName: string;
  /** Null when nobody linked this membership to a Discord account. */
  discordUserId: string | null;
}

/** `%` and `_` typed by a person match themselves. */
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export function createPatronDirectoryRepository(db: Db): PatronDirectoryRepository {
  return {
    async search(campaignIds: readonly string[], text: string, limit: number): Promise<PatronEntry[]> {
      if (campaignIds.length === 0 || text.trim() === '') return [];
      const rows = await queryRows<{ patreon_user_id: string; full_name: string; discord_user_id: string | null }>(
        db,
        sql`
        select distinct on (s.external_user_id) s.external_user_id as patreon_user_id, s.full_name, l.discord_user_id
        from member_snapshots s
        left join links l on l.source = s.source and l.external_id = s.external_user_id
        where s.campaign_id in (select jsonb_array_elements_text(${JSON.stringify(campaignIds)}::jsonb))
          and s.external_user_id is not null
          and s.full_name ilike ${likePattern(text.trim())}
        order by s.external_user_id, s.fetched_at desc
        limit ${limit * 4}`,
      );
      return rows
        .map((r) => ({ patreonUserId: r.patreon_user_id, fullName: r.full_name, discordUserId: r.discord_user_id }))
        .sort((a, b) => Number(b.discordUserId !== null) - Number(a.discordUserId !== null) || a.fullName.localeCompare(b.fullName))
        .slice(0, limit);
    },

    async linksOf(campaignIds: readonly string[], discordUserIds: readonly string[]): Promise<Map<string, { patronName: string | null }>> {
      const out = new Map<string, { patronName: string | null }>();
      if (discordUserIds.length === 0) return out;
      const rows = await queryRows<{ discord_user_id: string; full_name: string | null }>(
        db,
        sql`
        select distinct on (l.discord_user_id) l.discord_user_id, s.full_name
        from links l
        left join member_snapshots s on s.source = l.source and s.external_user_id = l.external_id
          and s.campaign_id in (select jsonb_array_elements_text(${JSON.stringify(campaignIds)}::jsonb))
        where l.discord_user_id in (select jsonb_array_elements_text(${JSON.stringify([...new Set(discordUserIds)])}::jsonb))
        order by l.discord_user_id, s.fetched_at desc nulls last`,
      );
      for (const r of rows) out.set(r.discord_user_id, { patronName: r.full_name });
      return out;
    },
  };
}

/** Members of campaigns found by their name on the service, and the names of linked Discord users. */
export interface PatronDirectoryRepository {
  /** Up to `limit` members of the campaigns whose name contains `text` (case-insensitive), linked ones first. */
  search(campaignIds: readonly string[], text: string, limit: number): Promise<PatronEntry[]>;
  /**
   * Which of `discordUserIds` are linked, each with their name on the service as the newest
   * snapshot of the campaigns has it (null when they are no member of these campaigns).
   */
  linksOf(campaignIds: readonly string[], discordUserIds: readonly string[]): Promise<Map<string, { patronName: string | null }>>;
}
