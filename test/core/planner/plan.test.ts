import { planUser, shouldHoldRemovals } from '../../../src/core/planner';
import type { LedgerEntry, MemberState, UnlinkedReason } from '../../../src/core/planner';
import { CAMPAIGN, NOW, OTHER_CAMPAIGN, ROLE, TIER, USER, guild, ledger, member } from './fixtures';

const DAY = 86_400_000;
const MINUTE = 60_000;

function run(opts: {
  members?: MemberState[];
  current?: string[] | null;
  ledger?: LedgerEntry[];
  guild?: ReturnType<typeof guild>;
  unlinkedReason?: UnlinkedReason;
  now?: Date;
}) {
  return planUser({
    guild: opts.guild ?? guild(),
    userId: USER,
    members: opts.members ?? [member()],
    currentRoleIds: opts.current === null ? null : new Set(opts.current ?? []),
    ledger: opts.ledger ?? [],
    now: opts.now ?? NOW,
    ...(opts.unlinkedReason ? { unlinkedReason: opts.unlinkedReason } : {}),
  });
}

const ops = (r: ReturnType<typeof run>) => r.plan.changes.map((c) => `${c.op} ${c.roleName ?? c.roleId}`);

describe('plan: grants and the ledger', () => {
  test('GIVEN an active Gold patron without roles THEN Gold is added with its reason', () => {
    const r = run({});
    expect(r.plan.changes).toEqual([
      {
        op: 'add',
        roleId: ROLE.gold,
        roleName: 'Gold',
        reason: 'Gold tier (active patron)',
        why: { code: 'tier', tier: 'Gold', standing: { kind: 'active', basis: 'pledge', graceEndsAt: null } },
        grant: { campaignId: CAMPAIGN, tierId: TIER.gold, kind: 'tier', sources: ['patreon'] },
      },
    ]);
  });

  test('GIVEN the role is already held (granted by us) THEN nothing changes', () => {
    expect(run({ current: [ROLE.gold], ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold]) }).plan.changes).toEqual([]);
  });

  test('GIVEN the role is already held by hand THEN nothing changes and nothing is recorded', () => {
    expect(run({ current: [ROLE.gold] }).plan.changes).toEqual([]);
  });

  test('GIVEN a granted role was removed by hand while still entitled THEN it is added again', () => {
    expect(ops(run({ current: [], ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold]) }))).toEqual(['add Gold']);
  });

  test('GIVEN a pledge ended THEN the role we granted is removed, saying why', () => {
    const r = run({
      members: [member({ patronStatus: 'former_patron', entitledTierIds: [] })],
      current: [ROLE.gold],
      ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold]),
    });
    expect(r.plan.changes).toEqual([
      {
        op: 'remove',
        roleId: ROLE.gold,
        roleName: 'Gold',
        basis: 'ledger',
        reason: 'no longer entitled to Gold: former patron: the pledge has ended',
        why: { code: 'tierEnded', tier: 'Gold', standing: { kind: 'former', basis: null, graceEndsAt: null } },
      },
    ]);
  });

  test('GIVEN a pledge ended but the role was given by hand THEN it survives (not strict)', () => {
    const r = run({ members: [member({ patronStatus: 'former_patron', entitledTierIds: [] })], current: [ROLE.gold, ROLE.staff] });
    expect(r.plan.changes).toEqual([]);
  });

  test('GIVEN we granted a role the member already lost and no longer deserves THEN only the ledger row goes', () => {
    const r = run({
      members: [member({ patronStatus: 'former_patron', entitledTierIds: [] })],
      current: [],
      ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold]),
    });
    expect(r.plan.changes).toMatchObject([{ op: 'forget', roleId: ROLE.gold }]);
  });

  test('GIVEN a granted role was deleted from the server THEN the ledger row is forgotten', () => {
    const ghostLedger = ledger([ROLE.ghost, CAMPAIGN, TIER.gold]);
    const r = run({ current: [ROLE.gold], ledger: ghostLedger });
    expect(r.plan.changes).toMatchObject([{ op: 'forget', roleId: ROLE.ghost, roleName: null }]);
    expect(r.plan.changes[0]!.reason).toContain('no longer exists');
  });

  test('GIVEN an upgrade from Silver to Gold THEN Silver goes and Gold comes', () => {
    const r = run({ current: [ROLE.silver], ledger: ledger([ROLE.silver, CAMPAIGN, TIER.silver]) });
    expect(ops(r)).toEqual(['add Gold', 'remove Silver']);
    expect(r.plan.changes[1]!.reason).toBe('no longer entitled to Silver (now: Gold)');
  });

  test('GIVEN the user is not in the server THEN nothing is planned', () => {
    expect(run({ current: null, ledger: ledger([ROLE.silver, CAMPAIGN, TIER.silver]) }).plan.changes).toEqual([]);
  });

  test('GIVEN the user unlinked THEN every granted role goes with the unlink reason, hand-given ones stay', () => {
    const r = run({
      members: [],
      current: [ROLE.gold, ROLE.staff],
      ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold]),
      unlinkedReason: 'unlinked with /unlink',
    });
    expect(r.plan.changes).toMatchObject([{ op: 'remove', roleId: ROLE.gold, reason: 'unlinked with /unlink' }]);
  });

  test('GIVEN /unmap removed the mapping that granted a role THEN it is removed, saying the tier no longer grants it', () => {
    const r = run({ current: [ROLE.gold, ROLE.art], ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold], [ROLE.art, CAMPAIGN, TIER.gold]) });
    expect(r.plan.changes).toEqual([
      {
        op: 'remove',
        roleId: ROLE.art,
        roleName: 'Art',
        basis: 'ledger',
        reason: 'Gold no longer grants this role',
        why: { code: 'tierNoRole', tier: 'Gold' },
      },
    ]);
  });
});

