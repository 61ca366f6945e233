import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { ChargeStatus, MemberState, PatronStatus } from '../../mapping/types';
import type { Db } from '../database';
import { memberSnapshots } from '../schema';

export type SnapshotRepository = ReturnType<typeof createSnapshotRepository>;
export type SnapshotRow = typeof memberSnapshots.$inferSelect;

export interface SnapshotInput {
  campaignId: string;
  memberId: string;
  patreonUserId: string | null;
  patronStatus: PatronStatus;
  isFollower: boolean;
  lastChargeDate: Date | null;
  lastChargeStatus: string | null;
  entitledTierIds: string[];
  pledgeRelationshipStart: Date | null;
  entitledAmountCents: number | null;
  source: SnapshotRow['source'];
}

const CHARGE_STATUSES = new Set(['Paid', 'Declined', 'Deleted', 'Pending', 'Refunded', 'Fraud', 'Other']);

export function toMemberState(row: SnapshotRow): MemberState {
  return {
    campaignId: row.campaignId,
    patronStatus: row.patronStatus,
    lastChargeDate: row.lastChargeDate,
    lastChargeStatus: (row.lastChargeStatus && CHARGE_STATUSES.has(row.lastChargeStatus) ? row.lastChargeStatus : row.lastChargeStatus === null ? null : 'Other') as ChargeStatus,
    isFollower: row.isFollower,
    entitledTierIds: row.entitledTierIds,
    lastActiveTierIds: row.lastActiveTierIds,
    declinedSeenAt: row.declinedSeenAt,
  };
}

/**
 * Member snapshots. Two values are ours, not the service's, and merge across reads:
 * `last_active_tier_ids` (the tiers seen while active, kept through a decline) and
 * `declined_seen_at` (when a decline was first seen, kept until the member is no longer declined).
 */
export function createSnapshotRepository(db: Db) {
  const values = (s: SnapshotInput, now: Date) => ({
    ...s,
    lastActiveTierIds: s.patronStatus === 'active_patron' || s.patronStatus === 'declined_patron' ? s.entitledTierIds : [],
    declinedSeenAt: s.patronStatus === 'declined_patron' ? now : null,
    fetchedAt: now,
  });
  const onConflict = {
    target: [memberSnapshots.campaignId, memberSnapshots.memberId],
    set: {
      patreonUserId: sql`excluded.patreon_user_id`,
      patronStatus: sql`excluded.patron_status`,
      isFollower: sql`excluded.is_follower`,
      lastChargeDate: sql`excluded.last_charge_date`,
      lastChargeStatus: sql`excluded.last_charge_status`,
      entitledTierIds: sql`excluded.entitled_tier_ids`,
      lastActiveTierIds: sql`case when excluded.patron_status = 'active_patron' then excluded.entitled_tier_ids else ${memberSnapshots.lastActiveTierIds} end`,
      declinedSeenAt: sql`case when excluded.patron_status = 'declined_patron' then coalesce(${memberSnapshots.declinedSeenAt}, excluded.declined_seen_at) else null end`,
      pledgeRelationshipStart: sql`excluded.pledge_relationship_start`,
      entitledAmountCents: sql`excluded.entitled_amount_cents`,
      source: sql`excluded.source`,
      fetchedAt: sql`excluded.fetched_at`,
    },
    // Two instances re-reading one member can finish out of order: the later read wins.
    setWhere: sql`excluded.fetched_at >= ${memberSnapshots.fetchedAt}`,
  };

  return {
    /** Stores a read taken at `now`; a stored read taken later is kept instead (and returned). */
    async upsert(snapshot: SnapshotInput, now: Date): Promise<SnapshotRow> {
      const [row] = await db.insert(memberSnapshots).values(values(snapshot, now)).onConflictDoUpdate(onConflict).returning();
      return row ?? (await this.get(snapshot.campaignId, snapshot.memberId))!;
    },

    /** One statement per batch: the full sync writes a page of 1,000 members at once. */
    async upsertMany(snapshots: readonly SnapshotInput[], now: Date): Promise<void> {
      if (snapshots.length === 0) return;
      await db.insert(memberSnapshots).values(snapshots.map((s) => values(s, now))).onConflictDoUpdate(onConflict);
    },

    async delete(campaignId: string, memberId: string): Promise<void> {
      await db.delete(memberSnapshots).where(and(eq(memberSnapshots.campaignId, campaignId), eq(memberSnapshots.memberId, memberId)));
    },

    async get(campaignId: string, memberId: string): Promise<SnapshotRow | null> {
      const [row] = await db
        .select()
        .from(memberSnapshots)
        .where(and(eq(memberSnapshots.campaignId, campaignId), eq(memberSnapshots.memberId, memberId)));
      return row ?? null;
    },

    /** The newest snapshot per campaign of one service user (a renewed membership gets a new member id). */
    async forPatreonUser(patreonUserId: string): Promise<SnapshotRow[]> {
      const rows = await db
        .select()
        .from(memberSnapshots)
        .where(eq(memberSnapshots.patreonUserId, patreonUserId))
        .orderBy(desc(memberSnapshots.fetchedAt));
      return newestPerCampaign(rows);
    },

    async forPatreonUsers(patreonUserIds: readonly string[]): Promise<Map<string, SnapshotRow[]>> {
      const out = new Map<string, SnapshotRow[]>();
      if (patreonUserIds.length === 0) return out;
      const rows = await db
        .select()
        .from(memberSnapshots)
        .where(inArray(memberSnapshots.patreonUserId, [...patreonUserIds]))
        .orderBy(desc(memberSnapshots.fetchedAt));
      for (const row of rows) {
        const list = out.get(row.patreonUserId!) ?? [];
        if (!list.some((r) => r.campaignId === row.campaignId)) list.push(row);
        out.set(row.patreonUserId!, list);
      }
      return out;
    },
  };
}

function newestPerCampaign(rows: SnapshotRow[]): SnapshotRow[] {
  const seen = new Set<string>();
  return rows.filter((r) => (seen.has(r.campaignId) ? false : (seen.add(r.campaignId), true)));
}
