import { applySettingsChange, DEFAULT_SETTINGS, planUser } from '../../../src/core/planner';
import type { GuildSettings, LedgerEntry, MemberState } from '../../../src/core/planner';
import type { PatreonMemberRead } from '../../../src/edges/outbound/patreon/member-standing';
import { CAMPAIGN, FREE_TIER, NOW, OTHER_CAMPAIGN, ROLE, TIER, USER, guild, ledger, member, tiers } from './fixtures';

const DAY = 86_400_000;

const withFree = (settings: Partial<GuildSettings> = {}) =>
  guild({ tiers: [...tiers(), FREE_TIER], settings: { followerRoleId: ROLE.follower, formerPatronRoleId: ROLE.former, ...settings } });

function run(opts: { members: MemberState[]; current?: string[]; ledger?: LedgerEntry[]; guild?: ReturnType<typeof guild>; now?: Date }) {
  return planUser({
    guild: opts.guild ?? withFree(),
    userId: USER,
    members: opts.members,
    currentRoleIds: new Set(opts.current ?? []),
    ledger: opts.ledger ?? [],
    now: opts.now ?? NOW,
  });
}

const ops = (r: ReturnType<typeof run>) => r.plan.changes.map((c) => `${c.op} ${c.roleName ?? c.roleId}`);

describe('every kind of member, from no roles (table)', () => {
  const charged = new Date(NOW.getTime() - 3 * DAY);
  test.each<[string, Partial<PatreonMemberRead>, string[]]>([
    ['an active patron of Gold', {}, ['add Gold']],
    ['a patron in a free trial of Gold', { isFreeTrial: true, lastChargeStatus: 'Free Trial', lastChargeDate: null }, ['add Gold']],
    ['a gift membership of Gold', { isGifted: true, lastChargeStatus: null, lastChargeDate: null }, ['add Gold']],
    [
      'a gift to someone who never pledged',
      { patronStatus: null, isGifted: true, lastChargeStatus: null, lastChargeDate: null },
      ['add Gold'],
    ],
    ['a partial refund on an active pledge', { lastChargeStatus: 'Partially Refunded' }, ['add Gold']],
    ['a cancelled pledge whose paid period has not ended', { patronStatus: 'former_patron', lastChargeStatus: 'Deleted' }, ['add Gold']],
    ['a cancelled pledge whose paid period ended', { patronStatus: 'former_patron', entitledTierIds: [] }, ['add Alumni']],
    [
      'a former patron refunded by Patreon, tier still listed',
      { patronStatus: 'former_patron', lastChargeStatus: 'Refunded by Patreon' },
      ['add Alumni'],
    ],
    ['an active patron whose charge was marked as fraud', { lastChargeStatus: 'Fraud' }, ['add Alumni']],
    [
      'a declined patron refunded by Patreon',
      { patronStatus: 'declined_patron', lastChargeStatus: 'Refunded by Patreon', lastChargeDate: charged },
      ['add Alumni'],
    ],
    [
      'a declined patron, partially refunded, inside the grace',
      { patronStatus: 'declined_patron', lastChargeStatus: 'Partially Refunded', lastChargeDate: charged },
      ['add Gold'],
    ],
    [
      'a free member (no pledge, the free tier listed)',
      { patronStatus: null, lastChargeStatus: null, lastChargeDate: null, entitledTierIds: [TIER.free] },
      ['add Free', 'add Follower'],
    ],
    [
      'a follower (the spec dialect)',
      { patronStatus: null, isFollower: true, lastChargeStatus: null, entitledTierIds: [] },
      ['add Follower'],
    ],
    ['someone who never pledged and does not follow', { patronStatus: null, lastChargeStatus: null, entitledTierIds: [] }, []],
  ])('%s → %j', (_label, overrides, expected) => {
    expect(ops(run({ members: [member(overrides)] }))).toEqual(expected);
  });
});

