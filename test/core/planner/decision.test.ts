import { isDeepStrictEqual } from 'node:util';
import { type PlanUserInput, UNLINKED_REASONS, adoptable, adoptions, decideUser, planUser } from '../../../src/core/planner';
import type { DesiredRoles, GuildContext, LedgerEntry, MemberState, RoleChange } from '../../../src/core/planner';
import { CAMPAIGN, FREE_TIER, NOW, OTHER_CAMPAIGN, ROLE, TIER, USER, guild, ledger, member, state, tiers } from './fixtures';

/**
 * The full sync plans every member without the words (`decideUser`) and words only those whose plan
 * does something (`planUser`). Both run the same planner; this table plans every case both ways and
 * fails on any difference in what is decided: the grants, the changes, the blocked changes, the
 * adoptions, the entitlements.
 */

const DAY = 86_400_000;
const ago = (days: number) => new Date(NOW.getTime() - days * DAY);

const STATES: Array<[string, MemberState[]]> = [
  ['no source knows them', []],
  ['an active patron of Gold', [member()]],
  ['an active patron of Bronze and Silver', [member({ entitledTierIds: [TIER.bronze, TIER.silver] })]],
  [
    'a declined payment inside the grace period',
    [member({ lastChargeStatus: 'Declined', lastChargeDate: ago(2), firstDeclinedAt: ago(2), entitledTierIds: [] })],
  ],
  [
    'a declined payment past the grace period',
    [member({ lastChargeStatus: 'Declined', lastChargeDate: ago(40), firstDeclinedAt: ago(40), entitledTierIds: [] })],
  ],
  ['a former patron', [member({ patronStatus: 'former_patron', entitledTierIds: [], lastChargeDate: ago(60) })]],
  ['a follower', [member({ patronStatus: null, isFollower: true, entitledTierIds: [], lastChargeStatus: null, lastChargeDate: null })]],
  ['a free member', [member({ entitledTierIds: [TIER.free], lastChargeStatus: null, lastChargeDate: null })]],
  ['an unreadable member', [state({ unreadable: { attribute: 'patron_status', reason: 'unknown value' }, detail: 'unreadable' })]],
  ['an unconfirmed payload of Gold', [state({ unconfirmed: true })]],
  [
    'a comp of Silver until next month',
    [state({ source: 'comp', basis: 'comp', tierIds: [TIER.silver], until: new Date(NOW.getTime() + 20 * DAY) })],
  ],
  ['a comp that ended', [state({ source: 'comp', basis: 'comp', tierIds: [TIER.silver], until: ago(3) })]],
  ['Gold on Patreon and a Gold comp', [member(), state({ source: 'comp', basis: 'comp' })]],
  [
    'a long patron of 12.00 a month, and of Art Club',
    [
      state({ since: ago(400), amount: { cents: 1200, currency: 'USD' } }),
      state({ campaignId: OTHER_CAMPAIGN, tierIds: [TIER.art], since: ago(40), amount: { cents: 400, currency: 'USD' } }),
    ],
  ],
];

const HELD_BACK = {
  message: 'Staff can ban members',
  fix: 'Allow it',
  permissions: ['BanMembers'],
  gained: false,
};

const GUILDS: Array<[string, () => GuildContext]> = [
  ['stack', () => guild()],
  ['highest', () => guild({ settings: { mode: 'highest' } })],
  [
    'strict, with former and follower roles',
    () => guild({ settings: { strict: true, formerPatronRoleId: ROLE.former, followerRoleId: ROLE.follower } }),
  ],
  [
    'free tiers granting no role, joiner role',
    () =>
      guild({
        tiers: [...tiers(), FREE_TIER],
        settings: { freeTiersGrantRoles: false, followerRoleId: ROLE.follower, joinerRoleId: ROLE.staff },
      }),
  ],
  [
    'two campaigns, rule roles, a mapped role above the bot and one missing',
    () =>
      guild({
        campaignIds: [CAMPAIGN, OTHER_CAMPAIGN],
        tiers: [...tiers(), FREE_TIER],
        mappings: [
          { campaignId: CAMPAIGN, tierId: TIER.gold, roleId: ROLE.aboveBot },
          { campaignId: CAMPAIGN, tierId: TIER.silver, roleId: ROLE.ghost },
          { campaignId: OTHER_CAMPAIGN, tierId: TIER.art, roleId: ROLE.gold },
        ],
        ruleRoles: [
          { kind: 'tenure', roleId: ROLE.staff, months: 6 },
          { kind: 'amount', roleId: ROLE.follower, cents: 1000 },
          { kind: 'amount', roleId: ROLE.ghost, cents: 100 },
        ],
      }),
  ],
  [
    'strict, a held-back tier role, a campaign no longer served',
    () => {
      const g = guild({ settings: { strict: true, formerPatronRoleId: ROLE.former }, campaignIds: [OTHER_CAMPAIGN] });
      const roles = new Map(g.roles);
      roles.set(ROLE.art, { ...roles.get(ROLE.art)!, heldBack: HELD_BACK, dangerous: true });
      return { ...g, roles };
    },
  ],
];

const CURRENT: string[][] = [
  [],
  [ROLE.gold],
  [ROLE.bronze, ROLE.silver, ROLE.staff],
  [ROLE.former, ROLE.follower, ROLE.art],
  [ROLE.aboveBot, ROLE.free],
];

