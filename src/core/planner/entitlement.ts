import { addDays, day } from './format';
import type { Entitlement, GuildSettings, MemberState } from './types';

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
  const base = {
    source: member.source,
    campaignId: member.campaignId,
    tierIds: [] as string[],
    graceEndsAt: null,
    isFollower: member.isFollower,
    basis: null,
    unreadable: null,
    unconfirmed: member.unconfirmed === true,
    since: member.since,
    amount: member.amount,
  };
  if (member.unreadable) {
    return { ...base, kind: 'none', unreadable: member.unreadable, reason: `${member.detail}; roles are left as they are` };
  }
  switch (member.standing) {
    case 'entitled':
      return entitled(base, member, settings.graceDays, now);
    case 'payment_failed':
      return paymentFailed(base, member, settings.graceDays, now);
    case 'lapsed':
    case 'former':
    case 'follower':
    case 'none':
      return { ...base, kind: member.standing, reason: member.detail };
    default:
      return { ...base, kind: 'none', reason: `unknown standing "${String(member.standing)}"` };
  }
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

type Base = Omit<Entitlement, 'kind' | 'reason'>;

function entitled(base: Base, member: MemberState, graceDays: number, now: Date): Entitlement {
  const { until } = member;
  if (until === null || now.getTime() < until.getTime()) {
    return {
      ...base,
      kind: 'active',
      basis: member.basis,
      tierIds: [...member.tierIds],
      reason: until === null ? member.detail : `${member.detail}, until ${day(until)}`,
    };
  }
  const graceEndsAt = member.graceAfterUntil && graceDays > 0 ? addDays(until, graceDays) : null;
  if (graceEndsAt && now.getTime() < graceEndsAt.getTime()) {
    return {
      ...base,
      kind: 'grace',
      tierIds: [...member.tierIds],
      graceEndsAt,
      reason: `${member.detail}, paid until ${day(until)}; roles kept until ${day(graceEndsAt)} (${graceDays}-day grace period)`,
    };
  }
  return { ...base, kind: 'lapsed', graceEndsAt, reason: `${member.detail}, ended on ${day(graceEndsAt ?? until)}` };
}

function paymentFailed(base: Base, member: MemberState, graceDays: number, now: Date): Entitlement {
  const anchor = member.failedSince;
  const what = member.detail;
  const when = anchor ? ` on ${day(anchor)}` : '';
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
  const kept = member.tierIds;
  return {
    ...base,
    kind: 'grace',
    tierIds: [...kept],
    graceEndsAt,
    reason:
      kept.length > 0
        ? `${what}${when}; roles kept until ${day(graceEndsAt)} (${graceDays}-day grace period)`
        : // First seen already failing: no tier was ever listed, so the grace period has nothing to keep.
          `${what}${when}; no tier is listed until a payment goes through, so there are no roles to keep`,
  };
}