describe('plan: strict mode', () => {
  const strict = guild({ settings: { strict: true } });
  const former = [member({ patronStatus: 'former_patron', entitledTierIds: [] })];

  test('GIVEN strict and a hand-given mapped role on someone not entitled THEN it is removed', () => {
    const r = run({ guild: strict, members: former, current: [ROLE.gold] });
    expect(r.plan.changes).toMatchObject([{ op: 'remove', roleId: ROLE.gold, basis: 'strict' }]);
    expect(r.plan.changes[0]!.reason).toContain('strict mode');
  });

  test('GIVEN strict THEN roles Tierlink does not manage are untouched', () => {
    expect(run({ guild: strict, members: former, current: [ROLE.staff] }).plan.changes).toEqual([]);
  });

  test('GIVEN strict and an entitled member holding the role by hand THEN it stays', () => {
    expect(run({ guild: strict, current: [ROLE.gold] }).plan.changes).toEqual([]);
  });

  test('GIVEN strict THEN a mapped role of another tier held by hand is removed from a Gold patron', () => {
    expect(ops(run({ guild: strict, current: [ROLE.gold, ROLE.silver] }))).toEqual(['remove Silver']);
  });

  /** The guild of `strict` where `roleIds` carry a dangerous permission (Administrator, Ban Members…). */
  const withDangerous = (...roleIds: string[]) => {
    const roles = new Map([...strict.roles].map(([id, role]) => [id, { ...role, dangerous: roleIds.includes(id) }]));
    return { ...strict, roles };
  };

  test('GIVEN strict and a mapped role with a dangerous permission held by hand THEN strict never removes it', () => {
    const g = withDangerous(ROLE.gold);
    expect(run({ guild: g, members: former, current: [ROLE.gold, ROLE.silver] }).plan.changes).toMatchObject([
      { op: 'remove', roleId: ROLE.silver, basis: 'strict' },
    ]);
    expect(run({ guild: g, current: [ROLE.gold, ROLE.silver] }).plan.changes).toMatchObject([{ op: 'remove', roleId: ROLE.silver }]);
  });

  test('GIVEN strict and a dangerous former-patron role held by hand THEN it stays; one we granted still goes by the ledger', () => {
    const g = { ...withDangerous(ROLE.former), settings: { ...strict.settings, formerPatronRoleId: ROLE.former } };
    const paying = [member({ entitledTierIds: [TIER.gold] })];
    expect(ops(run({ guild: g, members: paying, current: [ROLE.gold, ROLE.former] }))).toEqual([]);
    const granted = run({
      guild: g,
      members: paying,
      current: [ROLE.gold, ROLE.former],
      ledger: ledger([ROLE.former, CAMPAIGN, null, 'former']),
    });
    expect(granted.plan.changes).toMatchObject([{ op: 'remove', roleId: ROLE.former, basis: 'ledger' }]);
  });
});

