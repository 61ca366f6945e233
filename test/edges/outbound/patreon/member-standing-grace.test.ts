import { nextDeadline } from '../../../../src/core/planner';
import type { Entitlement, GuildSettings } from '../../../../src/core/planner';
import {
  type ChargeRead,
  type KeptDecline,
  type PatreonMemberRead,
  firstDeclineOf,
  patreonMemberState,
} from '../../../../src/edges/outbound/patreon/member-standing';
import { CAMPAIGN, DEFAULT_GUILD_SETTINGS, OTHER_CAMPAIGN, TIER, entitlementOf, patreonRead } from '../../../core/planner/fixtures';

const entitlementOfRead = (
  campaignId: string,
  read: PatreonMemberRead | null,
  settings: Pick<GuildSettings, 'graceDays'>,
  now: Date,
): Entitlement => entitlementOf(campaignId, read ? patreonMemberState(read) : null, settings, now);

/** When the next grace period among these Patreon members ends (the scheduled check's time). */
const nextGraceDeadline = (reads: readonly PatreonMemberRead[], graceDays: number, now: Date): Date | null =>
  nextDeadline({ settings: { ...DEFAULT_GUILD_SETTINGS, graceDays } }, reads.map(patreonMemberState), now);

const DAY = 86_400_000;
const day0 = new Date('2026-11-10T08:00:00Z');
const onDay = (n: number): Date => new Date(day0.getTime() + n * DAY);
const pledgeStart = new Date('2026-01-01T00:00:00Z');
const grace7 = { graceDays: 7 };

const declinedRead = (chargedOn: number, overrides: Partial<ChargeRead> = {}): ChargeRead => ({
  patronStatus: 'declined_patron',
  lastChargeStatus: 'Declined',
  lastChargeDate: onDay(chargedOn),
  pledgeRelationshipStart: pledgeStart,
  ...overrides,
});

describe('grace counts from the first decline of the pledge, not from the last retry', () => {
  /**
   * What the service says, read by read: declined on day 0, the charge retried (and declined) on
   * days 3 and 6. `last_charge_date` moves to each retry; the kept first decline does not.
   */
  const reads: Array<[number, ChargeRead]> = [
    [0, declinedRead(0)],
    [3, declinedRead(3)],
    [6, declinedRead(6)],
  ];

  function stateOnDay(n: number): PatreonMemberRead {
    let kept: KeptDecline | null = null;
    let last: ChargeRead = declinedRead(0);
    for (const [readOn, read] of reads) {
      if (readOn > n) break;
      kept = { firstDeclinedAt: firstDeclineOf(kept, read, onDay(readOn)), pledgeRelationshipStart: read.pledgeRelationshipStart };
      last = read;
    }
    return patreonRead({
      patronStatus: last.patronStatus,
      lastChargeStatus: last.lastChargeStatus,
      lastChargeDate: last.lastChargeDate,
      firstDeclinedAt: kept?.firstDeclinedAt ?? null,
      entitledTierIds: [TIER.gold],
    });
  }

  test.each<[string, Date, 'grace' | 'lapsed']>([
    ['day 1', onDay(1), 'grace'],
    ['day 3, after the first retry', onDay(3), 'grace'],
    ['day 6, after the second retry', onDay(6), 'grace'],
    ['1 ms before day 7', new Date(onDay(7).getTime() - 1), 'grace'],
    ['day 7, exactly 7 days after the first decline', onDay(7), 'lapsed'],
    ['day 8', onDay(8), 'lapsed'],
    ['day 12 (7 days after the last retry would still be grace)', onDay(12), 'lapsed'],
  ])('on %s the roles are in %s', (_label, now, kind) => {
    const dayNumber = Math.floor((now.getTime() - day0.getTime()) / DAY);
    const ent = entitlementOfRead(CAMPAIGN, stateOnDay(Math.min(dayNumber, 6)), grace7, now);
    expect(ent.kind).toBe(kind);
    expect(ent.graceEndsAt).toEqual(onDay(7));
  });

  test('after the day-6 retry, the next grace deadline is day 7 (not day 13)', () => {
    expect(nextGraceDeadline([stateOnDay(6)], 7, onDay(6))).toEqual(onDay(7));
  });

  test('without a kept first decline (a snapshot from before), last_charge_date is the anchor as before', () => {
    const old = { ...stateOnDay(6), firstDeclinedAt: null };
    expect(entitlementOfRead(CAMPAIGN, old, grace7, onDay(7)).graceEndsAt).toEqual(onDay(13));
  });
});

describe('firstDeclineOf (what the snapshot keeps)', () => {
  const kept = (at: Date | null, start: Date | null = pledgeStart): KeptDecline => ({
    firstDeclinedAt: at,
    pledgeRelationshipStart: start,
  });

  test.each<[string, KeptDecline | null, ChargeRead, Date | null]>([
    ['a first decline: its charge date', null, declinedRead(0), onDay(0)],
    ['a first decline without a charge date: when it was seen', null, declinedRead(0, { lastChargeDate: null }), onDay(1)],
    ['a retry of the same pledge: the first decline stays', kept(onDay(0)), declinedRead(6), onDay(0)],
    [
      'active with a declined charge (retries under way): counts as declined',
      kept(onDay(0)),
      declinedRead(3, { patronStatus: 'active_patron' }),
      onDay(0),
    ],
    ['a new pledge declined: counts afresh', kept(onDay(0)), declinedRead(40, { pledgeRelationshipStart: onDay(30) }), onDay(40)],
    [
      'the charge went through: cleared',
      kept(onDay(0)),
      declinedRead(4, { patronStatus: 'active_patron', lastChargeStatus: 'Paid' }),
      null,
    ],
    ['the pledge ended: cleared', kept(onDay(0)), declinedRead(9, { patronStatus: 'former_patron', lastChargeStatus: 'Deleted' }), null],
    ['a kept value for an unknown pledge start: kept', kept(onDay(0), null), declinedRead(3), onDay(0)],
  ])('%s', (_label, before, read, expected) => {
    expect(firstDeclineOf(before, read, onDay(1))).toEqual(expected);
  });
});

describe('nextGraceDeadline (when a scheduled check should run)', () => {
  test('the earliest grace end still ahead, over every member in grace; none when no one is', () => {
    const a = patreonRead({
      patronStatus: 'declined_patron',
      lastChargeStatus: 'Declined',
      firstDeclinedAt: onDay(0),
      lastChargeDate: onDay(5),
    });
    const b = patreonRead({
      campaignId: OTHER_CAMPAIGN,
      patronStatus: 'declined_patron',
      lastChargeStatus: 'Declined',
      lastChargeDate: onDay(2),
      entitledTierIds: [TIER.art],
    });
    const active = patreonRead();
    expect(nextGraceDeadline([active, b, a], 7, onDay(3))).toEqual(onDay(7));
    expect(nextGraceDeadline([active, b, a], 7, onDay(7))).toEqual(onDay(9));
    expect(nextGraceDeadline([active, b, a], 7, onDay(9))).toBeNull();
    expect(nextGraceDeadline([active], 7, onDay(3))).toBeNull();
    expect(nextGraceDeadline([a], 0, onDay(0))).toBeNull();
  });
});
