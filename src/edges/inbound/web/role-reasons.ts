import type { T } from '../../../core/i18n';

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