describe('plan: stack and highest', () => {
  const both = [member({ entitledTierIds: [TIER.silver, TIER.gold] })];

  test('GIVEN stack mode and two tiers THEN both tiers’ roles', () => {
    expect(ops(run({ members: both }))).toEqual(['add Gold', 'add Silver']);
  });

  test('GIVEN highest mode and two tiers THEN only the higher one, and a note for the other', () => {
    const r = run({ members: both, guild: guild({ settings: { mode: 'highest' } }) });
    expect(ops(r)).toEqual(['add Gold']);
    expect(r.desired.notes).toContainEqual(expect.objectContaining({ roleId: ROLE.silver, reason: expect.stringContaining('highest') }));
  });

  test('GIVEN highest mode and two tiers at the same price THEN both (ties are all kept)', () => {
    const tied = [member({ entitledTierIds: [TIER.gold, TIER.gold2, TIER.silver] })];
    expect(ops(run({ members: tied, guild: guild({ settings: { mode: 'highest' } }) })).sort()).toEqual(['add Gold', 'add Gold Extra']);
  });

  test('GIVEN highest mode and a lower tier role we granted THEN it is removed, saying highest mode', () => {
    const r = run({
      members: both,
      guild: guild({ settings: { mode: 'highest' } }),
      current: [ROLE.gold, ROLE.silver],
      ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold], [ROLE.silver, CAMPAIGN, TIER.silver]),
    });
    expect(r.plan.changes).toMatchObject([{ op: 'remove', roleId: ROLE.silver, reason: expect.stringContaining('mode highest') }]);
  });

  test('GIVEN two tiers share a role THEN it is added once, attributed to the higher tier', () => {
    const g = guild({ mappings: [{ campaignId: CAMPAIGN, tierId: TIER.silver, roleId: ROLE.gold }] });
    const r = run({ guild: g, members: both });
    expect(r.plan.changes.filter((c) => c.roleId === ROLE.gold)).toMatchObject([{ grant: { tierId: TIER.gold } }]);
  });
});

describe('plan: tiers and roles that are not there', () => {
  test('GIVEN entitlement to a tier deleted from the campaign THEN no role and a note', () => {
    const r = run({ members: [member({ entitledTierIds: [TIER.old] })] });
    expect(r.plan.changes).toEqual([]);
    expect(r.desired.notes).toContainEqual(
      expect.objectContaining({ tierId: TIER.old, reason: 'tier Old no longer exists on the campaign' }),
    );
  });

  test('GIVEN entitlement to a tier we have never seen THEN no role and a note', () => {
    const r = run({ members: [member({ entitledTierIds: ['t-unknown'] })] });
    expect(r.plan.changes).toEqual([]);
    expect(r.desired.notes[0]!.reason).toContain('no longer exists');
  });

  test('GIVEN a tier role missing from the server THEN it is not requested and the note says how to fix it', () => {
    const g = guild({
      tiers: [
        { campaignId: CAMPAIGN, tierId: TIER.gold, title: 'Gold', amountCents: 1000, roleIds: [ROLE.ghost, ROLE.gold], removed: false },
      ],
    });
    const r = run({ guild: g });
    expect(ops(r)).toEqual(['add Gold']);
    expect(r.desired.notes).toContainEqual(expect.objectContaining({ roleId: ROLE.ghost, fix: expect.any(String) }));
  });

  test('GIVEN a role above the bot THEN the add is blocked with the fix and never sent', () => {
    const g = guild({ mappings: [{ campaignId: CAMPAIGN, tierId: TIER.gold, roleId: ROLE.aboveBot }] });
    const r = run({ guild: g });
    expect(ops(r)).toEqual(['add Gold']);
    expect(r.plan.blocked).toEqual([
      expect.objectContaining({
        op: 'add',
        roleId: ROLE.aboveBot,
        problem: expect.objectContaining({ fix: expect.stringContaining('Move the Tierlink role above') }),
      }),
    ]);
  });

  test('GIVEN a role we granted is now above the bot and no longer deserved THEN the removal is blocked', () => {
    const r = run({
      members: [member({ patronStatus: 'former_patron', entitledTierIds: [] })],
      current: [ROLE.aboveBot],
      ledger: ledger([ROLE.aboveBot, CAMPAIGN, TIER.gold]),
    });
    expect(r.plan.changes).toEqual([]);
    expect(r.plan.blocked).toMatchObject([{ op: 'remove', roleId: ROLE.aboveBot }]);
  });

  test('GIVEN /map adds a role to a tier THEN the tier grants both, sourced', () => {
    const g = guild({ mappings: [{ campaignId: CAMPAIGN, tierId: TIER.gold, roleId: ROLE.art }] });
    const grants = [...run({ guild: g }).desired.grants.values()];
    expect(grants.map((x) => [x.roleName, x.source])).toEqual([
      ['Gold', 'chat_role_ids'],
      ['Art', 'map'],
    ]);
  });

  test('GIVEN a tier with no role in this server THEN the note suggests /map', () => {
    const g = guild({
      tiers: [{ campaignId: CAMPAIGN, tierId: TIER.gold, title: 'Gold', amountCents: 1000, roleIds: [], removed: false }],
    });
    const r = run({ guild: g });
    expect(r.desired.notes).toContainEqual(
      expect.objectContaining({ reason: 'Gold tier grants no role in this server', fix: expect.stringContaining('/map') }),
    );
  });

  test('GIVEN a patron who does not get a mapped role THEN a note explains it', () => {
    const r = run({ members: [member({ entitledTierIds: [TIER.bronze] })] });
    expect(r.desired.notes).toContainEqual(expect.objectContaining({ roleId: ROLE.gold, reason: 'Gold is not one of your tiers' }));
  });
});

