import type { EntitlementBasis, EntitlementKind, Entitlement, GuildSettings } from '../../../../src/core/planner';
import {
  type ChargeStatus,
  type PatreonMemberRead,
  type PatronStatus,
  patreonMemberState,
} from '../../../../src/edges/outbound/patreon/member-standing';
import { CAMPAIGN, NOW, TIER, entitlementOf, patreonRead } from '../../../core/planner/fixtures';

/** What the planner makes of a Patreon read: the adapter's state, then the planner's entitlement. */
const entitlementOfRead = (
  campaignId: string,
  read: PatreonMemberRead | null,
  settings: Pick<GuildSettings, 'graceDays'>,
  now: Date,
): Entitlement => entitlementOf(campaignId, read ? patreonMemberState(read) : null, settings, now);

const DAY = 86_400_000;
const threeDaysAgo = new Date(NOW.getTime() - 3 * DAY);
const grace7 = { graceDays: 7 };

const CHARGES: ChargeStatus[] = [
  'Paid',
  'Declined',
  'Deleted',
  'Pending',
  'Refunded',
  'Fraud',
  'Other',
  'Refunded by Patreon',
  'Partially Refunded',
  'Free Trial',
  null,
];
const STATUSES: PatronStatus[] = ['active_patron', 'declined_patron', 'former_patron', null];

/**
 * Every patron_status × last_charge_status, written out (docs/patreon-api-notes.md §3.2, §3.5).
 * Columns follow CHARGES: Paid, Declined, Deleted, Pending, Refunded, Fraud, Other, Refunded by
 * Patreon, Partially Refunded, Free Trial, null.
 */
const WHILE_LISTED: Record<string, EntitlementKind[]> = {
  // The service judges an active pledge; only a fraud charge ends it here.
  active_patron: ['active', 'active', 'active', 'active', 'active', 'lapsed', 'active', 'active', 'active', 'active', 'active'],
  // Money that came back, a fraud or a deleted pledge ends access at once; other declines get the grace.
  declined_patron: ['grace', 'grace', 'lapsed', 'grace', 'lapsed', 'lapsed', 'grace', 'lapsed', 'grace', 'grace', 'grace'],
  // A cancelled pledge keeps the period it paid for while the tier is listed, unless the money came back.
  former_patron: ['active', 'active', 'active', 'active', 'former', 'lapsed', 'active', 'former', 'active', 'active', 'active'],
  // Listed tiers without a pledge: a gift, a trial or a free membership.
  null: ['active', 'active', 'active', 'active', 'none', 'lapsed', 'active', 'none', 'active', 'active', 'active'],
};
const NONE_LISTED: Record<string, EntitlementKind[]> = {
  active_patron: ['active', 'active', 'active', 'active', 'active', 'lapsed', 'active', 'active', 'active', 'active', 'active'],
  declined_patron: WHILE_LISTED.declined_patron!,
  former_patron: ['former', 'former', 'former', 'former', 'former', 'lapsed', 'former', 'former', 'former', 'former', 'former'],
  null: ['none', 'none', 'none', 'none', 'none', 'lapsed', 'none', 'none', 'none', 'none', 'none'],
};

describe('entitlement: every patron_status × last_charge_status while Gold is listed (charged 3 days ago, 7-day grace)', () => {
  const rows = STATUSES.flatMap((status) =>
    CHARGES.map((charge, i): [PatronStatus, ChargeStatus, EntitlementKind] => [status, charge, WHILE_LISTED[String(status)]![i]!]),
  );

  test.each(rows)('GIVEN %s with last charge %s THEN %s', (patronStatus, lastChargeStatus, kind) => {
    const ent = entitlementOfRead(CAMPAIGN, patreonRead({ patronStatus, lastChargeStatus, lastChargeDate: threeDaysAgo }), grace7, NOW);
    expect(ent.kind).toBe(kind);
    expect(ent.tierIds).toEqual(kind === 'active' || kind === 'grace' ? [TIER.gold] : []);
    expect(ent.basis === null).toBe(kind !== 'active');
    expect(ent.reason.length).toBeGreaterThan(5);
  });
});

