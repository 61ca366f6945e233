import { and, desc, eq, inArray, or, sql } from 'drizzle-orm';
import { type Db, advisoryKey, queryRows, textArray } from '../database';
import { linkEvents, links } from '../schema';

/**
 * Discord user ↔ a person on an entitlement source, one to one within each source (a Discord user
 * may be linked on Patreon and on Ko-fi at once). A link the person made by signing in (method
 * `oauth`) always wins over one read from their profile or payment (method `social`).
 */
export interface LinkRepository {
  /** Every link of a Discord user, one per source. */
  linksOf(discordUserId: string): Promise<Link[]>;
  byDiscordUser(discordUserId: string, source: string): Promise<Link | null>;
  byExternal(source: string, externalId: string): Promise<Link | null>;
  byExternals(source: string, externalIds: readonly string[]): Promise<Link[]>;
  /**
   * Every link of these Discord users, by source (Discord user → external id): a page of the full
   * sync, or one member, in one statement answering one JSON value.
   */
  linksOfUsers(discordUserIds: readonly string[]): Promise<Map<string, Map<string, string>>>;
  /** The linked source user of each of these Discord users that has one (a page of the full sync; one JSON value back). */
  externalsOf(source: string, discordUserIds: readonly string[]): Promise<Map<string, string>>;
  byDiscordUsers(source: string, discordUserIds: readonly string[]): Promise<Link[]>;
  /**
   * Links through `/link`. A service account linked to another Discord account moves here (the
   * other account gets a `moved_away` event that its `/status` explains); a previous service
   * account of this Discord user is replaced.
   */
  linkOauth(source: string, discordUserId: string, externalId: string, now: Date): Promise<OauthLinkOutcome>;
  /**
   * Links from `social_connections.discord.user_id`, only when neither side is linked yet
   * (`/link` wins, and a social link never moves anyone), and never for a Discord user whose last
   * word was `/unlink`: their next `/link` ends that. Returns true when a link was made.
   */
  linkSocial(source: string, discordUserId: string, externalId: string, now: Date): Promise<boolean>;
  /**
   * {@link linkSocial} for a page of members at once (the full sync); returns the links made.
   * Two statements per thousand candidates (who last chose `/unlink`, then the links and their
   * events together), each with its rows as one JSON parameter.
   */
  linkSocialMany(source: string, candidates: readonly SocialLinkCandidate[], now: Date): Promise<SocialLinkCandidate[]>;
  /**
   * Every linked Discord user, `chunk` per statement as one string (in id order): the full sync
   * keeps them as 52-bit keys, 8 bytes each, to send no statement for a candidate already linked.
   */
  linkedDiscordUsers(source: string, chunk?: number): AsyncGenerator<string[]>;
  /** Of these Discord users, those whose latest link event is `/unlink`. */
  unlinkedByChoice(discordUserIds: readonly string[]): Promise<Set<string>>;
  /** `/unlink`: forgets every link of the Discord user (each source); answers the links forgotten. */
  unlink(discordUserId: string, now: Date): Promise<Link[]>;
  lastEvent(discordUserId: string): Promise<LinkEvent | null>;
  count(source?: string): Promise<number>;
}
/** A Discord user's link to their account on an entitlement source (one per source). */
export interface Link {
  discordUserId: string;
  /** The entitlement source (`patreon`, `kofi`). */
  source: string;
  /** The user's id on that source. */
  externalId: string;
  /** How the link was made: the user's OAuth sign-in, or the source's list of social connections. */
  method: 'oauth' | 'social';
  linkedAt: Date;
  updatedAt: Date;
}

/** One entry of a user's link history, so `/status` can tell why their link is gone. */
export interface LinkEvent {
  id: number;
  discordUserId: string;
  source: string;
  externalId: string;
  kind: 'linked' | 'unlinked' | 'moved_away';
  detail: string | null;
  at: Date;
}

export interface SocialLinkCandidate {
  discordUserId: string;
  /** The person on the source (Patreon's user id, Ko-fi's email). */
  externalId: string;
}

/** Rows per multi-row statement: well under PostgreSQL's 65,535 bind parameters. */
const CHUNK = 1000;