describe('plan: grace period end to end', () => {
  const charged = new Date('2026-11-10T00:00:00Z');
  const declined = [
    member({ patronStatus: 'declined_patron', lastChargeStatus: 'Declined', lastChargeDate: charged, entitledTierIds: [] }),
  ];
  const held = { current: [ROLE.gold], ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold]) };

  test('GIVEN a declined patron inside the grace period THEN Gold stays', () => {
    expect(run({ members: declined, ...held, now: new Date(charged.getTime() + 6 * DAY) }).plan.changes).toEqual([]);
  });

  test('GIVEN a declined patron past the grace period THEN Gold goes and the reason gives the dates', () => {
    const r = run({ members: declined, ...held, now: new Date(charged.getTime() + 7 * DAY) });
    expect(r.plan.changes).toMatchObject([{ op: 'remove', roleId: ROLE.gold }]);
    expect(r.plan.changes[0]!.reason).toBe(
      'no longer entitled to Gold: payment declined on 2026-11-10; the 7-day grace period ended on 2026-11-17',
    );
  });

  test('GIVEN a longer grace in the settings THEN the same patron keeps Gold', () => {
    const g = guild({ settings: { graceDays: 14 } });
    expect(run({ guild: g, members: declined, ...held, now: new Date(charged.getTime() + 7 * DAY) }).plan.changes).toEqual([]);
  });
});

describe('plan: former-patron and follower roles', () => {
  const withRoles = guild({ settings: { formerPatronRoleId: ROLE.former, followerRoleId: ROLE.follower } });

  test('GIVEN a former patron THEN Gold goes and the former-patron role comes', () => {
    const r = run({
      guild: withRoles,
      members: [member({ patronStatus: 'former_patron', entitledTierIds: [] })],
      current: [ROLE.gold],
      ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold]),
    });
    expect(ops(r)).toEqual(['add Alumni', 'remove Gold']);
    expect(r.plan.changes[0]).toMatchObject({ grant: { kind: 'former', tierId: null } });
  });

  test('GIVEN a declined patron past the grace THEN the former-patron role comes too', () => {
    const m = member({ patronStatus: 'declined_patron', lastChargeStatus: 'Declined', lastChargeDate: new Date(NOW.getTime() - 30 * DAY) });
    expect(ops(run({ guild: withRoles, members: [m] }))).toEqual(['add Alumni']);
  });

  test('GIVEN a former patron pledges again THEN the former-patron role we granted goes', () => {
    const r = run({ guild: withRoles, current: [ROLE.former], ledger: ledger([ROLE.former, CAMPAIGN, null, 'former']) });
    expect(ops(r)).toEqual(['add Gold', 'remove Alumni']);
    expect(r.plan.changes[1]!.reason).toContain('pledging again');
  });

  test('GIVEN a follower who never pledged THEN the follower role', () => {
    const r = run({ guild: withRoles, members: [member({ patronStatus: null, isFollower: true, entitledTierIds: [] })] });
    expect(r.plan.changes).toMatchObject([{ op: 'add', roleId: ROLE.follower, grant: { kind: 'follower' } }]);
  });

  test('GIVEN the former-patron role setting changed THEN the old one we granted is removed', () => {
    const r = run({
      guild: guild({ settings: { formerPatronRoleId: ROLE.bronze } }),
      members: [member({ patronStatus: 'former_patron', entitledTierIds: [] })],
      current: [ROLE.former],
      ledger: ledger([ROLE.former, CAMPAIGN, null, 'former']),
    });
    expect(ops(r)).toEqual(['add Bronze', 'remove Alumni']);
    expect(r.plan.changes[1]!.reason).toContain('no longer');
  });
});

