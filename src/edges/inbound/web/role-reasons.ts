import { type T, formatDate } from '../../../core/i18n';
import type { Entitlement, RoleNote } from '../../../core/planner';
import { noteReasonText } from '../../../core/role-note-text';

/**
 * Why a role is given, on a page: the planner's own words in English (the source), the tier or
 * setting in another language (the planner's sentences are English data, kept in the audit log).
 */
export function grantReasonText(
  grant: { reason: string; kind: string; campaignId: string | null; tierId: string | null; sources: readonly string[] },
  tierTitle: (campaignId: string, tierId: string) => string,
  t: T,
): string {
  if (t.locale === 'en') return grant.reason;
  if (grant.kind === 'tier' && grant.campaignId && grant.tierId) {
    const tier = tierTitle(grant.campaignId, grant.tierId);
    return t(grant.sources.length > 0 && grant.sources.every((s) => s === 'comp') ? 'grant.comp' : 'grant.tier', { tier });
  }
  if (grant.kind === 'tenure' || grant.kind === 'amount') return t('grant.rule');
  return t('grant.setting');
}

/** A member's standing in a campaign, in one phrase, on a page (dates in the language's long form). */
export function standingText(t: T, e: Entitlement): string {
  switch (e.kind) {
    case 'active':
      return t('standing.active');
    case 'grace':
      return e.graceEndsAt ? t('standing.grace', { date: formatDate(t.locale, e.graceEndsAt) }) : t('standing.lapsed');
    case 'lapsed':
      return t('standing.lapsed');
    case 'former':
      return t('standing.former');
    case 'follower':
      return t('standing.follower');
    case 'none':
      return t('standing.none');
  }
}

/** Why a role is not given, on a page: the planner's sentence in English, said from its fields otherwise. */
export function noteReasonOnPage(note: Pick<RoleNote, 'reason' | 'why'>, t: T): string {
  return noteReasonText(t, note, (e) => standingText(t, e));
}
