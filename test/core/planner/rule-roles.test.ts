import { addMonths, monthsBetween, nextDeadline, planUser } from '../../../src/core/planner';
import type { GuildContext, LedgerEntry, MemberState } from '../../../src/core/planner';
import { CAMPAIGN, NOW, ROLE, TIER, USER, guild, ledger, member, state } from './fixtures';

/**
 * Roles by tenure and by amount, whatever the tier: planned in the core from the member's
 * entitlements (src/core/planner/rule-roles.ts).
 */
const DAY = 86_400_000;
const VETERAN = ROLE.staff;
const BIG = ROLE.art;

function rules(overrides: Partial<GuildContext> = {}): GuildContext {
  return guild({
    ruleRoles: [
      { kind: 'tenure', roleId: VETERAN, months: 6 },
      { kind: 'amount', roleId: BIG, cents: 2000 },
    ],
    ...overrides,
  });
}

function run(members: MemberState[], options: { current?: string[]; ledger?: LedgerEntry[]; now?: Date; g?: GuildContext } = {}) {
  return planUser({
    guild: options.g ?? rules(),
    userId: USER,
    members,
    currentRoleIds: new Set(options.current ?? []),
    ledger: options.ledger ?? [],
    now: options.now ?? NOW,
  });
}

const adds = (r: ReturnType<typeof run>) => r.plan.changes.filter((c) => c.op === 'add').map((c) => c.roleName);
const monthsAgo = (n: number, plusDays = 0) => new Date(addMonths(NOW, -n).getTime() - plusDays * DAY);

describe('months between two times (calendar months, UTC)', () => {
  test.each<[string, string, number]>([
    ['2026-05-20T12:00:00Z', '2026-11-20T12:00:00Z', 6],
    ['2026-05-20T12:00:01Z', '2026-11-20T12:00:00Z', 5],
    ['2026-01-31T00:00:00Z', '2026-02-28T00:00:00Z', 0],
    ['2026-01-31T00:00:00Z', '2026-03-01T00:00:00Z', 1],
    ['2026-11-20T00:00:00Z', '2026-11-19T00:00:00Z', 0],
  ])('from %s to %s: %i', (from, to, months) => {
    expect(monthsBetween(new Date(from), new Date(to))).toBe(months);
  });

  test('adding a month to the 31st lands on the month’s last day', () => {
    expect(addMonths(new Date('2026-01-31T10:00:00Z'), 1)).toEqual(new Date('2026-02-28T10:00:00Z'));
  });
});

