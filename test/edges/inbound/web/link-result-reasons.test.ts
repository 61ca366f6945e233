import { type Locale, translator } from '../../../../src/core/i18n';
import { planUser } from '../../../../src/core/planner';
import { linkResultView } from '../../../../src/edges/inbound/web/link-result-view';
import { CAMPAIGN, GUILD, NOW, ROLE, TIER, USER, guild, ledger, member } from '../../../core/planner/fixtures';
import { englishIn } from '../../../support/english-leaks';

/**
 * The link page's removed roles say why in the page's language: a patron who links now as Silver
 * loses Gold, which Tierlink gave for the Gold tier. English keeps the planner's sentence.
 */

function page(locale: Locale) {
  const planned = planUser({
    guild: guild(),
    userId: USER,
    members: [member({ entitledTierIds: [TIER.silver] })],
    currentRoleIds: new Set([ROLE.gold]),
    ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold]),
    now: NOW,
  });
  const outcome = {
    ...planned,
    guildId: GUILD,
    userId: USER,
    inGuild: true,
    pending: false,
    // As applied: every planned change was made.
    result: { applied: planned.plan.changes, failed: [], blocked: [] },
  };
  return linkResultView(
    {
      kind: 'linked',
      patronName: 'Noor',
      patreonUserId: '1000002',
      guildId: GUILD,
      discordAccount: { userId: USER, username: 'noor', globalName: null },
      outcome,
      campaignNames: ['Fan Club'],
      pledgeUrl: null,
      movedFromAnotherAccount: false,
    },
    'Fan Club',
    (_campaignId, tierId) => (tierId === TIER.silver ? 'Silver' : tierId === TIER.gold ? 'Gold' : tierId),
    translator(locale),
  );
}

test('English: the removed role with the planner’s sentence', () => {
  expect(page('en').removed).toEqual([{ name: 'Gold', reason: 'no longer entitled to Gold (now: Silver)' }]);
});

test.each(['de', 'es-ES', 'pt-BR'] as const)('%s: the removed role says why in the page’s language', (locale) => {
  const t = translator(locale);
  const removed = page(locale).removed;
  expect(removed).toEqual([{ name: 'Gold', reason: t('reason.tierChanged', { tier: 'Gold', tiers: 'Silver' }) }]);
  expect(englishIn(removed[0]!.reason)).toEqual([]);
});
