import { deadlineFrom, entitlement, nextDeadline, planUser } from '../../../src/core/planner';
import type { MemberState } from '../../../src/core/planner';
import { CAMPAIGN, GUILD, NOW, ROLE, TIER, USER, guild, ledger, member, state } from './fixtures';

/**
 * The planner speaks of entitlements from any source: a state with an end (a comp, a paid month),
 * grace after it where the source says so, and a role held while any source justifies it.
 */
const DAY = 86_400_000;
const at = (days: number) => new Date(NOW.getTime() + days * DAY);
const grace7 = { graceDays: 7 };

const comp = (overrides: Partial<MemberState> = {}) =>
  state({ source: 'comp', basis: 'comp', until: at(10), detail: 'comp: moderator', guildId: GUILD, ...overrides });
const subscription = (overrides: Partial<MemberState> = {}) =>
  state({ source: 'kofi', basis: 'subscription', until: at(10), graceAfterUntil: true, detail: 'Ko-fi subscription', ...overrides });

describe('entitlement of a state with an end', () => {
  test('GIVEN a comp before its end THEN active, and the reason says until when', () => {
    expect(entitlement(comp(), grace7, NOW)).toMatchObject({
      kind: 'active',
      basis: 'comp',
      tierIds: [TIER.gold],
      reason: 'comp: moderator, until 2026-11-30',
    });
  });

  test('GIVEN a comp at its end THEN lapsed at once: no grace after a comp', () => {
    expect(entitlement(comp(), grace7, at(10))).toMatchObject({
      kind: 'lapsed',
      tierIds: [],
      reason: 'comp: moderator, ended on 2026-11-30',
    });
  });

  test('GIVEN a subscription past its paid month THEN the server’s grace keeps it, then it lapses', () => {
    expect(entitlement(subscription(), grace7, at(12))).toMatchObject({
      kind: 'grace',
      tierIds: [TIER.gold],
      graceEndsAt: at(17),
      reason: 'Ko-fi subscription, paid until 2026-11-30; roles kept until 2026-12-07 (7-day grace period)',
    });
    expect(entitlement(subscription(), grace7, at(17))).toMatchObject({
      kind: 'lapsed',
      reason: 'Ko-fi subscription, ended on 2026-12-07',
    });
    expect(entitlement(subscription(), { graceDays: 0 }, at(10))).toMatchObject({ kind: 'lapsed' });
  });

  test('the next deadline is the end of a comp, or of a paid month plus grace, whichever comes first', () => {
    const g = guild();
    expect(nextDeadline(g, [comp({ until: at(3) }), subscription()], NOW)).toEqual(at(3));
    expect(nextDeadline(g, [subscription()], at(11))).toEqual(at(17));
    expect(nextDeadline(g, [comp()], at(11))).toBeNull();
  });

  test("the planner's own entitlements give the same deadline (the full sync works each one out once)", () => {
    const g = guild();
    const cases: Array<[MemberState[], Date]> = [
      [[comp({ until: at(3) }), subscription()], NOW],
      [[subscription(), comp({ until: at(3) })], NOW],
      [[subscription()], at(11)],
      [[comp()], at(11)],
      [[member(), subscription({ until: at(2) })], NOW],
    ];
    for (const [members, now] of cases) {
      const planned = planUser({ guild: g, userId: USER, members, now, currentRoleIds: new Set(), ledger: [] });
      expect(deadlineFrom(g, members, planned.entitlements, now)).toEqual(nextDeadline(g, members, now));
    }
    expect(
      deadlineFrom(
        g,
        [comp({ until: at(3) })],
        planUser({ guild: g, userId: USER, members: [comp({ until: at(3) })], now: NOW, currentRoleIds: new Set(), ledger: [] })
          .entitlements,
        NOW,
      ),
    ).toEqual(at(3));
  });
});

describe('a role is held while any source justifies it', () => {
  const held = { currentRoleIds: new Set([ROLE.gold]), ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold]) };
  const plan = (members: MemberState[], now = NOW) => planUser({ guild: guild(), userId: USER, members, now, ...held });

  test('GIVEN a pledge and a comp of Gold THEN Gold stays, with both reasons and both sources', () => {
    const r = plan([member(), comp()]);
    expect(r.plan.changes).toEqual([]);
    const grant = r.desired.grants.get(ROLE.gold)!;
    expect(grant.sources).toEqual(['patreon', 'comp']);
    expect([grant.reason, ...grant.alsoBecause]).toEqual(['Gold tier (active patron)', 'Gold tier (comp: moderator, until 2026-11-30)']);
  });

  test('GIVEN the pledge ends and the comp goes on THEN Gold stays', () => {
    expect(plan([member({ patronStatus: 'former_patron', entitledTierIds: [] }), comp()]).plan.changes).toEqual([]);
  });

  test('GIVEN the comp ends and the pledge goes on THEN Gold stays; when both have ended, Gold goes', () => {
    expect(plan([member(), comp()], at(11)).plan.changes).toEqual([]);
    const ended = plan([member({ patronStatus: 'former_patron', entitledTierIds: [] }), comp()], at(11));
    expect(ended.plan.changes.map((c) => `${c.op} ${c.roleName}`)).toEqual(['remove Gold']);
  });

  test('GIVEN a comp of another server THEN it justifies nothing here', () => {
    const elsewhere = comp({ guildId: '100000000000000999' });
    const r = planUser({ guild: guild(), userId: USER, members: [elsewhere], now: NOW, currentRoleIds: new Set(), ledger: [] });
    expect(r.plan.changes).toEqual([]);
  });

  test('GIVEN only an unconfirmed payload and a comp of Silver THEN Silver is granted by the comp, Gold from the payload is not', () => {
    const r = planUser({
      guild: guild(),
      userId: USER,
      members: [member({ unconfirmed: true }), comp({ tierIds: [TIER.silver] })],
      now: NOW,
      currentRoleIds: new Set(),
      ledger: [],
    });
    expect(r.plan.changes.map((c) => `${c.op} ${c.roleName}`)).toEqual(['add Silver']);
  });

  test('GIVEN mode highest, a pledge of Silver and a comp of Gold THEN only Gold, whichever source entitles to it', () => {
    const r = planUser({
      guild: guild({ settings: { mode: 'highest' } }),
      userId: USER,
      members: [member({ entitledTierIds: [TIER.silver] }), comp()],
      now: NOW,
      currentRoleIds: new Set(),
      ledger: [],
    });
    expect(r.plan.changes.map((c) => `${c.op} ${c.roleName}`)).toEqual(['add Gold']);
  });
});
