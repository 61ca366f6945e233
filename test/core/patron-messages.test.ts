import { GRACE_ENDED_TELL_MS, composePaymentDeclined, declinedPayments, endedGraces } from '../../src/core/patron-messages';
import { DAY } from '../../src/shared/clock';
import { CAMPAIGN, GUILD, NOW, OTHER_CAMPAIGN, TIER, guild, state } from './planner/fixtures';

/** Which declined payments a direct message tells, and when (src/core/patron-messages.ts). */

const declined = (daysAgo: number, overrides: Parameters<typeof state>[0] = {}) =>
  state({
    source: 'patreon',
    memberId: 'm-1',
    standing: 'payment_failed',
    basis: null,
    tierIds: [TIER.gold],
    failedSince: new Date(NOW.getTime() - daysAgo * DAY),
    detail: 'payment declined',
    ...overrides,
  });

test('a decline inside the grace period is told with its end; past it, or without a grace period, it is not', () => {
  const g = guild();
  expect(declinedPayments(g, [declined(2)], NOW, 'patreon')).toEqual([
    {
      campaignId: CAMPAIGN,
      memberId: 'm-1',
      failedSince: new Date(NOW.getTime() - 2 * DAY),
      graceEndsAt: new Date(NOW.getTime() + 5 * DAY),
    },
  ]);
  expect(declinedPayments(g, [declined(7)], NOW, 'patreon')).toEqual([]);
  expect(declinedPayments(guild({ settings: { graceDays: 0 } }), [declined(0)], NOW, 'patreon')).toEqual([]);
});

test('no message for a state of another source, another campaign, no kept tier, a payload not confirmed or unreadable', () => {
  const g = guild();
  expect(declinedPayments(g, [declined(1, { source: 'kofi' })], NOW, 'patreon')).toEqual([]);
  expect(declinedPayments(g, [declined(1, { campaignId: OTHER_CAMPAIGN })], NOW, 'patreon')).toEqual([]);
  expect(declinedPayments(g, [declined(1, { tierIds: [] })], NOW, 'patreon')).toEqual([]);
  expect(declinedPayments(g, [declined(1, { unconfirmed: true })], NOW, 'patreon')).toEqual([]);
  expect(declinedPayments(g, [declined(1, { unreadable: { attribute: 'x', reason: 'y' } })], NOW, 'patreon')).toEqual([]);
  expect(declinedPayments(g, [declined(1, { guildId: '100000000000000002' })], NOW, 'patreon')).toEqual([]);
  expect(declinedPayments(g, [declined(1, { guildId: GUILD })], NOW, 'patreon')).toHaveLength(1);
});

test('the end of a grace period is told from its end and for 3 days after, never before', () => {
  const g = guild();
  expect(endedGraces(g, [declined(6)], NOW, 'patreon')).toEqual([]);
  expect(endedGraces(g, [declined(7)], NOW, 'patreon')).toHaveLength(1);
  const lateBy = (ms: number) => declined(0, { failedSince: new Date(NOW.getTime() - 7 * DAY - ms) });
  expect(endedGraces(g, [lateBy(GRACE_ENDED_TELL_MS)], NOW, 'patreon')).toHaveLength(1);
  expect(endedGraces(g, [lateBy(GRACE_ENDED_TELL_MS + 1)], NOW, 'patreon')).toEqual([]);
});

test('the message gives the grace end as a Discord date, and where to update the payment', () => {
  const text = composePaymentDeclined({ serverName: 'Casey’s Café', campaignName: 'Casey', graceEndsAt: new Date('2026-11-27T12:00:00Z') });
  expect(text).toContain('until <t:1795780800:D>');
  expect(text).toContain('in **Casey’s Café**');
  expect(text).toContain('https://www.patreon.com/settings/memberships');
});