describe('plan: two campaigns on one server', () => {
  const two = guild({ campaignIds: [CAMPAIGN, OTHER_CAMPAIGN] });
  const artMember = member({ campaignId: OTHER_CAMPAIGN, entitledTierIds: [TIER.art] });

  test('GIVEN a patron of both THEN roles of both', () => {
    expect(ops(run({ guild: two, members: [member(), artMember] }))).toEqual(['add Gold', 'add Art']);
  });

  test('GIVEN the pledge to one ends THEN only its role goes', () => {
    const r = run({
      guild: two,
      members: [member(), member({ campaignId: OTHER_CAMPAIGN, patronStatus: 'former_patron', entitledTierIds: [] })],
      current: [ROLE.gold, ROLE.art],
      ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold], [ROLE.art, OTHER_CAMPAIGN, TIER.art]),
    });
    expect(ops(r)).toEqual(['remove Art']);
  });

  test('GIVEN both campaigns map the same role and one pledge ends THEN the role stays', () => {
    const g = guild({
      campaignIds: [CAMPAIGN, OTHER_CAMPAIGN],
      mappings: [{ campaignId: OTHER_CAMPAIGN, tierId: TIER.art, roleId: ROLE.gold }],
    });
    const r = run({
      guild: g,
      members: [member(), member({ campaignId: OTHER_CAMPAIGN, patronStatus: 'former_patron', entitledTierIds: [] })],
      current: [ROLE.gold],
      ledger: ledger([ROLE.gold, OTHER_CAMPAIGN, TIER.art]),
    });
    expect(r.plan.changes).toEqual([]);
  });

  test('GIVEN a campaign the server no longer serves THEN its roles we granted go', () => {
    const r = run({
      current: [ROLE.gold, ROLE.art],
      ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold], [ROLE.art, OTHER_CAMPAIGN, TIER.art]),
    });
    expect(r.plan.changes).toMatchObject([{ op: 'remove', roleId: ROLE.art, reason: 'this server no longer serves that campaign' }]);
  });
});

describe('shouldHoldRemovals: more than 10% of grants and at least 25 (defaults)', () => {
  const defaults = { removalThresholdPercent: 10, removalThresholdMin: 25 };
  test.each([
    [24, 100, false],
    [25, 100, true],
    [25, 1000, false],
    [100, 1000, false],
    [101, 1000, true],
    [0, 0, false],
    [30, 0, true],
  ])('GIVEN %i removals of %i grants THEN hold=%s', (removals, grants, hold) => {
    const result = shouldHoldRemovals(removals, grants, defaults);
    expect(result.hold).toBe(hold);
    expect(result.reason === null).toBe(!hold);
  });
});

