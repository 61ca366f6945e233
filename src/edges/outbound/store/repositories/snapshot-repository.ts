import { and, desc, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import { queryRows, textArray } from '../database';
import { hash52, hash52Hex } from '../../../../core/hash52';
import { type ChargeStatus, type KeptDecline, type PatronStatus, firstDeclineOf, isDeclinedRead } from '../../patreon/member-standing';
import type { Db } from '../database';
import { type UnreadableMark, memberSnapshots } from '../schema';
import { type PlannerSnapshot, readPlannerSnapshots } from './planner-snapshots';

/**
 * Member snapshots. Three values are ours, not the service's, and merge across reads:
 * `last_active_tier_ids` (the tiers seen while active, kept through a decline; only a read of the
 * service sets it, never a webhook payload, which may be replayed),
 * `first_declined_at` (the first declined charge of the current pledge, by `firstDeclineOf`), and
 * `unreadable` (set by a read that could not be understood, cleared by the next one that could).
 */
export interface SnapshotRepository {
  /** Stores a read taken at `now`; a stored read taken later is kept instead (and returned). */
  upsert(snapshot: SnapshotInput, now: Date): Promise<SnapshotRow>;
  /**
   * A page of members in one statement (the full sync). `stored`: whether a member may already
   * be stored (the full sync knows from its digest); the kept decline is read only for those.
   */
  upsertMany(snapshots: readonly SnapshotInput[], now: Date, stored?: (s: SnapshotInput) => boolean): Promise<void>;
  /**
   * The digest of every stored member of a campaign, `chunk` members per statement (in member id
   * order), each chunk as one string: PGlite answers a row per member some 8 µs each, one string
   * of 20,000 in a few milliseconds. Null digests (rows to write again) come as empty strings.
   */
  digests(source: string, campaignId: string, chunk?: number): AsyncGenerator<Array<[memberId: string, readHash: string]>>;
  /** Deletes these members of a campaign, if not written since `before` (a webhook's newer read stays). */
  deleteMembers(source: string, campaignId: string, memberIds: readonly string[], before: Date): Promise<number>;
  /**
   * Marks members whose read could not be understood: a stored member keeps its last readable
   * state (the mark freezes its roles), one never stored is kept as "unreadable" only. Answers
   * the members newly marked, or marked for another attribute or reason than before, so each is
   * logged once while it stays unreadable.
   */
  markUnreadable(members: readonly UnreadableInput[], now: Date): Promise<UnreadableInput[]>;
  /** Members of these campaigns whose last read could not be understood (oldest mark first), at most `limit`. */
  unreadable(campaignIds: readonly string[], limit?: number): Promise<{ total: number; members: UnreadableSnapshot[] }>;
  delete(source: string, campaignId: string, memberId: string): Promise<void>;
  get(source: string, campaignId: string, memberId: string): Promise<SnapshotRow | null>;
  /** The stored names of these members of a source's campaigns, keyed `campaignId:memberId` (those with a name). */
  namesOf(source: string, members: ReadonlyArray<{ campaignId: string; memberId: string }>): Promise<Map<string, string>>;
  /** The newest snapshot per campaign of one person on a source (a renewed membership gets a new member id). */
  forExternalUser(source: string, externalUserId: string): Promise<SnapshotRow[]>;
  /** The newest snapshot per campaign of each of these people on a source, what the planner reads only (a page of the full sync). */
  forExternalUsers(source: string, externalUserIds: readonly string[]): Promise<Map<string, PlannerSnapshot[]>>;
}
/**
 * A member as last read from an entitlement source, as stored. `lastActiveTierIds`,
 * `firstDeclinedAt` and `unreadable` are ours, merged across reads (see the repository above).
 */
export interface SnapshotRow {
  /** The entitlement source that read it (`patreon`). */
  source: string;
  campaignId: string;
  memberId: string;
  /** The person on the source (Patreon's user id): what a link names. */
  externalUserId: string | null;
  patronStatus: 'active_patron' | 'declined_patron' | 'former_patron' | null;
  isFollower: boolean;
  lastChargeDate: Date | null;
  lastChargeStatus: string | null;
  entitledTierIds: string[];
  /** Tiers last seen while `active_patron`: what a declined member keeps through the grace period. */
  lastActiveTierIds: string[];
  /** Superseded by `firstDeclinedAt`; no longer written or read, kept so that migrations stay additive. */
  declinedSeenAt: Date | null;
  /** The first declined charge of the current pledge: the grace period counts from it. */
  firstDeclinedAt: Date | null;
  isFreeTrial: boolean;
  isGifted: boolean;
  /** Set when the last read could not be understood; the planner then leaves the member's roles as they are. */
  unreadable: UnreadableMark | null;
  pledgeRelationshipStart: Date | null;
  entitledAmountCents: number | null;
  /** The user's `hide_pledges` as last read; null: no read included the user yet. */
  hidesPledges: boolean | null;
  /** The member's `full_name` as last read: the dashboard searches members by it. */
  fullName: string | null;
  /** Which read wrote it: a link, a webhook's re-read, a webhook's payload (unconfirmed), the full sync. */
  readBy: 'link' | 'webhook' | 'webhook-payload' | 'sync';
  fetchedAt: Date;
  /** A digest of the read the planner sees (`readDigest`): a full sync that reads the same again writes nothing. */
  readHash: string | null;
}

/**
 * A member as a source that reads members read it (Patreon's attributes). `source` is the source's
 * name (`patreon`), `externalUserId` the person on it (what a link names).
 */
export interface SnapshotInput {
  source: string;
  campaignId: string;
  memberId: string;
  externalUserId: string | null;
  patronStatus: PatronStatus;
  isFollower: boolean;
  /** Patreon's `is_free_trial`; absent: false. */
  isFreeTrial?: boolean;
  /** Patreon's `is_gifted`; absent: false. */
  isGifted?: boolean;
  lastChargeDate: Date | null;
  lastChargeStatus: string | null;
  entitledTierIds: string[];
  pledgeRelationshipStart: Date | null;
  entitledAmountCents: number | null;
  /** The member's name on the service; absent or null keeps the stored one. */
  fullName?: string | null;
  /** The user's `hide_pledges`; absent: the read did not say, the stored value stays. */
  hidesPledges?: boolean | null;
  readBy: SnapshotRow['readBy'];
}

/** A member whose read could not be understood (see `UnreadableMember` of the service client). */
export interface UnreadableInput {
  source: string;
  campaignId: string;
  memberId: string;
  externalUserId: string | null;
  attribute: string;
  reason: string;
  readBy: SnapshotRow['readBy'];
}

/** A stored unreadable member, for `/doctor`. */
export interface UnreadableSnapshot {
  source: string;
  campaignId: string;
  memberId: string;
  externalUserId: string | null;
  mark: UnreadableMark;
}

const key = (source: string, campaignId: string, memberId: string): string => `${source}\u0000${campaignId}\u0000${memberId}`;

/**
 * The digest of a read, over every value the planner and the store take from it (not its source
 * or time): equal digests mean writing the read again would change nothing the planner sees.
 * Stored as 13 hexadecimal digits.
 */
export function readDigest(s: SnapshotInput): string {
  return hash52Hex(digestText(s));
}

/**
 * {@link readDigest} as the number its digits spell (`parseInt(readDigest(s), 16)`, exact below
 * 2⁵³): what the full sync compares for every member it reads, without a string per member.
 */
export function readDigestKey(s: SnapshotInput): number {
  return hash52(digestText(s));
}

function digestText(s: SnapshotInput): string {
  return [
    s.memberId,
    s.externalUserId ?? '',
    s.patronStatus ?? '',
    s.isFollower ? 1 : 0,
    s.isFreeTrial ? 1 : 0,
    s.isGifted ? 1 : 0,
    s.lastChargeDate?.getTime() ?? '',
    s.lastChargeStatus ?? '',
    s.entitledTierIds.join(','),
    s.pledgeRelationshipStart?.getTime() ?? '',
    s.entitledAmountCents ?? '',
    s.fullName ?? '',
    // Only when set, so the digests of reads before this attribute was read stay the same.
    ...(s.hidesPledges ? ['hides pledges'] : []),
  ].join('\u0001');
}

export function createSnapshotRepository(db: Db): SnapshotRepository {
  /** What the store kept of the members' declines, read only for members read as declined (few). */
  async function keptDeclines(snapshots: readonly SnapshotInput[]): Promise<Map<string, KeptDecline>> {
    const out = new Map<string, KeptDecline>();
    const declined = snapshots.filter((s) =>
      isDeclinedRead({ patronStatus: s.patronStatus, lastChargeStatus: s.lastChargeStatus as ChargeStatus }),
    );
    if (declined.length === 0) return out;
    const keys = declined.map((s) => ({ s: s.source, c: s.campaignId, m: s.memberId }));
    const rows = await queryRows<{
      source: string;
      campaign_id: string;
      member_id: string;
      first_declined_at: string | Date | null;
      pledge_relationship_start: string | Date | null;
    }>(
      db,
      sql`select s.source, s.campaign_id, s.member_id, s.first_declined_at, s.pledge_relationship_start
          from member_snapshots s join jsonb_to_recordset(${JSON.stringify(keys)}::jsonb) as k(s text, c text, m text)
            on s.source = k.s and s.campaign_id = k.c and s.member_id = k.m`,
    );
    const date = (v: string | Date | null): Date | null => (v === null ? null : new Date(v));
    for (const r of rows) {
      out.set(key(r.source, r.campaign_id, r.member_id), {
        firstDeclinedAt: date(r.first_declined_at),
        pledgeRelationshipStart: date(r.pledge_relationship_start),
      });
    }
    return out;
  }

  /**
   * One statement for one member or a page of 1,000, sent as a single JSON parameter of arrays
   * (one per row, no keys): PGlite spends about 25 ns per byte it is sent, and a page as 14,000 bind
   * parameters cost some 50 ms of CPU to build and as much to bind. The first decline is decided here
   * with `firstDeclineOf` against what was kept (read first, for the declined members that may be
   * stored); the merge keeps the last active tiers, clears an unreadable mark, stores the read's
   * digest, and a read taken before the stored one does not overwrite it (two instances may finish
   * out of order). Nothing is returned: a row per member back costs PGlite as much again.
   */
  async function write(snapshots: readonly SnapshotInput[], now: Date, stored?: (s: SnapshotInput) => boolean): Promise<void> {
    if (snapshots.length === 0) return;
    const kept = await keptDeclines(stored ? snapshots.filter(stored) : snapshots);
    const iso = (d: Date | null) => (d === null ? null : d.toISOString());
    const rows = snapshots.map((s) => [
      s.memberId,
      s.externalUserId,
      s.patronStatus,
      s.isFollower,
      s.isFreeTrial ?? false,
      s.isGifted ?? false,
      iso(
        firstDeclineOf(
          kept.get(key(s.source, s.campaignId, s.memberId)) ?? null,
          {
            patronStatus: s.patronStatus,
            lastChargeStatus: s.lastChargeStatus as ChargeStatus,
            lastChargeDate: s.lastChargeDate,
            pledgeRelationshipStart: s.pledgeRelationshipStart,
          },
          now,
        ),
      ),
      iso(s.lastChargeDate),
      s.lastChargeStatus,
      s.entitledTierIds,
      iso(s.pledgeRelationshipStart),
      s.entitledAmountCents,
      s.readBy,
      s.campaignId,
      s.readBy === 'webhook-payload' ? null : readDigest(s),
      s.fullName ?? null,
      s.source,
      s.hidesPledges ?? null,
    ]);
    const at = now.toISOString();
    await db.execute(sql`
      insert into member_snapshots as s (
        source, campaign_id, member_id, external_user_id, patron_status, is_follower, is_free_trial, is_gifted, last_charge_date,
        last_charge_status, entitled_tier_ids, last_active_tier_ids, first_declined_at, pledge_relationship_start,
        entitled_amount_cents, full_name, unreadable, read_by, fetched_at, read_hash, hides_pledges
      )
      select r->>16, r->>13, r->>0, r->>1, r->>2, (r->>3)::boolean, (r->>4)::boolean, (r->>5)::boolean, (r->>7)::timestamptz, r->>8, r->9,
        case when r->>2 in ('active_patron', 'declined_patron') and r->>12 <> 'webhook-payload' then r->9 else '[]'::jsonb end,
        (r->>6)::timestamptz, (r->>10)::timestamptz, (r->>11)::integer, r->>15, null, r->>12, ${at}::timestamptz, r->>14,
        (r->>17)::boolean
      from jsonb_array_elements(${JSON.stringify(rows)}::jsonb) as r
      on conflict (source, campaign_id, member_id) do update set
        external_user_id = excluded.external_user_id,
        patron_status = excluded.patron_status,
        is_follower = excluded.is_follower,
        is_free_trial = excluded.is_free_trial,
        is_gifted = excluded.is_gifted,
        last_charge_date = excluded.last_charge_date,
        last_charge_status = excluded.last_charge_status,
        entitled_tier_ids = excluded.entitled_tier_ids,
        last_active_tier_ids = case when excluded.patron_status = 'active_patron' and excluded.read_by <> 'webhook-payload'
          then excluded.entitled_tier_ids else s.last_active_tier_ids end,
        first_declined_at = excluded.first_declined_at,
        pledge_relationship_start = excluded.pledge_relationship_start,
        entitled_amount_cents = excluded.entitled_amount_cents,
        full_name = coalesce(excluded.full_name, s.full_name),
        hides_pledges = coalesce(excluded.hides_pledges, s.hides_pledges),
        unreadable = null,
        read_by = excluded.read_by,
        fetched_at = excluded.fetched_at,
        read_hash = excluded.read_hash
      where excluded.fetched_at >= s.fetched_at`);
  }

  return {
    async upsert(snapshot: SnapshotInput, now: Date): Promise<SnapshotRow> {
      await write([snapshot], now);
      return (await this.get(snapshot.source, snapshot.campaignId, snapshot.memberId))!;
    },

    async upsertMany(snapshots: readonly SnapshotInput[], now: Date, stored?: (s: SnapshotInput) => boolean): Promise<void> {
      await write(snapshots, now, stored);
    },

    async *digests(source: string, campaignId: string, chunk = 20_000): AsyncGenerator<Array<[memberId: string, readHash: string]>> {
      let after = '';
      for (;;) {
        const [row] = await queryRows<{ list: string | null; last: string | null }>(
          db,
          sql`select string_agg(member_id || ' ' || coalesce(read_hash, ''), ' ' order by member_id) as list, max(member_id) as last
              from (select member_id, read_hash from member_snapshots
                    where source = ${source} and campaign_id = ${campaignId} and member_id > ${after} order by member_id limit ${chunk}) as page`,
        );
        if (!row?.list || row.last === null) return;
        const words = row.list.split(' ');
        const out: Array<[string, string]> = [];
        for (let i = 0; i + 1 < words.length; i += 2) out.push([words[i]!, words[i + 1]!]);
        yield out;
        if (out.length < chunk) return;
        after = row.last;
      }
    },

    async deleteMembers(source: string, campaignId: string, memberIds: readonly string[], before: Date): Promise<number> {
      if (memberIds.length === 0) return 0;
      const rows = await queryRows<{ n: number }>(
        db,
        sql`with gone as (delete from member_snapshots
              where source = ${source} and campaign_id = ${campaignId} and member_id = any(${textArray(memberIds)}::text[]) and fetched_at < ${before.toISOString()}::timestamptz
              returning 1)
            select count(*)::int as n from gone`,
      );
      return rows[0]?.n ?? 0;
    },

    async markUnreadable(members: readonly UnreadableInput[], now: Date): Promise<UnreadableInput[]> {
      if (members.length === 0) return [];
      const at = now.toISOString();
      const rows = members.map((m) => ({
        s: m.source,
        c: m.campaignId,
        m: m.memberId,
        u: m.externalUserId,
        k: { attribute: m.attribute.slice(0, 200), reason: m.reason.slice(0, 200), since: at } satisfies UnreadableMark,
        rb: m.readBy,
      }));
      const before = await queryRows<{ source: string; campaign_id: string; member_id: string; unreadable: UnreadableMark | null }>(
        db,
        sql`select s.source, s.campaign_id, s.member_id, s.unreadable
            from member_snapshots s join jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as k(s text, c text, m text)
              on s.source = k.s and s.campaign_id = k.c and s.member_id = k.m`,
      );
      await db.execute(sql`
        insert into member_snapshots as s (source, campaign_id, member_id, external_user_id, unreadable, read_by, fetched_at)
        select r.s, r.c, r.m, r.u, r.k, r.rb, ${at}::timestamptz
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(s text, c text, m text, u text, k jsonb, rb text)
        on conflict (source, campaign_id, member_id) do update set
          external_user_id = coalesce(excluded.external_user_id, s.external_user_id),
          read_hash = null,
          unreadable = case
            when s.unreadable is not null and s.unreadable->>'attribute' = excluded.unreadable->>'attribute'
              and s.unreadable->>'reason' = excluded.unreadable->>'reason'
            then s.unreadable else excluded.unreadable end,
          fetched_at = excluded.fetched_at
        where excluded.fetched_at >= s.fetched_at`);
      const was = new Map(before.map((r) => [key(r.source, r.campaign_id, r.member_id), r.unreadable]));
      return members.filter((m) => {
        const mark = was.get(key(m.source, m.campaignId, m.memberId));
        return !mark || mark.attribute !== m.attribute.slice(0, 200) || mark.reason !== m.reason.slice(0, 200);
      });
    },

    async unreadable(campaignIds: readonly string[], limit = 20): Promise<{ total: number; members: UnreadableSnapshot[] }> {
      if (campaignIds.length === 0) return { total: 0, members: [] };
      const where = and(inArray(memberSnapshots.campaignId, [...campaignIds]), isNotNull(memberSnapshots.unreadable));
      const [total, rows] = await Promise.all([
        db.$count(memberSnapshots, where),
        db
          .select({
            source: memberSnapshots.source,
            campaignId: memberSnapshots.campaignId,
            memberId: memberSnapshots.memberId,
            externalUserId: memberSnapshots.externalUserId,
            mark: memberSnapshots.unreadable,
          })
          .from(memberSnapshots)
          .where(where)
          .orderBy(sql`${memberSnapshots.unreadable}->>'since'`, memberSnapshots.memberId)
          .limit(limit),
      ]);
      return { total, members: rows.map((r) => ({ ...r, mark: r.mark! })) };
    },

    async delete(source: string, campaignId: string, memberId: string): Promise<void> {
      await db
        .delete(memberSnapshots)
        .where(and(eq(memberSnapshots.source, source), eq(memberSnapshots.campaignId, campaignId), eq(memberSnapshots.memberId, memberId)));
    },

    async namesOf(source: string, members: ReadonlyArray<{ campaignId: string; memberId: string }>): Promise<Map<string, string>> {
      const names = new Map<string, string>();
      if (members.length === 0) return names;
      const rows = await db
        .select({ campaignId: memberSnapshots.campaignId, memberId: memberSnapshots.memberId, fullName: memberSnapshots.fullName })
        .from(memberSnapshots)
        .where(
          and(
            eq(memberSnapshots.source, source),
            inArray(memberSnapshots.campaignId, [...new Set(members.map((m) => m.campaignId))]),
            inArray(memberSnapshots.memberId, [...new Set(members.map((m) => m.memberId))]),
            isNotNull(memberSnapshots.fullName),
          ),
        );
      // The query matches every campaign with every member id asked for: keep the pairs asked for.
      const asked = new Set(members.map((m) => `${m.campaignId}:${m.memberId}`));
      for (const row of rows) {
        const key = `${row.campaignId}:${row.memberId}`;
        if (row.fullName && asked.has(key)) names.set(key, row.fullName);
      }
      return names;
    },

    async get(source: string, campaignId: string, memberId: string): Promise<SnapshotRow | null> {
      const [row] = await db
        .select()
        .from(memberSnapshots)
        .where(and(eq(memberSnapshots.source, source), eq(memberSnapshots.campaignId, campaignId), eq(memberSnapshots.memberId, memberId)));
      return row ?? null;
    },

    async forExternalUser(source: string, externalUserId: string): Promise<SnapshotRow[]> {
      const rows = await db
        .select()
        .from(memberSnapshots)
        .where(and(eq(memberSnapshots.source, source), eq(memberSnapshots.externalUserId, externalUserId)))
        .orderBy(desc(memberSnapshots.fetchedAt));
      return newestPerCampaign(rows);
    },

    async forExternalUsers(source: string, externalUserIds: readonly string[]): Promise<Map<string, PlannerSnapshot[]>> {
      return readPlannerSnapshots(db, source, externalUserIds);
    },
  };
}

function newestPerCampaign(rows: SnapshotRow[]): SnapshotRow[] {
  const seen = new Set<string>();
  return rows.filter((r) => (seen.has(r.campaignId) ? false : (seen.add(r.campaignId), true)));
}
