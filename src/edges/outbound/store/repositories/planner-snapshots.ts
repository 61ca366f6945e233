/**
 * What the planner reads of stored member snapshots: the columns, the batched read of a page of
 * the full sync (behind `forPatreonUsers` of src/edges/outbound/store/repositories/snapshot-repository.ts),
 * and the `MemberState` the planner takes.
 */
import { sql } from 'drizzle-orm';
import { type Db, queryRows, textArray } from '../database';
import { CHARGE_STATUSES } from '../../../../core/planner/entitlement';
import type { ChargeStatus, MemberState } from '../../../../core/planner/types';
import type { UnreadableMark, memberSnapshots } from '../schema';

type SnapshotRow = typeof memberSnapshots.$inferSelect;

const KNOWN_CHARGE_STATUSES = new Set<string>(CHARGE_STATUSES);

/** What the planner reads of a stored snapshot (and the guild pass needs to tell a departed member). */
export type PlannerSnapshot = Pick<
  SnapshotRow,
  | 'campaignId'
  | 'memberId'
  | 'patronStatus'
  | 'lastChargeDate'
  | 'lastChargeStatus'
  | 'isFollower'
  | 'isFreeTrial'
  | 'isGifted'
  | 'entitledTierIds'
  | 'lastActiveTierIds'
  | 'firstDeclinedAt'
  | 'unreadable'
  | 'fetchedAt'
  | 'source'
>;

export function toMemberState(row: PlannerSnapshot): MemberState {
  const unreadable = row.unreadable ? { attribute: row.unreadable.attribute, reason: row.unreadable.reason } : null;
  return {
    campaignId: row.campaignId,
    patronStatus: row.patronStatus,
    lastChargeDate: row.lastChargeDate,
    // A status the service added after this release, stored from a delivery body: counted as `Other`.
    lastChargeStatus: (row.lastChargeStatus === null || KNOWN_CHARGE_STATUSES.has(row.lastChargeStatus)
      ? row.lastChargeStatus
      : 'Other') as ChargeStatus,
    isFollower: row.isFollower,
    isFreeTrial: row.isFreeTrial,
    isGifted: row.isGifted,
    entitledTierIds: row.entitledTierIds,
    lastActiveTierIds: row.lastActiveTierIds,
    firstDeclinedAt: row.firstDeclinedAt,
    ...(unreadable ? { unreadable } : {}),
    ...(row.source === 'webhook-payload' ? { unconfirmed: true } : {}),
  };
}

/**
 * The newest snapshot per campaign of each of these service users (a page of the full sync),
 * what the planner reads only, in one statement answering one JSON value: PGlite answers a row
 * of twenty columns some 10 µs each, a JSON text of a thousand in about a millisecond.
 */
export async function readPlannerSnapshots(db: Db, patreonUserIds: readonly string[]): Promise<Map<string, PlannerSnapshot[]>> {
  const out = new Map<string, PlannerSnapshot[]>();
  if (patreonUserIds.length === 0) return out;
  const [row] = await queryRows<{ j: string }>(
    db,
    sql`select coalesce(json_agg(json_build_array(patreon_user_id, campaign_id, member_id, patron_status, last_charge_date,
            last_charge_status, is_follower, is_free_trial, is_gifted, entitled_tier_ids, last_active_tier_ids, first_declined_at,
            unreadable, fetched_at, source) order by fetched_at desc), '[]')::text as j
        from member_snapshots where patreon_user_id = any(${textArray(patreonUserIds)}::text[])`,
  );
  const date = (v: string | null) => (v === null ? null : new Date(v));
  type Raw = [
    string,
    string,
    string,
    SnapshotRow['patronStatus'],
    string | null,
    string | null,
    boolean,
    boolean,
    boolean,
    string[],
    string[],
    string | null,
    UnreadableMark | null,
    string,
    SnapshotRow['source'],
  ];
  for (const r of JSON.parse(row?.j ?? '[]') as Raw[]) {
    const list = out.get(r[0]) ?? [];
    if (list.some((x) => x.campaignId === r[1])) continue;
    list.push({
      campaignId: r[1],
      memberId: r[2],
      patronStatus: r[3],
      lastChargeDate: date(r[4]),
      lastChargeStatus: r[5],
      isFollower: r[6],
      isFreeTrial: r[7],
      isGifted: r[8],
      entitledTierIds: r[9],
      lastActiveTierIds: r[10],
      firstDeclinedAt: date(r[11]),
      unreadable: r[12],
      fetchedAt: new Date(r[13]),
      source: r[14],
    });
    out.set(r[0], list);
  }
  return out;
}