describe('entitlement: every patron_status × last_charge_status with no tier listed (Gold seen while active)', () => {
  const rows = STATUSES.flatMap((status) =>
    CHARGES.map((charge, i): [PatronStatus, ChargeStatus, EntitlementKind] => [status, charge, NONE_LISTED[String(status)]![i]!]),
  );

  test.each(rows)('GIVEN %s with last charge %s THEN %s', (patronStatus, lastChargeStatus, kind) => {
    const ent = entitlementOfRead(
      CAMPAIGN,
      patreonRead({ patronStatus, lastChargeStatus, lastChargeDate: threeDaysAgo, entitledTierIds: [], lastActiveTierIds: [TIER.gold] }),
      grace7,
      NOW,
    );
    expect(ent.kind).toBe(kind);
    expect(ent.tierIds).toEqual(kind === 'grace' ? [TIER.gold] : []);
  });
});

describe('entitlement: what an active entitlement rests on', () => {
  test.each<[string, Partial<PatreonMemberRead>, EntitlementBasis, string]>([
    ['a paid pledge', {}, 'pledge', 'active patron'],
    ['a free trial (is_free_trial)', { isFreeTrial: true, lastChargeStatus: null, lastChargeDate: null }, 'free_trial', 'in a free trial'],
    ['a free trial (last charge "Free Trial")', { lastChargeStatus: 'Free Trial' }, 'free_trial', 'in a free trial'],
    ['a gift', { isGifted: true, lastChargeStatus: null, lastChargeDate: null }, 'gift', 'gift membership'],
    ['a gift to someone who never pledged', { patronStatus: null, isGifted: true, lastChargeStatus: null }, 'gift', 'gift membership'],
    [
      'a free trial of someone who never pledged',
      { patronStatus: null, isFreeTrial: true, lastChargeStatus: null },
      'free_trial',
      'in a free trial',
    ],
    [
      'a free membership',
      { patronStatus: null, lastChargeStatus: null, lastChargeDate: null },
      'free_membership',
      'member without a pledge (free membership)',
    ],
    [
      'a cancelled pledge still inside its paid period',
      { patronStatus: 'former_patron', lastChargeStatus: 'Deleted' },
      'paid_period',
      'pledge ended; the period already paid for has not',
    ],
    [
      'a partial refund',
      { lastChargeStatus: 'Partially Refunded' },
      'pledge',
      'active patron (last charge Partially Refunded on 2026-11-02)',
    ],
  ])('GIVEN %s THEN active, saying so', (_label, overrides, basis, reason) => {
    const ent = entitlementOfRead(CAMPAIGN, patreonRead(overrides), grace7, NOW);
    expect(ent).toMatchObject({ kind: 'active', basis, reason, tierIds: [TIER.gold] });
  });

  test('GIVEN a former patron whose paid period ended (the service lists no tier) THEN former', () => {
    expect(entitlementOfRead(CAMPAIGN, patreonRead({ patronStatus: 'former_patron', entitledTierIds: [] }), grace7, NOW).kind).toBe(
      'former',
    );
  });

  test.each<ChargeStatus>(['Refunded', 'Refunded by Patreon', 'Fraud'])(
    'GIVEN a declined patron whose last charge is %s THEN no grace',
    (c) => {
      const ent = entitlementOfRead(
        CAMPAIGN,
        patreonRead({ patronStatus: 'declined_patron', lastChargeStatus: c, lastChargeDate: NOW }),
        grace7,
        NOW,
      );
      expect(ent).toMatchObject({ kind: 'lapsed', tierIds: [], graceEndsAt: null });
    },
  );
});

describe('entitlement: an unreadable member', () => {
  test('GIVEN the last read could not be understood THEN none, frozen, naming the attribute', () => {
    const ent = entitlementOfRead(
      CAMPAIGN,
      patreonRead({ unreadable: { attribute: 'patron_status', reason: 'is "paused_patron"' } }),
      grace7,
      NOW,
    );
    expect(ent).toMatchObject({ kind: 'none', tierIds: [], unreadable: { attribute: 'patron_status' } });
    expect(ent.reason).toContain('patron_status is "paused_patron"');
  });
});

