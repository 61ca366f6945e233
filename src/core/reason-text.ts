import { type T, formatDate } from './i18n';
import type { HeldWhy } from './sync-report';
import type { ReasonCode, SettingRoleKind, StandingFacts } from './planner/reasons';

/**
 * Why a role changed, in the reader's language: the planner's own sentence in English (the source,
 * as the ledger and the audit log keep it) and wherever no code was recorded (a row written before
 * codes were, a change made up elsewhere); said from its code otherwise (src/core/planner/reasons.ts).
 */
export function reasonText(t: T, said: { reason: string; why?: ReasonCode | null }): string {
  if (t.locale === 'en' || !said.why) return said.reason;
  return fromCode(t, said.why);
}

/** A code said in the reader's language (English included: the catalogue's, not the recorded sentence). */
export function fromCode(t: T, why: ReasonCode): string {
  const day = (iso: string) => formatDate(t.locale, new Date(`${iso}T00:00:00Z`));
  const standing = (s: StandingFacts) => standingWords(t, s, day);
  const because = (text: string, s: StandingFacts | null) => (s ? t('reason.because', { reason: text, standing: standing(s) }) : text);
  switch (why.code) {
    case 'tier':
      return t('reason.tier', { tier: why.tier, standing: standing(why.standing) });
    case 'tenure':
      return t('reason.tenure', { count: why.months, since: day(why.since), min: why.min });
    case 'amount':
      return t('reason.amount', { amount: money(t, why.cents, why.currency), min: money(t, why.min, why.currency) });
    case 'formerRole':
      return t('reason.formerRole', { standing: standing(why.standing) });
    case 'followerRole':
      return t('reason.followerRole');
    case 'freeMemberRole':
      return t('reason.freeMemberRole');
    case 'joinerRole':
      return t('reason.joinerRole');
    case 'also':
      return why.reasons.map((r) => fromCode(t, r)).reduce((first, other) => t('reason.also', { reason: first, other }));
    case 'adopted':
      return t('reason.adopted', { reason: fromCode(t, why.as) });
    case 'unlinked':
      return t(`reason.unlinked.${why.how}`);
    case 'roleDeleted':
      return t('reason.roleDeleted', { reason: fromCode(t, why.why) });
    case 'alreadyRemoved':
      return t('reason.alreadyRemoved', { reason: fromCode(t, why.why) });
    case 'strict':
      return why.unlinked
        ? t('reason.strictUnlinked', { role: why.role, reason: t(`reason.unlinked.${why.unlinked}`) })
        : t('reason.strict', { role: why.role });
    case 'ruleGone':
      return t(`reason.ruleGone.${why.kind}`);
    case 'tenureEnded':
      return because(t('reason.tenureEnded', { count: why.months }), why.standing);
    case 'amountEnded':
      return because(t('reason.amountEnded', { amount: money(t, why.cents, null) }), why.standing);
    case 'campaignGone':
      return t('reason.campaignGone');
    case 'notMember':
      return t('reason.notMember', { tier: why.tier });
    case 'tierGone':
      return t('reason.tierGone', { tier: why.tier });
    case 'highestOnly':
      return t('reason.highestOnly');
    case 'tierNoRole':
      return t('reason.tierNoRole', { tier: why.tier });
    case 'tierChanged':
      return why.now.length > 0
        ? t('reason.tierChanged', { tier: why.tier, tiers: new Intl.ListFormat(t.locale, { type: 'conjunction' }).format(why.now) })
        : t('reason.tierChangedNone', { tier: why.tier });
    case 'tierEnded':
      return t('reason.tierEnded', { tier: why.tier, standing: standing(why.standing) });
    case 'settingRoleChanged':
      return t(`reason.settingRoleChanged.${why.role}`);
    case 'givesWay':
      return t(`reason.givesWay.${why.role}`);
    case 'settingRoleEnded':
      return because(t(`reason.settingRoleEnded.${why.role satisfies SettingRoleKind}`), why.standing);
  }
}

/** A member's standing, in a few words: a comp is named, a grace period's last day given. */
function standingWords(t: T, s: StandingFacts, day: (iso: string) => string): string {
  switch (s.kind) {
    case 'active':
      return s.basis === 'comp' ? t('reason.standing.comp') : t('standing.active');
    case 'grace':
      return s.graceEndsAt ? t('standing.grace', { date: day(s.graceEndsAt) }) : t('standing.lapsed');
    case 'lapsed':
      return s.graceEndsAt ? t('reason.standing.lapsedOn', { date: day(s.graceEndsAt) }) : t('standing.lapsed');
    case 'former':
      return t('standing.former');
    case 'follower':
      return t('standing.follower');
    case 'none':
      return t('standing.none');
  }
}

/** An amount a month as the source states it: in its currency where it says one, a bare number otherwise (the campaign's own). */
function money(t: T, cents: number, currency: string | null): string {
  const options: Intl.NumberFormatOptions = currency
    ? { style: 'currency', currency }
    : { minimumFractionDigits: 2, maximumFractionDigits: 2 };
  try {
    return new Intl.NumberFormat(t.locale, options).format(cents / 100);
  } catch {
    // A code Intl does not know: the number, then the code as the source gave it.
    return `${new Intl.NumberFormat(t.locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(cents / 100)} ${currency}`;
  }
}

/**
 * Why a full sync held its removals back, in the reader's language: English as the run recorded it
 * (and wherever no facts were recorded), from its facts otherwise. `advice: false` leaves out how to
 * apply them anyway (a page offers a button instead).
 */
export function heldReasonText(t: T, held: { reason: string; why?: HeldWhy | null }, options: { advice?: boolean } = {}): string {
  const { why } = held;
  if (t.locale === 'en' || !why) return held.reason;
  if (why.code === 'unreadable') return t('held.unreadable');
  const percent = (value: number) => new Intl.NumberFormat(t.locale, { style: 'percent', maximumFractionDigits: 1 }).format(value / 100);
  const params = { count: why.removals, share: percent(why.share), grants: why.grants, percent: percent(why.percent), min: why.min };
  return options.advice === false ? t('reason.held.threshold', params) : t('held.threshold', params);
}
