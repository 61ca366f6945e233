import { entitlement } from '../../../src/core/planner';
import type { ChargeStatus, EntitlementKind, PatronStatus } from '../../../src/core/planner';
import { CAMPAIGN, NOW, TIER, member } from './fixtures';

const DAY = 86_400_000;
const threeDaysAgo = new Date(NOW.getTime() - 3 * DAY);
const grace7 = { graceDays: 7 };

const CHARGES: ChargeStatus[] = ['Paid', 'Declined', 'Deleted', 'Pending', 'Refunded', 'Fraud', 'Other', null];
const expected: Record<string, (c: ChargeStatus) => EntitlementKind> = {
  active_patron: () => 'active',
  // A charge that came back or was never real ends access at once; other declines get the grace.
  declined_patron: (c) => (c === 'Deleted' || c === 'Refunded' || c === 'Fraud' ? 'lapsed' : 'grace'),
  former_patron: () => 'former',
  null: () => 'none',
};

describe('entitlement: every patron_status × last_charge_status (charged 3 days ago, 7-day grace)', () => {
  const rows: Array<[PatronStatus, ChargeStatus, EntitlementKind]> = [];
  for (const status of ['active_patron', 'declined_patron', 'former_patron', null] as PatronStatus[]) {
    for (const charge of CHARGES) rows.push([status, charge, expected[String(status)]!(charge)]);
  }

  test.each(rows)('GIVEN %s with last charge %s THEN %s', (patronStatus, lastChargeStatus, kind) => {
    const ent = entitlement(CAMPAIGN, member({ patronStatus, lastChargeStatus, lastChargeDate: threeDaysAgo }), grace7, NOW);
    expect(ent.kind).toBe(kind);
    expect(ent.tierIds).toEqual(kind === 'active' || kind === 'grace' ? [TIER.gold] : []);
    expect(ent.reason.length).toBeGreaterThan(5);
  });
});

describe('entitlement: grace period', () => {
  const charged = new Date('2026-11-10T08:30:00Z');
  const declinedMember = member({ patronStatus: 'declined_patron', lastChargeStatus: 'Declined', lastChargeDate: charged });

  test('GIVEN 1 ms before last charge + grace days THEN roles are kept, with the end date in the reason', () => {
    const ent = entitlement(CAMPAIGN, declinedMember, grace7, new Date(charged.getTime() + 7 * DAY - 1));
    expect(ent.kind).toBe('grace');
    expect(ent.graceEndsAt).toEqual(new Date(charged.getTime() + 7 * DAY));
    expect(ent.reason).toBe('payment declined on 2026-11-10; roles kept until 2026-11-17 (7-day grace period)');
  });

  test('GIVEN exactly last charge + grace days THEN the grace period has ended', () => {
    const ent = entitlement(CAMPAIGN, declinedMember, grace7, new Date(charged.getTime() + 7 * DAY));
    expect(ent.kind).toBe('lapsed');
    expect(ent.tierIds).toEqual([]);
    expect(ent.reason).toContain('grace period ended on 2026-11-17');
  });

  test('GIVEN a grace of 0 days THEN a decline ends access at once', () => {
    const ent = entitlement(CAMPAIGN, declinedMember, { graceDays: 0 }, new Date(charged.getTime() + 1000));
    expect(ent.kind).toBe('lapsed');
    expect(ent.reason).toContain('no grace period');
  });

  test('GIVEN the service lists no tiers for a declined member THEN the tiers last seen while active are kept', () => {
    const ent = entitlement(
      CAMPAIGN,
      { ...declinedMember, entitledTierIds: [], lastActiveTierIds: [TIER.silver] },
      grace7,
      new Date(charged.getTime() + DAY),
    );
    expect(ent).toMatchObject({ kind: 'grace', tierIds: [TIER.silver] });
  });

  test('GIVEN a member first seen declined with no tier listed THEN the grace keeps nothing, and says so', () => {
    const ent = entitlement(
      CAMPAIGN,
      { ...declinedMember, entitledTierIds: [], lastActiveTierIds: [] },
      grace7,
      new Date(charged.getTime() + DAY),
    );
    expect(ent).toMatchObject({ kind: 'grace', tierIds: [] });
    expect(ent.reason).toBe(
      'payment declined on 2026-11-10; Patreon lists no tier until a payment goes through, so there are no roles to keep',
    );
  });

  test('GIVEN no last_charge_date THEN the grace counts from when the decline was first seen', () => {
    const seen = new Date('2026-11-18T00:00:00Z');
    const m = { ...declinedMember, lastChargeDate: null, declinedSeenAt: seen };
    expect(entitlement(CAMPAIGN, m, grace7, new Date(seen.getTime() + 6 * DAY)).kind).toBe('grace');
    expect(entitlement(CAMPAIGN, m, grace7, new Date(seen.getTime() + 7 * DAY)).kind).toBe('lapsed');
  });

  test('GIVEN neither a charge date nor a first-seen time THEN no grace can be granted', () => {
    const ent = entitlement(CAMPAIGN, { ...declinedMember, lastChargeDate: null, declinedSeenAt: null }, grace7, NOW);
    expect(ent.kind).toBe('lapsed');
  });
});

describe('entitlement: other members', () => {
  test('GIVEN no member at all THEN none', () => {
    expect(entitlement(CAMPAIGN, null, grace7, NOW)).toMatchObject({ kind: 'none', reason: 'not a member of this campaign' });
  });

  test('GIVEN a follower who never pledged THEN follower', () => {
    const ent = entitlement(CAMPAIGN, member({ patronStatus: null, isFollower: true, entitledTierIds: [] }), grace7, NOW);
    expect(ent).toMatchObject({ kind: 'follower', isFollower: true, tierIds: [] });
  });

  test('GIVEN an active patron with no tier THEN active with no tiers', () => {
    const ent = entitlement(CAMPAIGN, member({ entitledTierIds: [] }), grace7, NOW);
    expect(ent).toMatchObject({ kind: 'active', tierIds: [], reason: 'active patron without a tier' });
  });

  test('GIVEN an active patron whose charge is pending THEN the reason says so', () => {
    const ent = entitlement(CAMPAIGN, member({ lastChargeStatus: 'Pending' }), grace7, NOW);
    expect(ent.reason).toBe('active patron (payment pending)');
  });

  test('GIVEN an unknown patron status THEN none, naming it', () => {
    const ent = entitlement(CAMPAIGN, member({ patronStatus: 'paused_patron' as unknown as PatronStatus }), grace7, NOW);
    expect(ent).toMatchObject({ kind: 'none' });
    expect(ent.reason).toContain('paused_patron');
  });
});
