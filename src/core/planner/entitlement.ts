import { addDays, day } from './format';
import type { Entitlement, EntitlementBasis, EntitlementKind, GuildSettings, MemberState, UnreadableState } from './types';

/**
 * What one source's member state entitles to now. The source has said how it stands (its adapter
 * decided what its statuses mean); the planner adds time and the server's settings:
 *
 * - unreadable (the last read could not be understood) → nothing follows: `none` with `unreadable`
 *   set, and the planner leaves that campaign's roles exactly as they are.
 * - `entitled` → the tiers, until `until` when the source gives an end (a comp, a paid month). Past
 *   it: the server's grace days still keep the tiers when the source says so (`graceAfterUntil`: a
 *   subscription that may be renewed a little late), else the entitlement has lapsed. The boundary
 *   is exclusive: at exactly the end the roles go.
 * - `payment_failed` → the tiers kept until `failedSince` plus the server's grace days (exclusive).
 * - `lapsed`, `former`, `follower`, `none` → no tier, for the source's reason.
 * - no member state at all → nothing ({@link notAMember}).
 */
export function entitlement(member: MemberState, settings: Pick<GuildSettings, 'graceDays'>, now: Date): Entitlement {
  if (member.unreadable) {
    return made(member, 'none', `${member.detail}; roles are left as they are`, [], null, null, member.unreadable);
  }
  switch (member.standing) {
    case 'entitled':
      return entitled(member, settings.graceDays, now);
    case 'payment_failed':
      return paymentFailed(member, settings.graceDays, now);
    case 'lapsed':
    case 'former':
    case 'follower':
    case 'none':
      return made(member, member.standing, member.detail);
    default:
      return made(member, 'none', `unknown standing "${String(member.standing)}"`);
  }
}

/**
 * One entitlement, every field in one literal (the full sync works one out for every member it
 * knows: a literal is one small object, where spreading a shared base made a large one).
 */
function made(
  member: MemberState,
  kind: EntitlementKind,
  reason: string,
  tierIds: string[] = [],
  graceEndsAt: Date | null = null,
  basis: EntitlementBasis | null = null,
  unreadable: UnreadableState | null = null,
): Entitlement {
  return {
    source: member.source,
    campaignId: member.campaignId,
    tierIds,
    graceEndsAt,
    isFollower: member.isFollower,
    basis,
    unreadable,
    unconfirmed: member.unconfirmed === true,
    since: member.since,
    amount: member.amount,
    kind,
    reason,
  };
}

/** The entitlement of a campaign no source knows the member in. */
export function notAMember(campaignId: string): Entitlement {
  return {
    source: null,
    campaignId,
    kind: 'none',
    tierIds: [],
    reason: 'not a member of this campaign',
    graceEndsAt: null,
    isFollower: false,
    basis: null,
    unreadable: null,
    unconfirmed: false,
    since: null,
    amount: null,
  };
}

function entitled(member: MemberState, graceDays: number, now: Date): Entitlement {
  const { until } = member;
  if (until === null || now.getTime() < until.getTime()) {
    return made(
      member,
      'active',
      until === null ? member.detail : `${member.detail}, until ${day(until)}`,
      [...member.tierIds],
      null,
      member.basis,
    );
  }
  const graceEndsAt = member.graceAfterUntil && graceDays > 0 ? addDays(until, graceDays) : null;
  if (graceEndsAt && now.getTime() < graceEndsAt.getTime()) {
    return made(
      member,
      'grace',
      `${member.detail}, paid until ${day(until)}; roles kept until ${day(graceEndsAt)} (${graceDays}-day grace period)`,
      [...member.tierIds],
      graceEndsAt,
    );
  }
  return made(member, 'lapsed', `${member.detail}, ended on ${day(graceEndsAt ?? until)}`, [], graceEndsAt);
}

function paymentFailed(member: MemberState, graceDays: number, now: Date): Entitlement {
  const anchor = member.failedSince;
  const what = member.detail;
  const when = anchor ? ` on ${day(anchor)}` : '';
  if (!anchor) {
    return made(member, 'lapsed', `${what}, with no charge date to count a grace period from`);
  }
  if (graceDays <= 0) {
    return made(member, 'lapsed', `${what}${when}; this server has no grace period`);
  }
  const graceEndsAt = addDays(anchor, graceDays);
  if (now.getTime() >= graceEndsAt.getTime()) {
    return made(member, 'lapsed', `${what}${when}; the ${graceDays}-day grace period ended on ${day(graceEndsAt)}`, [], graceEndsAt);
  }
  const kept = member.tierIds;
  return made(
    member,
    'grace',
    kept.length > 0
      ? `${what}${when}; roles kept until ${day(graceEndsAt)} (${graceDays}-day grace period)`
      : // First seen already failing: no tier was ever listed, so the grace period has nothing to keep.
        `${what}${when}; no tier is listed until a payment goes through, so there are no roles to keep`,
    [...kept],
    graceEndsAt,
  );
}
