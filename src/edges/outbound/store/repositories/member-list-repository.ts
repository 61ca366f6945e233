import { type SQL, sql } from 'drizzle-orm';
import type { Fence } from '../../../../shared/fence';
import { queryRows, textArray } from '../database';
import type { Db } from '../database';
import { fenceHolds } from '../fences';

/**
 * How long a departure is kept ({@link MemberListRepository.left}): it matters only to a full sync's
 * listing that began before it, and no listing runs for a day.
 */
export const DEPARTURE_KEPT_MS = 86_400_000;

/**
 * How a person stands with the server's campaigns, as the Members page shows it: `patron`
 * (entitled now), `grace` (a payment declined, roles kept for the grace days), `lapsed` (declined
 * and the grace is over), `former`, `follower`, `none` (no membership: only comped, or only in the
 * server with a role Tierlink granted).
 */
export type ListedStanding = 'patron' | 'grace' | 'lapsed' | 'former' | 'follower' | 'none';

/** One person on the Members page: one membership of a source, or a Discord member no source knows. */
export interface ListedMember {
  /** `patreon`, `kofi`, …; `discord` for a member no source knows (comped, or holding a role Tierlink granted). */
  source: string;
  campaignId: string | null;
  memberId: string | null;
  discordUserId: string | null;
  /** Their name in the server as the last full sync saw it. */
  displayName: string | null;
  /** Their name on the source. */
  patronName: string | null;
  standing: ListedStanding;
  tierIds: string[];
  inServer: boolean;
  comped: boolean;
  since: Date | null;
  amountCents: number | null;
}

/**
 * The Members page's filters, each a condition on one row of `member_list_rows` (`$grace`: the
 * start of the grace period now: a payment declined after it is in grace). More sources add their
 * own here (one key, one condition); the page, the counts and the CSV pick them up.
 */
function memberFilters(grace: SQL) {
  const inGrace = sql`(base = 'declined' and declined_at > ${grace})`;
  const entitled = sql`(base = 'patron' or ${inGrace})`;
  return {
    all: sql`true`,
    patrons: sql`base = 'patron'`,
    linked: sql`(discord_user_id is not null and source <> 'discord')`,
    'not-linked': sql`(discord_user_id is null and ${entitled})`,
    'not-in-server': sql`(discord_user_id is not null and not in_server and (${entitled} or comped))`,
    grace: inGrace,
    former: sql`(base = 'former' or (base = 'declined' and not ${inGrace}))`,
    comped: sql`comped`,
  } satisfies Record<string, SQL>;
}

export type MemberFilter = keyof ReturnType<typeof memberFilters>;
export const MEMBER_FILTER_KEYS = Object.keys(memberFilters(sql`now()`)) as MemberFilter[];

const SORTS = {
  name: sql`sort_name asc, row_key asc`,
  since: sql`since desc nulls last, row_key desc`,
  amount: sql`amount_cents desc nulls last, row_key desc`,
  standing: sql`case base when 'patron' then 0 when 'declined' then 1 when 'former' then 3 when 'follower' then 4 else 5 end asc, sort_name asc, row_key asc`,
} satisfies Record<string, SQL>;

export type MemberSort = keyof typeof SORTS;
export const MEMBER_SORT_KEYS = Object.keys(SORTS) as MemberSort[];

export type MemberCounts = Record<MemberFilter, number>;

export interface MemberListScope {
  guildId: string;
  now: Date;
  /** The server's grace days: a declined payment within them is `grace`, older `lapsed`. */
  graceDays: number;
}

/** When the list was built, and whether the data behind it changed since. */
export interface MemberListState {
  builtAt: Date;
  version: string;
}

interface Row {
  source: string;
  campaign_id: string | null;
  member_id: string | null;
  discord_user_id: string | null;
  display_name: string | null;
  patron_name: string | null;
  base: string;
  declined_at: string | Date | null;
  tier_ids: string[] | null;
  in_server: boolean;
  comped: boolean;
  since: string | Date | null;
  amount_cents: number | null;
}

const toDate = (v: string | Date | null) => (v === null ? null : v instanceof Date ? v : new Date(v));