/** The first candidate for each Discord user and each source user (both sides are unique within a source). */
function uniquePairs(candidates: readonly SocialLinkCandidate[]): SocialLinkCandidate[] {
  const discord = new Set<string>();
  const external = new Set<string>();
  const out: SocialLinkCandidate[] = [];
  for (const c of candidates) {
    if (discord.has(c.discordUserId) || external.has(c.externalId)) continue;
    discord.add(c.discordUserId);
    external.add(c.externalId);
    out.push(c);
  }
  return out;
}

export interface OauthLinkOutcome {
  link: Link;
  /** The Discord account this service account was linked to before (its roles must move). */
  movedFrom: string | null;
  /** The source account this Discord user was linked to before, if it was another one. */
  replacedExternalId: string | null;
}

export function createLinkRepository(db: Db): LinkRepository {
  async function linkOauth(source: string, discordUserId: string, externalId: string, now: Date): Promise<OauthLinkOutcome> {
    return db.transaction(async (tx) => {
      // Links touching the same accounts run one at a time across instances (else two at once
      // both find nothing to move and collide on the unique index). Keys in a fixed order: no deadlock.
      const keys = [advisoryKey(`link:discord:${discordUserId}`), advisoryKey(`link:${source}:${externalId}`)].sort((x, y) =>
        x < y ? -1 : 1,
      );
      for (const key of keys) await tx.execute(sql`select pg_advisory_xact_lock(${key.toString()}::bigint)`);
      const existing = await tx
        .select()
        .from(links)
        .where(and(eq(links.source, source), or(eq(links.discordUserId, discordUserId), eq(links.externalId, externalId))));
      let movedFrom: string | null = null;
      let replacedExternalId: string | null = null;
      for (const row of existing) {
        if (row.discordUserId !== discordUserId) {
          movedFrom = row.discordUserId;
          await tx.insert(linkEvents).values({
            discordUserId: row.discordUserId,
            source,
            externalId,
            kind: 'moved_away',
            detail: discordUserId,
            at: now,
          });
        } else if (row.externalId !== externalId) {
          replacedExternalId = row.externalId;
        }
        await tx.delete(links).where(and(eq(links.source, source), eq(links.discordUserId, row.discordUserId)));
      }
      const [link] = await tx
        .insert(links)
        .values({ discordUserId, source, externalId, method: 'oauth', linkedAt: now, updatedAt: now })
        .returning();
      await tx.insert(linkEvents).values({ discordUserId, source, externalId, kind: 'linked', detail: 'oauth', at: now });
      return { link: link!, movedFrom, replacedExternalId };
    });
  }

  return {
    async linksOf(discordUserId: string): Promise<Link[]> {
      return db.select().from(links).where(eq(links.discordUserId, discordUserId)).orderBy(links.source);
    },

    async byDiscordUser(discordUserId: string, source: string): Promise<Link | null> {
      const [row] = await db
        .select()
        .from(links)
        .where(and(eq(links.discordUserId, discordUserId), eq(links.source, source)));
      return row ?? null;
    },

    async byExternal(source: string, externalId: string): Promise<Link | null> {
      const [row] = await db
        .select()
        .from(links)
        .where(and(eq(links.source, source), eq(links.externalId, externalId)));
      return row ?? null;
    },

    async byExternals(source: string, externalIds: readonly string[]): Promise<Link[]> {
      if (externalIds.length === 0) return [];
      return db
        .select()
        .from(links)
        .where(and(eq(links.source, source), inArray(links.externalId, [...externalIds])));
    },

    async linksOfUsers(discordUserIds: readonly string[]): Promise<Map<string, Map<string, string>>> {
      const out = new Map<string, Map<string, string>>();
      if (discordUserIds.length === 0) return out;
      const [row] = await queryRows<{ j: string }>(
        db,
        sql`select coalesce(json_agg(json_build_array(source, discord_user_id, external_id)), '[]')::text as j
            from links where discord_user_id = any(${textArray(discordUserIds)}::text[])`,
      );
      for (const [source, discordUserId, externalId] of JSON.parse(row?.j ?? '[]') as Array<[string, string, string]>) {
        let bySource = out.get(source);
        if (!bySource) out.set(source, (bySource = new Map()));
        bySource.set(discordUserId, externalId);
      }
      return out;
    },

    async externalsOf(source: string, discordUserIds: readonly string[]): Promise<Map<string, string>> {
      if (discordUserIds.length === 0) return new Map();
      const [row] = await queryRows<{ j: string }>(
        db,
        sql`select coalesce(json_agg(json_build_array(discord_user_id, external_id)), '[]')::text as j
            from links where source = ${source} and discord_user_id = any(${textArray(discordUserIds)}::text[])`,
      );
      return new Map(JSON.parse(row?.j ?? '[]') as Array<[string, string]>);
    },

    async byDiscordUsers(source: string, discordUserIds: readonly string[]): Promise<Link[]> {
      if (discordUserIds.length === 0) return [];
      return db
        .select()
        .from(links)
        .where(and(eq(links.source, source), sql`${links.discordUserId} = any(${textArray(discordUserIds)}::text[])`));
    },

    linkOauth,

    async linkSocial(source: string, discordUserId: string, externalId: string, now: Date): Promise<boolean> {
      return (await this.linkSocialMany(source, [{ discordUserId, externalId }], now)).length > 0;
    },

    async linkSocialMany(source: string, candidates: readonly SocialLinkCandidate[], now: Date): Promise<SocialLinkCandidate[]> {
      const made: SocialLinkCandidate[] = [];
      for (let i = 0; i < candidates.length; i += CHUNK) {
        const chunk = uniquePairs(candidates.slice(i, i + CHUNK));
        const optedOut = await this.unlinkedByChoice(chunk.map((c) => c.discordUserId));
        const wanted = chunk.filter((c) => !optedOut.has(c.discordUserId));
        if (wanted.length === 0) continue;
        const at = now.toISOString();
        const inserted = await queryRows<{ discord_user_id: string; external_id: string }>(
          db,
          sql`with made as (
                insert into links (discord_user_id, source, external_id, method, linked_at, updated_at)
                select r->>0, ${source}, r->>1, 'social', ${at}::timestamptz, ${at}::timestamptz
                from jsonb_array_elements(${JSON.stringify(wanted.map((c) => [c.discordUserId, c.externalId]))}::jsonb) as r
                on conflict do nothing
                returning discord_user_id, external_id),
              events as (
                insert into link_events (discord_user_id, source, external_id, kind, detail, at)
                select discord_user_id, ${source}, external_id, 'linked', 'social', ${at}::timestamptz from made)
              select discord_user_id, external_id from made`,
        );
        for (const l of inserted) made.push({ discordUserId: l.discord_user_id, externalId: l.external_id });
      }
      return made;
    },

    async *linkedDiscordUsers(source: string, chunk = 20_000): AsyncGenerator<string[]> {
      let after = '';
      for (;;) {
        const [row] = await queryRows<{ list: string | null; last: string | null }>(
          db,
          sql`select string_agg(discord_user_id, ' ' order by discord_user_id) as list, max(discord_user_id) as last
              from (select discord_user_id from links where source = ${source} and discord_user_id > ${after}
                    order by discord_user_id limit ${chunk}) as page`,
        );
        if (!row?.list || row.last === null) return;
        const ids = row.list.split(' ');
        yield ids;
        if (ids.length < chunk) return;
        after = row.last;
      }
    },

    async unlinkedByChoice(discordUserIds: readonly string[]): Promise<Set<string>> {
      if (discordUserIds.length === 0) return new Set();
      const rows = await db
        .selectDistinctOn([linkEvents.discordUserId], { discordUserId: linkEvents.discordUserId, kind: linkEvents.kind })
        .from(linkEvents)
        .where(sql`${linkEvents.discordUserId} = any(${textArray(discordUserIds)}::text[])`)
        .orderBy(linkEvents.discordUserId, desc(linkEvents.at), desc(linkEvents.id));
      return new Set(rows.filter((r) => r.kind === 'unlinked').map((r) => r.discordUserId));
    },

    async unlink(discordUserId: string, now: Date): Promise<Link[]> {
      return db.transaction(async (tx) => {
        const rows = await tx.delete(links).where(eq(links.discordUserId, discordUserId)).returning();
        for (const row of rows) {
          await tx.insert(linkEvents).values({ discordUserId, source: row.source, externalId: row.externalId, kind: 'unlinked', at: now });
        }
        return rows;
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

    async count(source?: string): Promise<number> {
      return source === undefined ? db.$count(links) : db.$count(links, eq(links.source, source));
    },
  };
}
