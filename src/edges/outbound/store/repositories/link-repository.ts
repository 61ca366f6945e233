import { desc, eq, inArray, or, sql } from 'drizzle-orm';
import { type Db, advisoryKey, queryRows, textArray } from '../database';
import { linkEvents, links } from '../schema';

export type LinkRepository = ReturnType<typeof createLinkRepository>;
export type Link = typeof links.$inferSelect;
export type LinkEvent = typeof linkEvents.$inferSelect;

export interface SocialLinkCandidate {
  discordUserId: string;
  patreonUserId: string;
}

/** Rows per multi-row statement: well under PostgreSQL's 65,535 bind parameters. */
const CHUNK = 1000;

/** The first candidate for each Discord user and each service user (both sides are unique). */
function uniquePairs(candidates: readonly SocialLinkCandidate[]): SocialLinkCandidate[] {
  const discord = new Set<string>();
  const patreon = new Set<string>();
  const out: SocialLinkCandidate[] = [];
  for (const c of candidates) {
    if (discord.has(c.discordUserId) || patreon.has(c.patreonUserId)) continue;
    discord.add(c.discordUserId);
    patreon.add(c.patreonUserId);
    out.push(c);
  }
  return out;
}

export interface OauthLinkOutcome {
  link: Link;
  /** The Discord account this service account was linked to before (its roles must move). */
  movedFrom: string | null;
  /** The service account this Discord user was linked to before, if it was another one. */
  replacedPatreonUserId: string | null;
}

/**
 * Discord user ↔ service user, one to one. `/link` (source `oauth`) always wins over a link read
 * from the service user's `social_connections` (source `social`).
 */