const graceStartOf = (scope: MemberListScope) =>
  sql`${new Date(scope.now.getTime() - scope.graceDays * 86_400_000).toISOString()}::timestamptz`;

function standingOf(r: Row, graceStart: Date): ListedStanding {
  if (r.base !== 'declined') return r.base as ListedStanding;
  const at = toDate(r.declined_at);
  return at && at.getTime() > graceStart.getTime() ? 'grace' : 'lapsed';
}

/**
 * Everyone the server's Members page lists: each membership of the server's campaigns (any source)
 * with the Discord account linked to it, whether that account is in the server (the last complete
 * member listing) and comped; then the server's members no source knows (comped, or holding a role
 * Tierlink granted).
 */
function people(guildId: string, now: Date): SQL {
  return sql`
  with comped as (
    select distinct discord_user_id from comps
    where guild_id = ${guildId} and revoked_at is null and until > ${now.toISOString()}::timestamptz
  ),
  snap as (
    select s.source, s.campaign_id, s.member_id, l.discord_user_id, s.full_name as patron_name,
      case
        when s.patron_status = 'active_patron' and jsonb_array_length(s.entitled_tier_ids) > 0 then 'patron'
        when s.patron_status = 'declined_patron' then 'declined'
        when s.patron_status = 'former_patron' then 'former'
        when s.is_follower then 'follower'
        else 'none'
      end as base,
      case when s.patron_status = 'declined_patron' then s.first_declined_at end as declined_at,
      case when s.patron_status = 'declined_patron' then s.last_active_tier_ids else s.entitled_tier_ids end as tier_ids,
      s.pledge_relationship_start as since, s.entitled_amount_cents as amount_cents
    from member_snapshots s
    join guild_campaigns gc on gc.guild_id = ${guildId} and gc.campaign_id = s.campaign_id
    left join links l on l.source = s.source and l.external_id = s.external_user_id
  ),
  listed as (
    select snap.source || '/' || snap.campaign_id || '/' || snap.member_id as row_key, snap.*,
      p.display_name, p.discord_user_id is not null as in_server, c.discord_user_id is not null as comped
    from snap
    left join guild_presence p on p.guild_id = ${guildId} and p.discord_user_id = snap.discord_user_id
    left join comped c on c.discord_user_id = snap.discord_user_id
    union all
    select 'discord/' || u.discord_user_id, 'discord', null, null, u.discord_user_id, null, 'none', null, '[]'::jsonb, null, null,
      p.display_name, p.discord_user_id is not null, c.discord_user_id is not null
    from (select discord_user_id from guild_presence where guild_id = ${guildId} union select discord_user_id from comped) u
    left join guild_presence p on p.guild_id = ${guildId} and p.discord_user_id = u.discord_user_id
    left join comped c on c.discord_user_id = u.discord_user_id
    where not exists (select 1 from snap where snap.discord_user_id = u.discord_user_id)
  )`;
}