const LEDGERS: Array<[string, LedgerEntry[]]> = [
  ['none', []],
  ['Gold', ledger([ROLE.gold, CAMPAIGN, TIER.gold])],
  [
    'Bronze, the former-patron role, a follower grant',
    ledger([ROLE.bronze, CAMPAIGN, TIER.bronze], [ROLE.former, CAMPAIGN, null, 'former'], [ROLE.follower, CAMPAIGN, null, 'follower']),
  ],
  [
    'a deleted role, Art Club, a joiner grant, a role above the bot',
    ledger(
      [ROLE.ghost, CAMPAIGN, TIER.silver],
      [ROLE.art, OTHER_CAMPAIGN, TIER.art],
      [ROLE.staff, null, null, 'joiner'],
      [ROLE.aboveBot, CAMPAIGN, TIER.gold],
    ),
  ],
  [
    'Silver just recorded, tenure and amount grants',
    ledger(
      [ROLE.silver, CAMPAIGN, TIER.silver, 'tier', ago(0.001)],
      [ROLE.staff, null, null, 'tenure'],
      [ROLE.follower, null, null, 'amount'],
    ),
  ],
];

/** A worded value without its words: what the decision must equal. */
function unworded<T extends object>(value: T): Omit<T, 'reason' | 'why'> {
  const { reason: _reason, why: _why, ...rest } = value as T & { reason?: string; why?: unknown };
  return rest;
}

function withoutWords<T extends object>(grant: T): object {
  const { alsoBecause: _a, alsoWhy: _w, ...rest } = unworded(grant) as T & { alsoBecause?: unknown; alsoWhy?: unknown };
  return rest;
}

function decidedOf(input: PlanUserInput) {
  const d = decideUser(input);
  return {
    entitlements: d.entitlements,
    // Whatever a decision's values hold under the names its types leave out is not compared.
    grants: [...d.desired.grants.values()].map((g) => withoutWords(g)),
    changes: d.plan.changes.map((c) => unworded(c)),
    blocked: d.plan.blocked.map((b) => unworded(b)),
    adopted: adoptable(d.desired, input.currentRoleIds, input.ledger).map((g) => g.roleId),
  };
}

function wordedOf(input: PlanUserInput) {
  const p = planUser(input);
  return {
    entitlements: p.entitlements,
    grants: [...p.desired.grants.values()].map((g) => withoutWords(g)),
    changes: p.plan.changes.map((c: RoleChange) => unworded(c)),
    blocked: p.plan.blocked.map((b) => unworded(b)),
    adopted: adoptions(p.desired, input.currentRoleIds, input.ledger).map((a) => a.roleId),
  };
}

describe('a decision without the words and the worded plan agree (table)', () => {
  const cases: Array<{ name: string; input: PlanUserInput }> = [];
  for (const [stateName, members] of STATES)
    for (const [guildName, makeGuild] of GUILDS)
      for (const current of CURRENT)
        for (const [ledgerName, rows] of LEDGERS)
          for (const unlinked of [false, true])
            for (const joining of [false, true])
              cases.push({
                name: `${stateName}; ${guildName}; holding [${current.join(', ')}]; ledger ${ledgerName}${unlinked ? '; unlinked' : ''}${joining ? '; joining' : ''}`,
                input: {
                  guild: makeGuild(),
                  userId: USER,
                  members,
                  currentRoleIds: new Set(current),
                  ledger: rows,
                  now: NOW,
                  ...(unlinked ? { unlinkedReason: UNLINKED_REASONS.notLinked } : {}),
                  ...(joining ? { joining: true } : {}),
                },
              });

  test(`${cases.length} cases decide the same both ways`, () => {
    const differ: string[] = [];
    for (const { name, input } of cases) {
      if (!isDeepStrictEqual(decidedOf(input), wordedOf(input))) differ.push(name);
    }
    expect(differ).toEqual([]);
  });

  test('the table reaches every kind of decision, so agreeing means something', () => {
    const seen = new Set<string>();
    for (const { input } of cases) {
      const p = planUser(input);
      for (const c of p.plan.changes) seen.add(c.op === 'remove' ? `remove (${c.basis})` : c.op);
      for (const b of p.plan.blocked) seen.add(`blocked ${b.op}`);
      for (const g of p.desired.grants.values()) {
        seen.add(`grant ${g.kind}`);
        if (g.alsoBecause.length > 0) seen.add('grant for two reasons');
        if (!g.confirmed) seen.add('unconfirmed grant');
      }
      if (adoptions(p.desired, input.currentRoleIds, input.ledger).length > 0) seen.add('adoption');
    }
    expect([...seen].sort()).toEqual(
      [
        'add',
        'adoption',
        'blocked add',
        'blocked remove',
        'forget',
        'grant amount',
        'grant follower',
        'grant for two reasons',
        'grant former',
        'grant joiner',
        'grant tenure',
        'grant tier',
        'remove (ledger)',
        'remove (strict)',
        'unconfirmed grant',
      ].sort(),
    );
  });
});

describe('a decision leaves the words out', () => {
  const input: PlanUserInput = {
    guild: guild({ settings: { strict: true } }),
    userId: USER,
    members: [member({ entitledTierIds: [TIER.bronze] })],
    currentRoleIds: new Set([ROLE.silver, ROLE.gold]),
    ledger: ledger([ROLE.gold, CAMPAIGN, TIER.gold]),
    now: NOW,
  };

  test('no note of the roles not granted, no sentence, where the worded plan has them', () => {
    const worded = planUser(input);
    expect(worded.desired.notes.length).toBeGreaterThan(0);
    expect(worded.plan.changes.every((c) => c.reason.length > 0)).toBe(true);

    const decided = decideUser(input);
    // The decision's types hide the words; the values underneath hold none either.
    expect((decided.desired as DesiredRoles).notes).toEqual([]);
    expect(decided.plan.changes.map((c) => (c as RoleChange).reason)).toEqual(['', '', '']);
    expect(decided.plan.changes.map((c) => `${c.op} ${c.roleName}`)).toEqual(['add Bronze', 'remove Gold', 'remove Silver']);
  });
});