export function createLinkRepository(db: Db) {
  async function linkOauth(discordUserId: string, patreonUserId: string, now: Date): Promise<OauthLinkOutcome> {
    return db.transaction(async (tx) => {
      // Links touching the same accounts run one at a time across instances (else two at once
      // both find nothing to move and collide on the unique index). Keys in a fixed order: no deadlock.
      const keys = [advisoryKey(`link:discord:${discordUserId}`), advisoryKey(`link:patreon:${patreonUserId}`)].sort((x, y) =>
        x < y ? -1 : 1,
      );
      for (const key of keys) await tx.execute(sql`select pg_advisory_xact_lock(${key.toString()}::bigint)`);
      const existing = await tx
        .select()
        .from(links)
        .where(or(eq(links.discordUserId, discordUserId), eq(links.patreonUserId, patreonUserId)));
      let movedFrom: string | null = null;
      let replacedPatreonUserId: string | null = null;
      for (const row of existing) {
        if (row.discordUserId !== discordUserId) {
          movedFrom = row.discordUserId;
          await tx.insert(linkEvents).values({
            discordUserId: row.discordUserId,
            patreonUserId,
            kind: 'moved_away',
            detail: discordUserId,
            at: now,
          });
        } else if (row.patreonUserId !== patreonUserId) {
          replacedPatreonUserId = row.patreonUserId;
        }
        await tx.delete(links).where(eq(links.discordUserId, row.discordUserId));
      }
      const [link] = await tx
        .insert(links)
        .values({ discordUserId, patreonUserId, source: 'oauth', linkedAt: now, updatedAt: now })
        .returning();
      await tx.insert(linkEvents).values({ discordUserId, patreonUserId, kind: 'linked', detail: 'oauth', at: now });
      return { link: link!, movedFrom, replacedPatreonUserId };
    });
  }

  return {
    async byDiscordUser(discordUserId: string): Promise<Link | null> {
      const [row] = await db.select().from(links).where(eq(links.discordUserId, discordUserId));
      return row ?? null;
    },

    async byPatreonUser(patreonUserId: string): Promise<Link | null> {
      const [row] = await db.select().from(links).where(eq(links.patreonUserId, patreonUserId));
      return row ?? null;
    },

    async byPatreonUsers(patreonUserIds: readonly string[]): Promise<Link[]> {
      if (patreonUserIds.length === 0) return [];
      return db
        .select()
        .from(links)
        .where(inArray(links.patreonUserId, [...patreonUserIds]));
    },

    /** The linked service user of each of these Discord users that has one (a page of the full sync; one JSON value back). */
    async patreonUsersOf(discordUserIds: readonly string[]): Promise<Map<string, string>> {
      if (discordUserIds.length === 0) return new Map();
      const [row] = await queryRows<{ j: string }>(
        db,
        sql`select coalesce(json_agg(json_build_array(discord_user_id, patreon_user_id)), '[]')::text as j
            from links where discord_user_id = any(${textArray(discordUserIds)}::text[])`,
      );
      return new Map(JSON.parse(row?.j ?? '[]') as Array<[string, string]>);
    },

    async byDiscordUsers(discordUserIds: readonly string[]): Promise<Link[]> {
      if (discordUserIds.length === 0) return [];
      return db
        .select()
        .from(links)
        .where(sql`${links.discordUserId} = any(${textArray(discordUserIds)}::text[])`);
    },

    /**
     * Links through `/link`. A service account linked to another Discord account moves here (the
     * other account gets a `moved_away` event that its `/status` explains); a previous service
     * account of this Discord user is replaced.
     */
    linkOauth,

    /**
     * Links from `social_connections.discord.user_id`, only when neither side is linked yet
     * (`/link` wins, and a social link never moves anyone), and never for a Discord user whose last
     * word was `/unlink`: their next `/link` ends that. Returns true when a link was made.
     */
    async linkSocial(discordUserId: string, patreonUserId: string, now: Date): Promise<boolean> {
      return (await this.linkSocialMany([{ discordUserId, patreonUserId }], now)).length > 0;
    },

    /**
     * {@link linkSocial} for a page of members at once (the full sync); returns the links made.
     * Two statements per thousand candidates (who last chose `/unlink`, then the links and their
     * events together), each with its rows as one JSON parameter.
     */
    async linkSocialMany(candidates: readonly SocialLinkCandidate[], now: Date): Promise<SocialLinkCandidate[]> {
      const made: SocialLinkCandidate[] = [];
      for (let i = 0; i < candidates.length; i += CHUNK) {
        const chunk = uniquePairs(candidates.slice(i, i + CHUNK));
        const optedOut = await this.unlinkedByChoice(chunk.map((c) => c.discordUserId));
        const wanted = chunk.filter((c) => !optedOut.has(c.discordUserId));
        if (wanted.length === 0) continue;
        const at = now.toISOString();
        const inserted = await queryRows<{ discord_user_id: string; patreon_user_id: string }>(
          db,
          sql`with made as (
                insert into links (discord_user_id, patreon_user_id, source, linked_at, updated_at)
                select r->>0, r->>1, 'social', ${at}::timestamptz, ${at}::timestamptz
                from jsonb_array_elements(${JSON.stringify(wanted.map((c) => [c.discordUserId, c.patreonUserId]))}::jsonb) as r
                on conflict do nothing
                returning discord_user_id, patreon_user_id),
              events as (
                insert into link_events (discord_user_id, patreon_user_id, kind, detail, at)
                select discord_user_id, patreon_user_id, 'linked', 'social', ${at}::timestamptz from made)
              select discord_user_id, patreon_user_id from made`,
        );
        for (const l of inserted) made.push({ discordUserId: l.discord_user_id, patreonUserId: l.patreon_user_id });
      }
      return made;
    },

    /**
     * Every linked Discord user, `chunk` per statement as one string (in id order): the full sync
     * keeps them as 52-bit keys, 8 bytes each, to send no statement for a candidate already linked.
     */
    async *linkedDiscordUsers(chunk = 20_000): AsyncGenerator<string[]> {
      let after = '';
      for (;;) {
        const [row] = await queryRows<{ list: string | null; last: string | null }>(
          db,
          sql`select string_agg(discord_user_id, ' ' order by discord_user_id) as list, max(discord_user_id) as last
              from (select discord_user_id from links where discord_user_id > ${after} order by discord_user_id limit ${chunk}) as page`,
        );
        if (!row?.list || row.last === null) return;
        const ids = row.list.split(' ');
        yield ids;
        if (ids.length < chunk) return;
        after = row.last;
      }
    },

    /** Of these Discord users, those whose latest link event is `/unlink`. */
    async unlinkedByChoice(discordUserIds: readonly string[]): Promise<Set<string>> {
      if (discordUserIds.length === 0) return new Set();
      const rows = await db
        .selectDistinctOn([linkEvents.discordUserId], { discordUserId: linkEvents.discordUserId, kind: linkEvents.kind })
        .from(linkEvents)
        .where(sql`${linkEvents.discordUserId} = any(${textArray(discordUserIds)}::text[])`)
        .orderBy(linkEvents.discordUserId, desc(linkEvents.at), desc(linkEvents.id));
      return new Set(rows.filter((r) => r.kind === 'unlinked').map((r) => r.discordUserId));
    },

    async unlink(discordUserId: string, now: Date): Promise<Link | null> {
      return db.transaction(async (tx) => {
        const [row] = await tx.delete(links).where(eq(links.discordUserId, discordUserId)).returning();
        if (!row) return null;
        await tx.insert(linkEvents).values({ discordUserId, patreonUserId: row.patreonUserId, kind: 'unlinked', at: now });
        return row;
      });
    },

    async lastEvent(discordUserId: string): Promise<LinkEvent | null> {
      const [row] = await db
        .select()
        .from(linkEvents)
        .where(eq(linkEvents.discordUserId, discordUserId))
        .orderBy(desc(linkEvents.at), desc(linkEvents.id))
        .limit(1);
      return row ?? null;
    },

    async count(): Promise<number> {
      return db.$count(links);
    },
  };
}
