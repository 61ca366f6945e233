import { entitlement } from './entitlement';
import type { ChargeStatus, MemberState, PatronStatus } from './types';

/** What one read of a member says about its charges. */
export interface ChargeRead {
  patronStatus: PatronStatus;
  lastChargeStatus: ChargeStatus;
  /** The last *attempted* charge: a retry moves it. */
  lastChargeDate: Date | null;
  /** The start of the current pledge chain; a new pledge starts a new count. */
  pledgeRelationshipStart: Date | null;
}

/** What the store kept from earlier reads. */
export interface KeptDecline {
  firstDeclinedAt: Date | null;
  pledgeRelationshipStart: Date | null;
}

const sameInstant = (a: Date | null, b: Date | null): boolean => a === null || b === null || a.getTime() === b.getTime();

/** A read that counts as declined: the member is `declined_patron`, or its last charge was declined (retries under way). */
export function isDeclinedRead(read: Pick<ChargeRead, 'patronStatus' | 'lastChargeStatus'>): boolean {
  return read.patronStatus === 'declined_patron' || read.lastChargeStatus === 'Declined';
}

/**
 * The first declined charge seen for the current pledge, to keep with the snapshot. The service's
 * `last_charge_date` is the last *attempted* charge and moves with every retry (a decline retried
 * on days 3 and 6 would restart the grace period twice), so the grace period counts from this
 * instead. A read that is declined keeps the date already kept for the same pledge, or starts one
 * at its own charge date (`seenAt` when it has none); a read that is not declined (paid, ended,
 * never pledged) clears it, so the next decline counts afresh.
 */
export function firstDeclineOf(kept: KeptDecline | null, read: ChargeRead, seenAt: Date): Date | null {
  if (!isDeclinedRead(read)) return null;
  if (kept?.firstDeclinedAt && sameInstant(kept.pledgeRelationshipStart, read.pledgeRelationshipStart)) return kept.firstDeclinedAt;
  return read.lastChargeDate ?? seenAt;
}

/**
 * When the next grace period among these members ends after `now`: the time a scheduled check
 * should reconcile them, so roles go when grace ends rather than at the next nightly sync. Null
 * when no member is inside a grace period.
 */
export function nextGraceDeadline(members: readonly MemberState[], graceDays: number, now: Date): Date | null {
  let next: Date | null = null;
  for (const member of members) {
    const ent = entitlement(member.campaignId, member, { graceDays }, now);
    if (ent.kind !== 'grace' || !ent.graceEndsAt) continue;
    if (next === null || ent.graceEndsAt.getTime() < next.getTime()) next = ent.graceEndsAt;
  }
  return next;
}