describe('free tiers (a setting per guild, default: they grant their roles)', () => {
  const free = member({ patronStatus: null, lastChargeStatus: null, lastChargeDate: null, entitledTierIds: [TIER.free] });

  test('GIVEN the default settings THEN a free tier grants its mapped role', () => {
    expect(DEFAULT_SETTINGS.freeTiersGrantRoles).toBe(true);
    expect(ops(run({ members: [free], guild: withFree({ followerRoleId: null }) }))).toEqual(['add Free']);
  });

  test('GIVEN free tiers grant no role THEN the free member gets only the follower role, and a note says why', () => {
    const r = run({ members: [free], guild: withFree({ freeTiersGrantRoles: false }) });
    expect(ops(r)).toEqual(['add Follower']);
    expect(r.desired.notes).toContainEqual(
      expect.objectContaining({ tierId: TIER.free, reason: 'Free is a free tier, and free tiers grant no role in this server' }),
    );
  });

  test('GIVEN free tiers grant no role THEN the free-tier role we granted goes, and a paid tier still grants', () => {
    const g = withFree({ freeTiersGrantRoles: false, followerRoleId: null });
    expect(ops(run({ members: [free], guild: g, current: [ROLE.free], ledger: ledger([ROLE.free, CAMPAIGN, TIER.free]) }))).toEqual([
      'remove Free',
    ]);
    expect(ops(run({ members: [member({ entitledTierIds: [TIER.gold, TIER.free] })], guild: g }))).toEqual(['add Gold']);
  });

  test('GIVEN a free member becomes a paid patron THEN the follower role we granted gives way', () => {
    const r = run({ members: [member()], current: [ROLE.follower], ledger: ledger([ROLE.follower, CAMPAIGN, null, 'follower']) });
    expect(ops(r)).toEqual(['add Gold', 'remove Follower']);
  });

  test('applySettingsChange takes freeTiersGrantRoles', () => {
    const changed = applySettingsChange({ ...DEFAULT_SETTINGS }, { freeTiersGrantRoles: false });
    expect(changed).toEqual({ ok: true, value: { ...DEFAULT_SETTINGS, freeTiersGrantRoles: false } });
  });
});

describe('a cancelled pledge keeps its paid period', () => {
  test('GIVEN Gold is still listed after the cancel THEN the role stays; once the list is empty it goes', () => {
    const held = { current: [ROLE.gold], ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold]), guild: guild() };
    const cancelled = member({ patronStatus: 'former_patron', lastChargeStatus: 'Paid' });
    expect(run({ ...held, members: [cancelled] }).plan.changes).toEqual([]);
    const ended = run({ ...held, members: [member({ patronStatus: 'former_patron', lastChargeStatus: 'Paid', entitledTierIds: [] })] });
    expect(ops(ended)).toEqual(['remove Gold']);
    expect(ended.plan.changes[0]!.reason).toBe('no longer entitled to Gold: former patron: the pledge has ended');
  });

  test('GIVEN the money came back THEN the role goes at once, even while the tier is listed', () => {
    const r = run({
      guild: guild(),
      members: [member({ patronStatus: 'former_patron', lastChargeStatus: 'Refunded' })],
      current: [ROLE.gold],
      ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold]),
    });
    expect(ops(r)).toEqual(['remove Gold']);
  });
});

describe('an unreadable member: its roles stay exactly as they are', () => {
  const unreadable = member({ unreadable: { attribute: 'patron_status', reason: 'is "paused_patron", expected one of …' } });

  test('GIVEN roles we granted THEN nothing is removed or forgotten, even ones the member lost', () => {
    const r = run({
      members: [unreadable],
      current: [ROLE.gold, ROLE.former],
      ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold], [ROLE.former, CAMPAIGN, null, 'former'], [ROLE.silver, CAMPAIGN, TIER.silver]),
    });
    expect(r.plan).toMatchObject({ changes: [], blocked: [] });
    expect(r.entitlements[0]).toMatchObject({ kind: 'none', unreadable: { attribute: 'patron_status' } });
  });

  test('GIVEN no role THEN none is granted, not even the former-patron or follower role', () => {
    expect(run({ members: [unreadable] }).plan.changes).toEqual([]);
  });

  test('GIVEN strict mode THEN mapped roles held by hand stay too', () => {
    const strict = withFree({ strict: true });
    expect(run({ guild: strict, members: [unreadable], current: [ROLE.gold, ROLE.bronze, ROLE.follower] }).plan.changes).toEqual([]);
  });

  test("GIVEN a second campaign that is readable THEN its changes are made, the unreadable one's roles stay", () => {
    const two = guild({ campaignIds: [CAMPAIGN, OTHER_CAMPAIGN] });
    const r = run({
      guild: two,
      members: [unreadable, member({ campaignId: OTHER_CAMPAIGN, entitledTierIds: [TIER.art] })],
      current: [ROLE.gold],
      ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold]),
    });
    expect(ops(r)).toEqual(['add Art']);
  });
});
