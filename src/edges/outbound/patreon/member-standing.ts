import type { EntitlementBasis, MemberState, UnreadableState } from '../../../core/planner/types';

/**
 * Patreon's words for a membership and what they mean for roles: the rules the planner once held,
 * now the Patreon adapter's own (the planner speaks of entitlements: src/core/planner/types.ts).
 * The full table, with its sources, is docs/patreon-api-notes.md §3.2, §3.5 and §11.
 */

/** `patron_status`; null: never pledged. */
export type PatronStatus = 'active_patron' | 'declined_patron' | 'former_patron' | null;

/**
 * `last_charge_status`: the spec's seven values and the three Patreon added (`Refunded by Patreon`,
 * `Partially Refunded`, `Free Trial`; docs/patreon-api-notes.md §3.2). Only `Paid` is a successful
 * charge; how each one counts is {@link CHARGE_RULES}.
 */
export type ChargeStatus =
  | 'Paid'
  | 'Declined'
  | 'Deleted'
  | 'Pending'
  | 'Refunded'
  | 'Fraud'
  | 'Other'
  | 'Refunded by Patreon'
  | 'Partially Refunded'
  | 'Free Trial'
  | null;

/**
 * How each `last_charge_status` counts (docs/patreon-api-notes.md §3.2, §3.5):
 * - `good`: the charge went through, is on its way, or needs none yet (`Paid`, `Pending`,
 *   `Free Trial`). `Partially Refunded` is good too: part of the money was returned, the rest
 *   still paid for the period, and whether it still covers the tier is Patreon's call, which it
 *   makes in `currently_entitled_tiers`. A partial refund never removes roles by itself.
 * - `declined`: the charge failed and may be retried (`Declined`, `Other`, none at all): a declined
 *   member keeps the tiers for the grace period.
 * - `ended`: the pledge was deleted (`Deleted`): no grace, but a period already paid still counts
 *   while Patreon lists its tier.
 * - `voided`: the money came back or was never real (`Refunded`, `Refunded by Patreon`, `Fraud`):
 *   no grace and no paid period. `Fraud` ends access even for an active member.
 */
export type ChargeRule = 'good' | 'declined' | 'ended' | 'voided';

export const CHARGE_RULES: Readonly<Record<NonNullable<ChargeStatus>, ChargeRule>> = Object.freeze({
  Paid: 'good',
  Pending: 'good',
  'Free Trial': 'good',
  'Partially Refunded': 'good',
  Declined: 'declined',
  Other: 'declined',
  Deleted: 'ended',
  Refunded: 'voided',
  'Refunded by Patreon': 'voided',
  Fraud: 'voided',
});

/** Every known `last_charge_status` (null aside); a value outside it makes a member unreadable. */
export const CHARGE_STATUSES = Object.freeze(Object.keys(CHARGE_RULES) as Array<NonNullable<ChargeStatus>>);

/** Every known `patron_status` (null aside: never pledged). */
export const PATRON_STATUSES: readonly NonNullable<PatronStatus>[] = Object.freeze(['active_patron', 'declined_patron', 'former_patron']);

export function chargeRule(status: ChargeStatus): ChargeRule {
  return status === null ? 'declined' : (CHARGE_RULES[status] ?? 'declined');
}

/** A member of a campaign as Tierlink keeps Patreon's read of it (the snapshot table's columns). */
export interface PatreonMemberRead {
  campaignId: string;
  /** The member id, where known; and when Patreon was read (or the payload arrived). */
  memberId?: string | null;
  readAt?: Date | null;
  patronStatus: PatronStatus;
  lastChargeDate: Date | null;
  lastChargeStatus: ChargeStatus;
  /** The spec's `is_follower` (Patreon deprecated it: false there). */
  isFollower: boolean;
  /** `is_free_trial`: entitled to the listed tiers during the trial. Absent: false. */
  isFreeTrial?: boolean;
  /** `is_gifted`: a gift membership, entitled to the listed tiers. Absent: false. */
  isGifted?: boolean;
  /** `currently_entitled_tiers` as last read. */
  entitledTierIds: readonly string[];
  /**
   * Tiers last seen while the member was `active_patron`. Patreon may list no entitled tiers for a
   * declined member, yet the grace period keeps what they had.
   */
  lastActiveTierIds: readonly string[];
  /**
   * The first declined charge seen for the current pledge ({@link firstDeclineOf}): the grace period
   * counts from it, not from `last_charge_date`, which moves with every retry. Null when not declined,
   * or (a snapshot stored before the store kept it) unknown: `last_charge_date` is the anchor then.
   */
  firstDeclinedAt: Date | null;
  /** `pledge_relationship_start`: the start of the pledge chain (tenure counts from it). */
  pledgeRelationshipStart?: Date | null;
  /** `currently_entitled_amount_cents`, in the campaign's currency. */
  entitledAmountCents?: number | null;
  unreadable?: UnreadableState | null;
  /** The read is a delivery's payload, not a read of Patreon (see `MemberState.unconfirmed`). */
  unconfirmed?: boolean;
}

const BASIS_REASON: Readonly<Record<'pledge' | 'free_trial' | 'gift' | 'free_membership' | 'paid_period', string>> = {
  pledge: 'active patron',
  free_trial: 'in a free trial',
  gift: 'gift membership',
  free_membership: 'member without a pledge (free membership)',
  paid_period: 'pledge ended; the period already paid for has not',
};

