import type { MemberState } from '../../../core/planner/types';
import type { PlannerSnapshot } from '../store/repositories/planner-snapshots';
import type { PayloadMember } from './member-payload';
import { CHARGE_STATUSES, type ChargeStatus, patreonMemberState } from './member-standing';
import { storedRead } from './patreon-source';

const KNOWN_CHARGE_STATUSES = new Set<string>(CHARGE_STATUSES);
const time = (d: Date | null | undefined): number | null => (d ? d.getTime() : null);

/**
 * What of a member state can move a role: its standing and basis, the tiers, when a grace period
 * counts from, when a paid period ends, tenure and amount (the rules), and following. The wording
 * (`detail`: "last charge Paid on …") is left out: a monthly charge changes it and no role.
 */
export function roleStateKey(state: MemberState): string {
  return JSON.stringify([
    state.standing,
    state.basis,
    [...state.tierIds].sort(),
    time(state.failedSince),
    time(state.until),
    state.graceAfterUntil,
    time(state.since),
    state.amount?.cents ?? null,
    state.isFollower,
  ]);
}

/**
 * Whether a verified delivery's member state says, for roles, exactly what the stored read says:
 * then the delivery can change no role and needs no read of Patreon (a charge on charge day). Only
 * a confirmed, readable snapshot of the same person counts; anything else (no snapshot, a stored
 * payload, an unreadable member, another user, a change of tier or standing) may change roles and
 * must be confirmed by a read.
 */
export function deliveryMatchesStored(payload: PayloadMember, stored: PlannerSnapshot & { externalUserId: string | null }): boolean {
  if (stored.readBy === 'webhook-payload' || stored.unreadable) return false;
  if (payload.userId !== null && payload.userId !== stored.externalUserId) return false;
  const bothDeclined = payload.patronStatus === 'declined_patron' && stored.patronStatus === 'declined_patron';
  const chargeStatus = (
    payload.lastChargeStatus === null || KNOWN_CHARGE_STATUSES.has(payload.lastChargeStatus) ? payload.lastChargeStatus : 'Other'
  ) as ChargeStatus;
  const fromPayload = patreonMemberState({
    campaignId: stored.campaignId,
    memberId: stored.memberId,
    patronStatus: payload.patronStatus,
    lastChargeDate: payload.lastChargeDate,
    lastChargeStatus: chargeStatus,
    isFollower: payload.isFollower,
    isFreeTrial: payload.isFreeTrial,
    isGifted: payload.isGifted,
    entitledTierIds: payload.entitledTierIds,
    lastActiveTierIds: stored.lastActiveTierIds,
    // A retried decline keeps the pledge's first decline, as the store would.
    firstDeclinedAt: bothDeclined ? stored.firstDeclinedAt : payload.patronStatus === 'declined_patron' ? payload.lastChargeDate : null,
    pledgeRelationshipStart: payload.pledgeRelationshipStart,
    entitledAmountCents: payload.entitledAmountCents,
  });
  return roleStateKey(fromPayload) === roleStateKey(patreonMemberState(storedRead(stored)));
}