describe('a grant recorded moments ago may still be on its way to Discord', () => {
  const former = [member({ patronStatus: 'former_patron', entitledTierIds: [] })];

  test('GIVEN a fresh ledger row for a role the member lacks and no longer needs THEN nothing is planned for it yet', () => {
    const r = run({
      members: former,
      current: [],
      ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold, 'tier', new Date(NOW.getTime() - MINUTE)]),
    });
    expect(ops(r)).toEqual([]);
  });

  test('GIVEN the same row older than the in-flight window THEN the row is forgotten', () => {
    const r = run({
      members: former,
      current: [],
      ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold, 'tier', new Date(NOW.getTime() - 11 * MINUTE)]),
    });
    expect(ops(r)).toEqual(['forget Gold']);
  });

  test('GIVEN a fresh row and the member holds the role THEN it is removed at once', () => {
    const r = run({
      members: former,
      current: [ROLE.gold],
      ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold, 'tier', new Date(NOW.getTime() - MINUTE)]),
    });
    expect(ops(r)).toEqual(['remove Gold']);
  });

  test('GIVEN a fresh row for a role deleted from the server THEN the row is forgotten at once (no grant of it can land)', () => {
    const r = run({
      members: former,
      current: [],
      ledger: ledger(['999999999999999999', CAMPAIGN, TIER.gold, 'tier', new Date(NOW.getTime() - MINUTE)]),
    });
    expect(r.plan.changes.map((c) => c.op)).toEqual(['forget']);
  });
});

describe('plan: unconfirmed member state (a webhook payload after a failed re-read)', () => {
  test('GIVEN an unconfirmed active Gold state and no role THEN nothing is granted', () => {
    expect(run({ members: [member({ unconfirmed: true })] }).plan.changes).toEqual([]);
  });

  test('GIVEN an unconfirmed active Gold state and Gold held THEN Gold is kept', () => {
    expect(
      run({ members: [member({ unconfirmed: true })], current: [ROLE.gold], ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold]) }).plan
        .changes,
    ).toEqual([]);
  });

  test('GIVEN an unconfirmed former state THEN the role we granted is removed', () => {
    const r = run({
      members: [member({ patronStatus: 'former_patron', entitledTierIds: [], unconfirmed: true })],
      current: [ROLE.gold],
      ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold]),
    });
    expect(ops(r)).toEqual(['remove Gold']);
  });

  test('GIVEN an unconfirmed downgrade from Gold to Silver THEN Gold goes and Silver waits for a read', () => {
    const r = run({
      members: [member({ entitledTierIds: [TIER.silver], unconfirmed: true })],
      current: [ROLE.gold],
      ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold]),
    });
    expect(ops(r)).toEqual(['remove Gold']);
  });

  test('GIVEN one campaign unconfirmed and another confirmed THEN the confirmed one still grants', () => {
    const r = run({
      guild: guild({ campaignIds: [CAMPAIGN, OTHER_CAMPAIGN] }),
      members: [member({ unconfirmed: true }), member({ campaignId: OTHER_CAMPAIGN, entitledTierIds: [TIER.art] })],
    });
    expect(ops(r)).toEqual(['add Art']);
  });
});

describe('plan: a role held back for its dangerous permissions', () => {
  const HELD = {
    message: 'Gold is held back: it has the Administrator permission…',
    fix: 'Allow it with /allow-role.',
    permissions: ['Administrator'],
    gained: false,
  };
  const heldGold = () => {
    const g = guild();
    const roles = new Map(g.roles);
    roles.set(ROLE.gold, { ...roles.get(ROLE.gold)!, dangerous: true, heldBack: HELD });
    return { ...g, roles };
  };

  test('GIVEN Gold is held back THEN an entitled patron is not given it: the add is blocked with why and the fix', () => {
    const r = run({ guild: heldGold() });
    expect(r.plan.changes).toEqual([]);
    expect(r.plan.blocked).toEqual([
      {
        op: 'add',
        roleId: ROLE.gold,
        roleName: 'Gold',
        reason: 'Gold tier (active patron)',
        why: { code: 'tier', tier: 'Gold', standing: { kind: 'active', basis: 'pledge', graceEndsAt: null } },
        problem: { message: HELD.message, fix: HELD.fix },
      },
    ]);
  });

  test('GIVEN Gold is held back and we granted it before THEN the member keeps it while entitled, and loses it when the pledge ends', () => {
    expect(run({ guild: heldGold(), current: [ROLE.gold], ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold]) }).plan.changes).toEqual([]);
    const ended = run({
      guild: heldGold(),
      members: [member({ patronStatus: 'former_patron', entitledTierIds: [] })],
      current: [ROLE.gold],
      ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold]),
    });
    expect(ops(ended)).toEqual(['remove Gold']);
    expect(ended.plan.blocked).toEqual([]);
  });
});
