import { day } from './format';
import type { Entitlement, EntitlementBasis, EntitlementKind } from './types';

/**
 * The planner's reasons as codes and their parameters, beside its English sentences: a reader of
 * another language is told why a role changed from these (src/core/reason-text.ts), an English
 * reader gets the sentence as recorded. Recorded with the sentence (the ledger, the audit log), so
 * every value is plain JSON: days are ISO days (`2026-11-09`), amounts in cents.
 */

/** How a member stands in a campaign, as a reason says it (the planner's English says the source's own words). */
export interface StandingFacts {
  kind: EntitlementKind;
  /** `active`: what it rests on (a comp is said as such); null otherwise. */
  basis: EntitlementBasis | null;
  /** `grace`: the day the roles go; `lapsed`: the day the grace period ended, where one ran. */
  graceEndsAt: string | null;
}

/** A setting's role: the former-patron, follower or joiner role. */
export type SettingRoleKind = 'former' | 'follower' | 'joiner';

/** Why a member has no link (any more), as the triggers say it. */
export const UNLINKED_REASONS = {
  unlink: 'unlinked with /unlink',
  relinked: 'the membership was linked to another Discord account',
  notLinked: 'no linked membership',
} as const;
export type UnlinkedCode = keyof typeof UNLINKED_REASONS;
/** The sentence every removal of an unlinked member gives (one of {@link UNLINKED_REASONS}). */
export type UnlinkedReason = (typeof UNLINKED_REASONS)[UnlinkedCode];

export type ReasonCode =
  // Why a role is given.
  | { code: 'tier'; tier: string; standing: StandingFacts }
  | { code: 'tenure'; months: number; since: string; min: number }
  | { code: 'amount'; cents: number; currency: string | null; min: number }
  | { code: 'formerRole'; standing: StandingFacts }
  | { code: 'followerRole' }
  | { code: 'freeMemberRole' }
  | { code: 'joinerRole' }
  /** One role for several reasons, the first one first ("…; also …"). */
  | { code: 'also'; reasons: ReasonCode[] }
  | { code: 'adopted'; as: ReasonCode }
  // Why a role goes.
  | { code: 'unlinked'; how: UnlinkedCode }
  | { code: 'roleDeleted'; why: ReasonCode }
  | { code: 'alreadyRemoved'; why: ReasonCode }
  | { code: 'strict'; role: string; unlinked: UnlinkedCode | null }
  | { code: 'ruleGone'; kind: 'tenure' | 'amount' }
  | { code: 'tenureEnded'; months: number; standing: StandingFacts | null }
  | { code: 'amountEnded'; cents: number; standing: StandingFacts | null }
  | { code: 'campaignGone' }
  | { code: 'notMember'; tier: string }
  | { code: 'tierGone'; tier: string }
  | { code: 'highestOnly' }
  | { code: 'tierNoRole'; tier: string }
  | { code: 'tierChanged'; tier: string; now: string[] }
  | { code: 'tierEnded'; tier: string; standing: StandingFacts }
  | { code: 'settingRoleChanged'; role: SettingRoleKind }
  | { code: 'givesWay'; role: SettingRoleKind }
  | { code: 'settingRoleEnded'; role: SettingRoleKind; standing: StandingFacts | null };

/** An entitlement's standing as a reason keeps it. */
export function standingFacts(ent: Entitlement): StandingFacts {
  return { kind: ent.kind, basis: ent.basis, graceEndsAt: ent.graceEndsAt ? day(ent.graceEndsAt) : null };
}

/** The code of an unlinked member's removals, from its sentence. */
export function unlinkedCode(reason: UnlinkedReason): UnlinkedCode {
  return (Object.keys(UNLINKED_REASONS) as UnlinkedCode[]).find((code) => UNLINKED_REASONS[code] === reason)!;
}

/** A grant's reasons as one code: the first alone, or all of them (`grantReason`'s "; also "). */
export function grantWhy(grant: { why: ReasonCode; alsoWhy: readonly ReasonCode[] }): ReasonCode {
  return grant.alsoWhy.length === 0 ? grant.why : { code: 'also', reasons: [grant.why, ...grant.alsoWhy] };
}

/** A reason's sentence and its code. */
export interface Said {
  reason: string;
  why: ReasonCode;
}

/**
 * The reason of a plan made without its words (`desiredRoles`' `words: false`, `decideUser`): one
 * shared value that nothing reads, since a decision's types leave the reasons out.
 */
export const UNSAID: Said = Object.freeze({ reason: '', why: Object.freeze({ code: 'joinerRole' } as const) });