export function createMemberListRepository(db: Db): MemberListRepository {
  function countsOver(scope: MemberListScope, which: SQL): Promise<Array<Record<string, number>>> {
    const filters = memberFilters(graceStartOf(scope));
    const columns = sql.join(
      MEMBER_FILTER_KEYS.map((key) => sql`count(*) filter (where ${filters[key]})::int as ${sql.identifier(key)}`),
      sql`, `,
    );
    return queryRows<Record<string, number>>(
      db,
      sql`select ${columns} from member_list_rows where guild_id = ${scope.guildId} and ${which}`,
    );
  }

  return {
    async version(guildId: string): Promise<string> {
      const [row] = await queryRows<{ v: string }>(
        db,
        sql`select concat_ws('|',
          (select count(*) || ':' || coalesce(max(x.m)::text, '') from guild_campaigns gc
            cross join lateral (select max(s.fetched_at) as m from member_snapshots s where s.campaign_id = gc.campaign_id) x
            where gc.guild_id = ${guildId}),
          (select coalesce(max(id)::text, '') from link_events),
          (select coalesce(max(seen_at)::text, '') from guild_presence where guild_id = ${guildId}),
          (select count(removed_at) || ':' || coalesce(max(removed_at)::text, '') from guild_departures where guild_id = ${guildId}),
          (select count(*) || ':' || coalesce(max(granted_at)::text, '') || ':' || coalesce(max(revoked_at)::text, '') || ':' || coalesce(max(until)::text, '')
            from comps where guild_id = ${guildId}),
          (select coalesce(max(coalesce(finished_at, started_at))::text, '') from sync_runs where guild_id = ${guildId})
        ) as v`,
      );
      return row?.v ?? '';
    },

    async state(guildId: string): Promise<MemberListState | null> {
      const [row] = await queryRows<{ built_at: string | Date; version: string }>(
        db,
        sql`select built_at, version from member_list_state where guild_id = ${guildId}`,
      );
      return row ? { builtAt: toDate(row.built_at)!, version: row.version } : null;
    },

    async rebuild(guildId: string, now: Date, version: string): Promise<void> {
      await db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`member_list:${guildId}`}))`);
        await tx.execute(sql`delete from member_list_rows where guild_id = ${guildId}`);
        await tx.execute(sql`${people(guildId, now)}
          insert into member_list_rows (guild_id, row_key, source, campaign_id, member_id, discord_user_id, display_name, patron_name,
            base, declined_at, tier_ids, in_server, comped, since, amount_cents, sort_name)
          select ${guildId}, row_key, source, campaign_id, member_id, discord_user_id, display_name, patron_name,
            base, declined_at, coalesce(tier_ids, '[]'::jsonb), in_server, comped, since, amount_cents,
            lower(coalesce(display_name, patron_name, discord_user_id, ''))
          from listed
          on conflict (guild_id, row_key) do nothing`);
        const filters = memberFilters(sql`now()`);
        const columns = sql.join(
          MEMBER_FILTER_KEYS.map((key) => sql`count(*) filter (where ${filters[key]})::int as ${sql.identifier(key)}`),
          sql`, `,
        );
        const counted = (await tx.execute(
          sql`select ${columns} from member_list_rows where guild_id = ${guildId} and base <> 'declined'`,
        )) as unknown as { rows: Array<Record<string, number>> };
        const counts = JSON.stringify(counted.rows[0] ?? {});
        await tx.execute(sql`insert into member_list_state (guild_id, version, built_at, counts)
          values (${guildId}, ${version}, ${now.toISOString()}::timestamptz, ${counts}::jsonb)
          on conflict (guild_id) do update set version = excluded.version, built_at = excluded.built_at, counts = excluded.counts`);
      });
      // The embedded database runs no autovacuum: without fresh statistics its planner sorts the
      // whole list for a page instead of walking the name index (bench/member-list.ts).
      await db.execute(sql`analyze member_list_rows`);
    },

    async counts(scope: MemberListScope): Promise<MemberCounts> {
      const [[stored], [declined]] = await Promise.all([
        queryRows<{ counts: Record<string, number> }>(db, sql`select counts from member_list_state where guild_id = ${scope.guildId}`),
        countsOver(scope, sql`base = 'declined'`),
      ]);
      return Object.fromEntries(
        MEMBER_FILTER_KEYS.map((k) => [k, Number(stored?.counts[k] ?? 0) + Number(declined?.[k] ?? 0)]),
      ) as MemberCounts;
    },

    async page(scope: MemberListScope, filter: MemberFilter, sort: MemberSort, offset: number, limit: number): Promise<ListedMember[]> {
      const graceStart = new Date(scope.now.getTime() - scope.graceDays * 86_400_000);
      const rows = await queryRows<Row>(
        db,
        sql`select * from member_list_rows where guild_id = ${scope.guildId} and ${memberFilters(graceStartOf(scope))[filter]}
        order by ${SORTS[sort]} limit ${limit} offset ${offset}`,
      );
      return rows.map((r) => ({
        source: r.source,
        campaignId: r.campaign_id,
        memberId: r.member_id,
        discordUserId: r.discord_user_id,
        displayName: r.display_name,
        patronName: r.patron_name,
        standing: standingOf(r, graceStart),
        tierIds: r.tier_ids ?? [],
        inServer: r.in_server,
        comped: r.comped,
        since: toDate(r.since),
        amountCents: r.amount_cents === null ? null : Number(r.amount_cents),
      }));
    },

    async seen(
      guildId: string,
      members: ReadonlyArray<{ userId: string; name: string | null }>,
      at: Date,
      listing: string | null = null,
    ): Promise<void> {
      if (members.length === 0) return;
      const ids = textArray(members.map((m) => m.userId));
      const atTime = sql`${at.toISOString()}::timestamptz`;
      // A reconcile saw them in the server now: a departure before it is over. A listing that began
      // at `at` or before a departure read its page before the member left: it does not write them.
      const [before, unless] =
        listing === null
          ? [sql`with back as (delete from guild_departures where guild_id = ${guildId} and discord_user_id = any(${ids}::text[]))`, sql``]
          : [
              sql``,
              sql`where not exists (select 1 from guild_departures d
                  where d.guild_id = ${guildId} and d.discord_user_id = u.id and d.left_at >= ${atTime})`,
            ];
      await db.execute(sql`${before}
        insert into guild_presence (guild_id, discord_user_id, display_name, seen_at, listing)
        select ${guildId}, u.id, nullif(u.name, ''), ${atTime}, ${listing}
        from unnest(${ids}::text[], ${textArray(members.map((m) => m.name ?? ''))}::text[]) as u(id, name)
        ${unless}
        on conflict (guild_id, discord_user_id) do update
          set display_name = coalesce(excluded.display_name, guild_presence.display_name),
            seen_at = case
              when excluded.listing is not null and guild_presence.listing is not null
                and guild_presence.display_name is not distinct from coalesce(excluded.display_name, guild_presence.display_name)
              then guild_presence.seen_at else excluded.seen_at end,
            listing = excluded.listing`);
    },

    async *presence(guildId: string, chunk = 20_000): AsyncGenerator<PresenceRow[]> {
      let after = '';
      for (;;) {
        const [row] = await queryRows<{ j: string | null }>(
          db,
          sql`select json_agg(json_build_array(discord_user_id, display_name, listing is not null) order by discord_user_id)::text as j
              from (select discord_user_id, display_name, listing from guild_presence
                    where guild_id = ${guildId} and discord_user_id > ${after} order by discord_user_id limit ${chunk}) as page`,
        );
        if (!row?.j) return;
        const rows = (JSON.parse(row.j) as Array<[string, string | null, boolean]>).map(([userId, name, listed]) => ({
          userId,
          name,
          listed,
        }));
        yield rows;
        if (rows.length < chunk) return;
        after = rows[rows.length - 1]!.userId;
      }
    },

    async forget(guildId: string, discordUserIds: readonly string[], listingStart: Date): Promise<number> {
      if (discordUserIds.length === 0) return 0;
      const [row] = await queryRows<{ n: number }>(
        db,
        sql`with gone as (delete from guild_presence
              where guild_id = ${guildId} and discord_user_id = any(${textArray(discordUserIds)}::text[])
                and (listing is not null or seen_at < ${listingStart.toISOString()}::timestamptz)
              returning 1)
            select count(*)::int as n from gone`,
      );
      return row?.n ?? 0;
    },

    async present(guildId: string, discordUserId: string, name: string | null, at: Date, inServer: boolean): Promise<void> {
      if (inServer) await this.seen(guildId, [{ userId: discordUserId, name }], at);
      else await this.left(guildId, discordUserId, at);
    },

    async left(guildId: string, discordUserId: string, at: Date, fence: Fence | null = null): Promise<boolean> {
      const holds = fence ? fenceHolds(fence, at) : sql`true`;
      const atTime = sql`${at.toISOString()}::timestamptz`;
      const [row] = await queryRows<{ ok: boolean }>(
        db,
        sql`with fenced as (select ${holds} as ok),
            gone as (delete from guild_presence
              where guild_id = ${guildId} and discord_user_id = ${discordUserId} and (select ok from fenced) returning 1),
            kept as (delete from guild_departures
              where guild_id = ${guildId} and discord_user_id <> ${discordUserId}
                and left_at < ${new Date(at.getTime() - DEPARTURE_KEPT_MS).toISOString()}::timestamptz and (select ok from fenced)),
            noted as (insert into guild_departures (guild_id, discord_user_id, left_at, removed_at)
              select ${guildId}, ${discordUserId}, ${atTime}, case when exists (select 1 from gone) then ${atTime} end
              where (select ok from fenced)
              on conflict (guild_id, discord_user_id) do update
                set left_at = greatest(guild_departures.left_at, excluded.left_at),
                  removed_at = coalesce(excluded.removed_at, guild_departures.removed_at))
            select ok from fenced`,
      );
      return row?.ok === true;
    },
  };
}

/** A member the server's presence holds (see {@link MemberListRepository.presence}). */
export interface PresenceRow {
  userId: string;
  name: string | null;
  listed: boolean;
}

/** The Members page's list, its counts and its CSV, and what the full sync tells it of who is in the server. */
export interface MemberListRepository {
  /**
   * What the data behind a server's list looks like now: the newest read of each campaign, the
   * last link event (every link made, moved or undone writes one), who was last seen in the server,
   * who of those left it (a leave deletes a row, which the newest sighting would not show), the
   * comps, the last sync (which also removes those who left). Index ends and small tables only; a
   * different answer than at the last build means the list is out of date.
   */
  version(guildId: string): Promise<string>;
  state(guildId: string): Promise<MemberListState | null>;
  /**
   * Builds the server's list again from the data of the moment (one statement), with the counts
   * of its rows that do not change with time. `version`: {@link version}, read before the build.
   */
  rebuild(guildId: string, now: Date, version: string): Promise<void>;
  /** How many people each filter holds: the stored counts, plus the declined payments counted now (grace ends with time). */
  counts(scope: MemberListScope): Promise<MemberCounts>;
  /** One page of a filter, in the given order (ties by the row's key, so pages never overlap). */
  page(scope: MemberListScope, filter: MemberFilter, sort: MemberSort, offset: number, limit: number): Promise<ListedMember[]>;
  /**
   * Members of a page of the full sync's listing (`listing`: that listing's own mark) that a
   * source knows (or that hold a role Tierlink granted): in the server now, under this name. One
   * statement per page; the full sync sends only the members new to the presence or renamed. A
   * listing's page does not write a member who left at or after `at` (the listing's start: its page
   * may predate the leave); a reconcile's (`listing` null) ends their departure.
   */
  seen(guildId: string, members: ReadonlyArray<{ userId: string; name: string | null }>, at: Date, listing?: string | null): Promise<void>;
  /**
   * Who the server's presence holds, `chunk` per statement in user id order: what the full sync
   * compares a listing with, so that it writes only the members new to it or renamed
   * (`listed`: a listing wrote the row; false: a single reconcile did).
   */
  presence(guildId: string, chunk?: number): AsyncGenerator<PresenceRow[]>;
  /**
   * After a complete listing: these members, held before it and not seen by it, have left the
   * server. A row a reconcile wrote during the listing (a member who joined meanwhile: no
   * listing's mark, seen since `listingStart`) stays. Answers how many were removed.
   */
  forget(guildId: string, discordUserIds: readonly string[], listingStart: Date): Promise<number>;
  /**
   * One member is in the server or not (a reconcile learnt it); `name` null keeps the name last
   * seen. In the server: a departure before `at` is over ({@link left}). Not in it: {@link left}.
   */
  present(guildId: string, discordUserId: string, name: string | null, at: Date, inServer: boolean): Promise<void>;
  /**
   * One member left the server at `at` (GUILD_MEMBER_REMOVE, or a reconcile found them gone), in one
   * statement: their presence goes, and the departure is noted, so that a full sync's listing that
   * began at or before `at` (its page may have been read before the leave) does not write them back
   * ({@link seen}); departures older than {@link DEPARTURE_KEPT_MS} go. Only the leave of someone
   * the presence held changes the list's {@link version}. With a `fence` (a gateway
   * event's shard lease), nothing is written unless it holds; answers whether it held.
   */
  left(guildId: string, discordUserId: string, at: Date, fence?: Fence | null): Promise<boolean>;
}