describe('tenure: a role for patrons of at least N continuous months', () => {
  test('GIVEN a patron since six months THEN the tenure role is granted, with the months in the reason', () => {
    const r = run([member({ pledgeRelationshipStart: monthsAgo(6), entitledAmountCents: 1000 })]);
    expect(adds(r)).toEqual(['Gold', 'Staff']);
    expect(r.desired.grants.get(VETERAN)?.reason).toBe('a patron for 6 months (since 2026-05-20; this role is for 6 or more)');
  });

  test('GIVEN a patron one day short of six months THEN no tenure role yet, and the next check is due the day it is reached', () => {
    const since = monthsAgo(6, -1);
    const r = run([member({ pledgeRelationshipStart: since })]);
    expect(adds(r)).toEqual(['Gold']);
    expect(nextDeadline(rules(), [member({ pledgeRelationshipStart: since })], NOW)).toEqual(addMonths(since, 6));
  });

  test('GIVEN a declined payment inside its grace period THEN the tenure is not broken and the role stays', () => {
    const declined = member({
      pledgeRelationshipStart: monthsAgo(8),
      patronStatus: 'declined_patron',
      lastChargeStatus: 'Declined',
      lastChargeDate: new Date(NOW.getTime() - 2 * DAY),
    });
    const r = run([declined], {
      current: [ROLE.gold, VETERAN],
      ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold], [VETERAN, CAMPAIGN, null, 'tenure']),
    });
    expect(r.plan.changes).toEqual([]);
    expect(r.desired.grants.get(VETERAN)?.reason).toMatch(/^a patron for 8 months/);
  });

  test('GIVEN the grace period ended THEN the tenure role goes with the tier role', () => {
    const lapsed = member({
      pledgeRelationshipStart: monthsAgo(8),
      patronStatus: 'declined_patron',
      lastChargeStatus: 'Declined',
      lastChargeDate: new Date(NOW.getTime() - 20 * DAY),
    });
    const r = run([lapsed], {
      current: [ROLE.gold, VETERAN],
      ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold], [VETERAN, CAMPAIGN, null, 'tenure']),
    });
    expect(r.plan.changes.map((c) => `${c.op} ${c.roleName}`)).toEqual(['remove Gold', 'remove Staff']);
    expect(r.plan.changes[1]!.reason).toMatch(/^no longer an entitled patron of 6 or more months/);
  });

  test('GIVEN a paused pledge (no tier while paused) THEN no tenure role; resumed, it counts from the start Patreon kept', () => {
    const start = monthsAgo(10);
    const paused = member({ pledgeRelationshipStart: start, patronStatus: 'former_patron', entitledTierIds: [] });
    expect(run([paused]).desired.grants.has(VETERAN)).toBe(false);
    const resumed = member({ pledgeRelationshipStart: start });
    expect(run([resumed]).desired.grants.get(VETERAN)?.reason).toMatch(/^a patron for 10 months/);
  });

  test('GIVEN only a comp THEN it earns no tenure, however long it runs', () => {
    const comp = state({ source: 'comp', basis: 'comp', since: monthsAgo(12), until: new Date(NOW.getTime() + 30 * DAY) });
    expect(run([comp]).desired.grants.has(VETERAN)).toBe(false);
  });
});

describe('amount: a role for anyone entitled to at least X a month, whatever the tier', () => {
  test('GIVEN a custom pledge of $25 on Bronze THEN the amount role is granted on top of Bronze', () => {
    const r = run([member({ entitledTierIds: [TIER.bronze], entitledAmountCents: 2500 })]);
    expect(adds(r)).toEqual(['Bronze', 'Art']);
    expect(r.desired.grants.get(BIG)?.reason).toBe('pledges 25.00 a month (this role is for 20.00 or more)');
  });

  test('GIVEN exactly the threshold THEN the role is granted; a cent less, not', () => {
    expect(adds(run([member({ entitledAmountCents: 2000 })]))).toContain('Art');
    expect(adds(run([member({ entitledAmountCents: 1999 })]))).not.toContain('Art');
  });

  test('GIVEN a currency other than USD THEN the amount is taken as the service gives it (no conversion)', () => {
    const euros = state({ amount: { cents: 2000, currency: 'EUR' } });
    const r = run([euros]);
    expect(r.desired.grants.get(BIG)?.reason).toBe('pledges 20.00 EUR a month (this role is for 20.00 EUR or more)');
    const dollars = state({ amount: { cents: 2000, currency: 'USD' } });
    expect(run([dollars]).desired.grants.get(BIG)?.reason).toBe('pledges $20.00 a month (this role is for $20.00 or more)');
  });

  test('GIVEN a pledge with no amount known (Patreon’s samples show null) THEN no amount role, and nothing else changes', () => {
    const r = run([member({ entitledAmountCents: null })]);
    expect(adds(r)).toEqual(['Gold']);
  });

  test('GIVEN an unconfirmed payload claims $50 THEN the amount role is not granted from it', () => {
    const payload = member({ entitledAmountCents: 5000, unconfirmed: true });
    expect(run([payload]).plan.changes).toEqual([]);
  });

  test('GIVEN the pledge drops below the threshold THEN the amount role we granted goes, with the rule in the reason', () => {
    const r = run([member({ entitledAmountCents: 500 })], {
      current: [ROLE.gold, BIG],
      ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold], [BIG, CAMPAIGN, null, 'amount']),
    });
    expect(r.plan.changes.map((c) => `${c.op} ${c.roleName}`)).toEqual(['remove Art']);
    expect(r.plan.changes[0]!.reason).toMatch(/^no longer entitled to 20.00 or more a month/);
  });
});
