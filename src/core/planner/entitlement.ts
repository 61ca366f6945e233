import { addDays, day } from './format';
import type { ChargeStatus, Entitlement, GuildSettings, MemberState } from './types';

/**
 * Charges after which no grace applies: money came back or never was real. Everything else that a
 * declined member can carry (Declined, Pending, Other, null) gets the grace period.
 */
const NO_GRACE_CHARGES: ReadonlySet<ChargeStatus> = new Set(['Refunded', 'Fraud', 'Deleted']);

/**
 * What a member of one campaign is entitled to now.
 *
 * - `active_patron` → the tiers the service lists in `currently_entitled_tiers`. The service is the
 *   judge of an active pledge; a pending or even declined charge on an active member only shows in
 *   the reason.
 * - `declined_patron` → the tiers last seen (listed now, or last seen while active) until
 *   `last_charge_date` (or, lacking it, the moment we first saw the decline) plus the guild's grace
 *   days. The boundary is exclusive: at exactly anchor + grace the roles go.
 * - `former_patron` → nothing (the former-patron role, when configured).
 * - `null` → nothing (the follower role, when configured and `is_follower`).
 * - no member at all → nothing.
 */
export function entitlement(
  campaignId: string,
  member: MemberState | null,
  settings: Pick<GuildSettings, 'graceDays'>,
  now: Date,
): Entitlement {
  const base = { campaignId, tierIds: [] as string[], graceEndsAt: null, isFollower: member?.isFollower ?? false };
  if (!member) return { ...base, kind: 'none', reason: 'not a member of this campaign' };

  switch (member.patronStatus) {
    case 'active_patron': {
      const charge = describeCharge(member);
      if (member.entitledTierIds.length === 0) {
        return { ...base, kind: 'active', reason: `active patron without a tier${charge}` };
      }
      return { ...base, kind: 'active', tierIds: [...member.entitledTierIds], reason: `active patron${charge}` };
    }
    case 'declined_patron':
      return declined(base, member, settings.graceDays, now);
    case 'former_patron':
      return { ...base, kind: 'former', reason: 'former patron: the pledge has ended' };
    case null:
      return member.isFollower
        ? { ...base, kind: 'follower', reason: 'follows the campaign without pledging' }
        : { ...base, kind: 'none', reason: 'has never pledged' };
    default:
      return { ...base, kind: 'none', reason: `unknown patron status "${String(member.patronStatus)}"` };
  }
}

function declined(
  base: Pick<Entitlement, 'campaignId' | 'tierIds' | 'graceEndsAt' | 'isFollower'>,
  member: MemberState,
  graceDays: number,
  now: Date,
): Entitlement {
  const anchor = member.lastChargeDate ?? member.declinedSeenAt;
  const what =
    member.lastChargeStatus && member.lastChargeStatus !== 'Declined' ? `last charge ${member.lastChargeStatus}` : 'payment declined';
  const when = anchor ? ` on ${day(anchor)}` : '';
  if (NO_GRACE_CHARGES.has(member.lastChargeStatus)) {
    return { ...base, kind: 'lapsed', reason: `${what}${when}: no grace period after a ${member.lastChargeStatus} charge` };
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
      return '';
    case 'Pending':
      return ' (payment pending)';
    default:
      return ` (last charge ${member.lastChargeStatus}${member.lastChargeDate ? ` on ${day(member.lastChargeDate)}` : ''})`;
  }
}