describe('entitlement: grace period', () => {
  const charged = new Date('2026-11-10T08:30:00Z');
  const declinedMember = patreonRead({ patronStatus: 'declined_patron', lastChargeStatus: 'Declined', lastChargeDate: charged });

  test('GIVEN 1 ms before last charge + grace days THEN roles are kept, with the end date in the reason', () => {
    const ent = entitlementOfRead(CAMPAIGN, declinedMember, grace7, new Date(charged.getTime() + 7 * DAY - 1));
    expect(ent.kind).toBe('grace');
    expect(ent.graceEndsAt).toEqual(new Date(charged.getTime() + 7 * DAY));
    expect(ent.reason).toBe('payment declined on 2026-11-10; roles kept until 2026-11-17 (7-day grace period)');
  });

  test('GIVEN exactly last charge + grace days THEN the grace period has ended', () => {
    const ent = entitlementOfRead(CAMPAIGN, declinedMember, grace7, new Date(charged.getTime() + 7 * DAY));
    expect(ent.kind).toBe('lapsed');
    expect(ent.tierIds).toEqual([]);
    expect(ent.reason).toContain('grace period ended on 2026-11-17');
  });

  test('GIVEN a grace of 0 days THEN a decline ends access at once', () => {
    const ent = entitlementOfRead(CAMPAIGN, declinedMember, { graceDays: 0 }, new Date(charged.getTime() + 1000));
    expect(ent.kind).toBe('lapsed');
    expect(ent.reason).toContain('no grace period');
  });

  test('GIVEN the service lists no tiers for a declined member THEN the tiers last seen while active are kept', () => {
    const ent = entitlementOfRead(
      CAMPAIGN,
      { ...declinedMember, entitledTierIds: [], lastActiveTierIds: [TIER.silver] },
      grace7,
      new Date(charged.getTime() + DAY),
    );
    expect(ent).toMatchObject({ kind: 'grace', tierIds: [TIER.silver] });
  });

  test('GIVEN a member first seen declined with no tier listed THEN the grace keeps nothing, and says so', () => {
    const ent = entitlementOfRead(
      CAMPAIGN,
      { ...declinedMember, entitledTierIds: [], lastActiveTierIds: [] },
      grace7,
      new Date(charged.getTime() + DAY),
    );
    expect(ent).toMatchObject({ kind: 'grace', tierIds: [] });
    expect(ent.reason).toBe(
      'payment declined on 2026-11-10; no tier is listed until a payment goes through, so there are no roles to keep',
    );
  });

  test('GIVEN no last_charge_date THEN the grace counts from the first decline the store kept (when it was first seen)', () => {
    const seen = new Date('2026-11-18T00:00:00Z');
    const m = { ...declinedMember, lastChargeDate: null, firstDeclinedAt: seen };
    expect(entitlementOfRead(CAMPAIGN, m, grace7, new Date(seen.getTime() + 6 * DAY)).kind).toBe('grace');
    expect(entitlementOfRead(CAMPAIGN, m, grace7, new Date(seen.getTime() + 7 * DAY)).kind).toBe('lapsed');
  });

  test('GIVEN neither a charge date nor a first-seen time THEN no grace can be granted', () => {
    const ent = entitlementOfRead(CAMPAIGN, { ...declinedMember, lastChargeDate: null, firstDeclinedAt: null }, grace7, NOW);
    expect(ent.kind).toBe('lapsed');
  });
});

describe('entitlement: other members', () => {
  test('GIVEN no member at all THEN none', () => {
    expect(entitlementOfRead(CAMPAIGN, null, grace7, NOW)).toMatchObject({ kind: 'none', reason: 'not a member of this campaign' });
  });

  test('GIVEN a follower who never pledged THEN follower', () => {
    const ent = entitlementOfRead(CAMPAIGN, patreonRead({ patronStatus: null, isFollower: true, entitledTierIds: [] }), grace7, NOW);
    expect(ent).toMatchObject({ kind: 'follower', isFollower: true, tierIds: [] });
  });

  test('GIVEN an active patron with no tier THEN active with no tiers', () => {
    const ent = entitlementOfRead(CAMPAIGN, patreonRead({ entitledTierIds: [] }), grace7, NOW);
    expect(ent).toMatchObject({ kind: 'active', tierIds: [], reason: 'active patron without a tier' });
  });

  test('GIVEN an active patron whose charge is pending THEN the reason says so', () => {
    const ent = entitlementOfRead(CAMPAIGN, patreonRead({ lastChargeStatus: 'Pending' }), grace7, NOW);
    expect(ent.reason).toBe('active patron (payment pending)');
  });

  test('GIVEN an unknown patron status THEN none, naming it', () => {
    const ent = entitlementOfRead(CAMPAIGN, patreonRead({ patronStatus: 'paused_patron' as unknown as PatronStatus }), grace7, NOW);
    expect(ent).toMatchObject({ kind: 'none' });
    expect(ent.reason).toContain('paused_patron');
  });
});