const day = (date: Date): string => date.toISOString().slice(0, 10);
const on = (date: Date | null): string => (date ? ` on ${day(date)}` : '');

/** Where the grace period counts from: the first decline of this pledge, else (not known) the last charge. */
export function graceAnchor(read: Pick<PatreonMemberRead, 'firstDeclinedAt' | 'lastChargeDate'>): Date | null {
  return read.firstDeclinedAt ?? read.lastChargeDate;
}

/**
 * How Patreon stands with a member, in the planner's words.
 *
 * - unreadable → nothing follows (the planner leaves the campaign's roles as they are).
 * - a `Fraud` charge → lapsed at once, whatever the status.
 * - `active_patron` → entitled to the tiers listed in `currently_entitled_tiers`. Patreon is the
 *   judge of an active pledge; a pending or even declined charge on an active member only shows in
 *   the reason. A free trial or a gift is named as such.
 * - `declined_patron` → a failed payment: the tiers listed now, or last seen while active, kept from
 *   the first declined charge of the pledge for the server's grace days; lapsed at once after a
 *   refund or a deleted pledge.
 * - `former_patron` → entitled to the tiers Patreon still lists: a cancelled pledge keeps its paid
 *   period ("entitlements will stay valid until the end of the payment period", §3.5), unless the
 *   money came back; former once the list is empty.
 * - `null` (never pledged) → entitled to the tiers listed for a gift, a free trial or a free
 *   membership, unless a charge came back; else a follower (`is_follower`) or nothing.
 */
export function patreonMemberState(read: PatreonMemberRead): MemberState {
  const base = {
    source: 'patreon',
    campaignId: read.campaignId,
    memberId: read.memberId ?? null,
    readAt: read.readAt ?? null,
    basis: null,
    tierIds: [] as string[],
    failedSince: null,
    until: null,
    graceAfterUntil: false,
    since: read.pledgeRelationshipStart ?? null,
    amount:
      read.entitledAmountCents === null || read.entitledAmountCents === undefined
        ? null
        : { cents: read.entitledAmountCents, currency: null },
    isFollower: read.isFollower,
    ...(read.unconfirmed ? { unconfirmed: true } : {}),
  } satisfies Partial<MemberState>;
  if (read.unreadable) {
    const { attribute, reason } = read.unreadable;
    return {
      ...base,
      standing: 'none',
      unreadable: read.unreadable,
      detail: `Patreon's answer for this member could not be read (${attribute} ${reason})`,
    };
  }
  const rule = chargeRule(read.lastChargeStatus);
  const listed = read.entitledTierIds;
  const entitled = (basis: keyof typeof BASIS_REASON, extra = ''): MemberState => ({
    ...base,
    standing: 'entitled',
    basis: basis satisfies EntitlementBasis,
    tierIds: [...listed],
    detail: `${BASIS_REASON[basis]}${listed.length === 0 ? ' without a tier' : ''}${extra}`,
  });

  if (read.lastChargeStatus === 'Fraud') {
    return { ...base, standing: 'lapsed', detail: `last charge marked as fraud${on(read.lastChargeDate)}: no access and no grace period` };
  }
  switch (read.patronStatus) {
    case 'active_patron':
      return entitled(read.isGifted ? 'gift' : isTrial(read) ? 'free_trial' : 'pledge', describeCharge(read));
    case 'declined_patron': {
      const anchor = graceAnchor(read);
      const what =
        read.lastChargeStatus && read.lastChargeStatus !== 'Declined' ? `last charge ${read.lastChargeStatus}` : 'payment declined';
      if (rule === 'voided' || rule === 'ended') {
        return {
          ...base,
          standing: 'lapsed',
          detail: `${what}${on(anchor)}: no grace period after a ${read.lastChargeStatus ?? ''} charge`,
        };
      }
      return {
        ...base,
        standing: 'payment_failed',
        failedSince: anchor,
        tierIds: [...(listed.length > 0 ? listed : read.lastActiveTierIds)],
        detail: what,
      };
    }
    case 'former_patron':
      if (listed.length > 0 && rule !== 'voided') return entitled('paid_period');
      return {
        ...base,
        standing: 'former',
        detail: rule === 'voided' ? `former patron: last charge ${read.lastChargeStatus ?? ''}` : 'former patron: the pledge has ended',
      };
    case null:
      if (listed.length > 0 && rule !== 'voided')
        return entitled(read.isGifted ? 'gift' : isTrial(read) ? 'free_trial' : 'free_membership');
      return read.isFollower
        ? { ...base, standing: 'follower', detail: 'follows the campaign without pledging' }
        : { ...base, standing: 'none', detail: 'has never pledged' };
    default:
      return { ...base, standing: 'none', detail: `unknown patron status "${String(read.patronStatus)}"` };
  }
}

function isTrial(read: PatreonMemberRead): boolean {
  return read.isFreeTrial === true || read.lastChargeStatus === 'Free Trial';
}

function describeCharge(read: PatreonMemberRead): string {
  switch (read.lastChargeStatus) {
    case null:
    case 'Paid':
    case 'Free Trial':
      return '';
    case 'Pending':
      return ' (payment pending)';
    default:
      return ` (last charge ${read.lastChargeStatus}${on(read.lastChargeDate)})`;
  }
}

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
 * The first declined charge seen for the current pledge, to keep with the snapshot. Patreon's
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
