import { planUser } from '../../../src/core/planner';
import type { LedgerEntry, MemberState } from '../../../src/core/planner';
import { NOW, ROLE, TIER, USER, guild, ledger, member } from './fixtures';

/** The joiner role (`/settings join_role:`) is Staff's slot in these tests: any ordinary role. */
const JOINER = ROLE.staff;
const withJoiner = guild({ settings: { joinerRoleId: JOINER, formerPatronRoleId: ROLE.former } });

function run(opts: {
  members?: MemberState[];
  current?: string[];
  ledger?: LedgerEntry[];
  joining?: boolean;
  g?: ReturnType<typeof guild>;
}) {
  return planUser({
    guild: opts.g ?? withJoiner,
    userId: USER,
    members: opts.members ?? [],
    currentRoleIds: new Set(opts.current ?? []),
    ledger: opts.ledger ?? [],
    now: NOW,
    ...(opts.joining ? { joining: true } : {}),
  });
}

const ops = (r: ReturnType<typeof run>) => r.plan.changes.map((c) => `${c.op} ${c.roleName ?? c.roleId}`);

describe('plan: the joiner role of the join page', () => {
  test('GIVEN someone without a tier joining THEN the joiner role, recorded as a joiner grant', () => {
    const r = run({ joining: true });
    expect(r.plan.changes).toMatchObject([{ op: 'add', roleId: JOINER, grant: { kind: 'joiner', campaignId: null, tierId: null } }]);
    expect(r.desired.grants.get(JOINER)!.reason).toBe('joined through the join page without a tier role');
  });

  test('GIVEN a Gold patron joining THEN Gold only: the joiner role is for those without a tier role', () => {
    expect(ops(run({ joining: true, members: [member()] }))).toEqual(['add Gold']);
  });

  test('GIVEN no joiner role is set THEN joining without a tier plans nothing', () => {
    expect(run({ joining: true, g: guild() }).plan.changes).toEqual([]);
  });

  test('GIVEN nobody joined through the page THEN a member without a tier does not get the joiner role', () => {
    expect(run({}).plan.changes).toEqual([]);
  });

  test('GIVEN a joiner later (not joining now) THEN the joiner grant stays', () => {
    const r = run({ current: [JOINER], ledger: ledger([JOINER, null, null, 'joiner']) });
    expect(r.plan.changes).toEqual([]);
    expect(r.desired.grants.has(JOINER)).toBe(true);
  });

  test('GIVEN the joiner pledges to Gold THEN the joiner role gives way to Gold', () => {
    const r = run({ members: [member()], current: [JOINER], ledger: ledger([JOINER, null, null, 'joiner']) });
    expect(ops(r)).toEqual(['add Gold', 'remove Staff']);
    expect(r.plan.changes[1]!.reason).toBe('a tier gives roles now: the joiner role gives way to tier roles');
  });

  test('GIVEN the server chose another joiner role THEN the old one goes and the new one comes', () => {
    const g = guild({ settings: { joinerRoleId: ROLE.bronze } });
    const r = run({ g, current: [JOINER], ledger: ledger([JOINER, null, null, 'joiner']) });
    expect(ops(r)).toEqual(['add Bronze', 'remove Staff']);
    expect(r.plan.changes[1]!.reason).toBe("this is no longer the server's joiner role");
  });

  test('GIVEN a former patron joining THEN the former-patron role and the joiner role', () => {
    const r = run({ joining: true, members: [member({ patronStatus: 'former_patron', entitledTierIds: [] })] });
    expect(ops(r)).toEqual(['add Alumni', 'add Staff']);
    expect(r.plan.changes.map((c) => (c.op === 'add' ? c.grant.kind : null))).toEqual(['former', 'joiner']);
  });

  test('GIVEN a Gold patron in grace joining THEN Gold is kept for the grace period and no joiner role', () => {
    const declined = member({
      patronStatus: 'declined_patron',
      lastChargeStatus: 'Declined',
      lastChargeDate: new Date(NOW.getTime() - 2 * 86_400_000),
      entitledTierIds: [],
      lastActiveTierIds: [TIER.gold],
    });
    expect(ops(run({ joining: true, members: [declined] }))).toEqual(['add Gold']);
  });
});
