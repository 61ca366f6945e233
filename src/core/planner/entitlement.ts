import { addDays, day } from './format';
import type { ChargeStatus, Entitlement, EntitlementBasis, GuildSettings, MemberState, PatronStatus } from './types';

/**
 * How each `last_charge_status` counts (docs/patreon-api-notes.md §3.2, §3.5):
 * - `good`: the charge went through, is on its way, or needs none yet (`Paid`, `Pending`,
 *   `Free Trial`). `Partially Refunded` is good too: part of the money was returned, the rest
 *   still paid for the period, and whether it still covers the tier is the service's call, which
 *   it makes in `currently_entitled_tiers`. A partial refund never removes roles by itself.
 * - `declined`: the charge failed and may be retried (`Declined`, `Other`, none at all): a declined
 *   member keeps the tiers for the grace period.
 * - `ended`: the pledge was deleted (`Deleted`): no grace, but a period already paid still counts
 *   while the service lists its tier.
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

const BASIS_REASON: Readonly<Record<EntitlementBasis, string>> = {
  pledge: 'active patron',
  free_trial: 'in a free trial',
  gift: 'gift membership',
  free_membership: 'member without a pledge (free membership)',
  paid_period: 'pledge ended; the period already paid for has not',
};

/**
 * What a member of one campaign is entitled to now.
 *
 * - unreadable (the last read could not be understood) → nothing follows: `none` with `unreadable`
 *   set, and the planner leaves that campaign's roles exactly as they are.
 * - a `Fraud` charge → nothing, at once, whatever the status.
 * - `active_patron` → the tiers the service lists in `currently_entitled_tiers`. The service is the
 *   judge of an active pledge; a pending or even declined charge on an active member only shows in
 *   the reason. A free trial or a gift is named as such.
 * - `declined_patron` → the tiers listed now, or last seen while active, until the first declined
 *   charge of the current pledge (`firstDeclinedAt`, or `last_charge_date` when that is not known)
 *   plus the guild's grace days; none after a refund or a deleted pledge.
 *   The boundary is exclusive: at exactly anchor + grace the roles go.
 * - `former_patron` → the tiers the service still lists: a cancelled pledge keeps its paid period
 *   ("entitlements will stay valid until the end of the payment period", §3.5), unless the money
 *   came back; none once the list is empty (the former-patron role, when configured).
 * - `null` (never pledged) → the tiers listed for a gift, a free trial or a free membership
 *   (whether a free tier grants roles is the guild's `freeTiersGrantRoles`), unless a charge came
 *   back; with none listed, nothing (the follower role, when configured and `is_follower`).
 * - no member at all → nothing.
 */
export function entitlement(
  campaignId: string,
  member: MemberState | null,
  settings: Pick<GuildSettings, 'graceDays'>,
  now: Date,
): Entitlement {
  const base = {
    campaignId,
    tierIds: [] as string[],
    graceEndsAt: null,
    isFollower: member?.isFollower ?? false,
    basis: null,
    unreadable: null,
  };
  if (!member) return { ...base, kind: 'none', reason: 'not a member of this campaign' };
  if (member.unreadable) {
    const { attribute, reason } = member.unreadable;
    return {
      ...base,
      kind: 'none',
      unreadable: member.unreadable,
      reason: `Patreon's answer for this member could not be read (${attribute} ${reason}); roles are left as they are`,
    };
  }
  const rule = chargeRule(member.lastChargeStatus);
  const listed = member.entitledTierIds;
  const active = (basis: EntitlementBasis, extra = ''): Entitlement => ({
    ...base,
    kind: 'active',
    basis,
    tierIds: [...listed],
    reason: `${BASIS_REASON[basis]}${listed.length === 0 ? ' without a tier' : ''}${extra}`,
  });

  if (member.lastChargeStatus === 'Fraud') {
    return { ...base, kind: 'lapsed', reason: `last charge marked as fraud${on(member.lastChargeDate)}: no access and no grace period` };
  }
  switch (member.patronStatus) {
    case 'active_patron':
      return active(member.isGifted ? 'gift' : isTrial(member) ? 'free_trial' : 'pledge', describeCharge(member));
    case 'declined_patron':
      return declined(base, member, settings.graceDays, now);
    case 'former_patron':
      if (listed.length > 0 && rule !== 'voided') return active('paid_period');
      return {
        ...base,
        kind: 'former',
        reason: rule === 'voided' ? `former patron: last charge ${member.lastChargeStatus ?? ''}` : 'former patron: the pledge has ended',
      };
    case null:
      if (listed.length > 0 && rule !== 'voided')
        return active(member.isGifted ? 'gift' : isTrial(member) ? 'free_trial' : 'free_membership');
      return member.isFollower
        ? { ...base, kind: 'follower', reason: 'follows the campaign without pledging' }
        : { ...base, kind: 'none', reason: 'has never pledged' };
    default:
      return { ...base, kind: 'none', reason: `unknown patron status "${String(member.patronStatus)}"` };
  }
}

function isTrial(member: MemberState): boolean {
  return member.isFreeTrial === true || member.lastChargeStatus === 'Free Trial';
}

function on(date: Date | null): string {
  return date ? ` on ${day(date)}` : '';
}

/** Where the grace period counts from: the first decline of this pledge, else (not known) the last charge. */
export function graceAnchor(member: MemberState): Date | null {
  return member.firstDeclinedAt ?? member.lastChargeDate;
}

function declined(base: Omit<Entitlement, 'kind' | 'reason'>, member: MemberState, graceDays: number, now: Date): Entitlement {
  const anchor = graceAnchor(member);
  const rule = chargeRule(member.lastChargeStatus);
  const what =
    member.lastChargeStatus && member.lastChargeStatus !== 'Declined' ? `last charge ${member.lastChargeStatus}` : 'payment declined';
  const when = on(anchor);
  if (rule === 'voided' || rule === 'ended') {
    return { ...base, kind: 'lapsed', reason: `${what}${when}: no grace period after a ${member.lastChargeStatus ?? ''} charge` };
  }
  if (!anchor) {
    return { ...base, kind: 'lapsed', reason: `${what}, with no charge date to count a grace period from` };
  }
  if (graceDays <= 0) {
    return { ...base, kind: 'lapsed', reason: `${what}${when}; this server has no grace period` };
  }
  const graceEndsAt = addDays(anchor, graceDays);
  if (now.getTime() >= graceEndsAt.getTime()) {
    return {
      ...base,
      kind: 'lapsed',
      graceEndsAt,
      reason: `${what}${when}; the ${graceDays}-day grace period ended on ${day(graceEndsAt)}`,
    };
  }
  const kept = member.entitledTierIds.length > 0 ? member.entitledTierIds : member.lastActiveTierIds;
  return {
    ...base,
    kind: 'grace',
    tierIds: [...kept],
    graceEndsAt,
    reason:
      kept.length > 0
        ? `${what}${when}; roles kept until ${day(graceEndsAt)} (${graceDays}-day grace period)`
        : // First seen already declined: no tier was ever listed, so the grace period has nothing to keep.
          `${what}${when}; Patreon lists no tier until a payment goes through, so there are no roles to keep`,
  };
}

function describeCharge(member: MemberState): string {
  switch (member.lastChargeStatus) {
    case null:
    case 'Paid':
    case 'Free Trial':
      return '';
    case 'Pending':
      return ' (payment pending)';
    default:
      return ` (last charge ${member.lastChargeStatus}${on(member.lastChargeDate)})`;
  }
}
