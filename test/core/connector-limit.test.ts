import { aboveConnector, withConnectorLimits } from '../../src/core/connector-limit';
import { planUser } from '../../src/core/planner';
import type { GuildTier } from '../../src/core/planner';
import { refusalWords } from '../../src/core/refusal-text';
import { translator } from '../../src/core/i18n';
import type { HierarchyRole } from '../../src/core/role-hierarchy';
import { CAMPAIGN, GUILD, NOW, OTHER_CAMPAIGN, ROLE, TIER, USER, guild, ledger, member, tiers } from './planner/fixtures';

/** The guild's roles by position: Bronze 1, Silver 2, Head Admin 3 (the connector's), Gold 4, Gold Extra 4 (an older id, so above Gold). */
const HEAD_ADMIN = '300000000000000050';
const role = (id: string, name: string, position: number): HierarchyRole => ({ id, name, position, permissions: '0', managed: false });
const ROLES: HierarchyRole[] = [
  role(GUILD, '@everyone', 0),
  role(ROLE.bronze, 'Bronze', 1),
  role(ROLE.silver, 'Silver', 2),
  role(HEAD_ADMIN, 'Head Admin', 3),
  role(ROLE.gold, 'Gold', 4),
  role(ROLE.goldExtra, 'Gold Extra', 4),
  role(ROLE.art, 'Art', 9),
];
const connectedBy = (roleId: string) => new Map([[CAMPAIGN, roleId]]);
const heldOf = (limited: GuildTier[], tierId: string) => [...(limited.find((t) => t.tierId === tierId)?.held?.keys() ?? [])];

describe('aboveConnector', () => {
  test('a role below the connector’s highest role is not held', () => {
    expect(aboveConnector(ROLES[2]!, ROLES[3])).toBeNull();
  });

  test('the connector’s own highest role, and a role above it, are held with the connector’s role named', () => {
    expect(aboveConnector(ROLES[3]!, ROLES[3])?.facts).toEqual({
      code: 'above_connector',
      roleName: 'Head Admin',
      highestName: 'Head Admin',
    });
    const held = aboveConnector(ROLES[4]!, ROLES[3])!;
    expect(held.message).toBe(
      'Gold is held back: it is at or above Head Admin, the highest role of whoever connected this campaign, and Discord lets them ' +
        'give only roles below their own.',
    );
    expect(held.fix).toMatch(
      /^The server owner, or someone whose highest role is above Gold, can allow it with \/allow-role role:@Gold, connect/,
    );
  });

  test('equal positions are ordered as Discord orders them: the older id is above', () => {
    // Gold Extra (…04) and Gold (…03) share position 4: Gold, the older id, ranks above Gold Extra.
    expect(aboveConnector(ROLES[5]!, ROLES[4])).toBeNull();
    expect(aboveConnector(ROLES[4]!, ROLES[5])).not.toBeNull();
  });

  test('a deleted connector role holds every role: Tierlink cannot tell what they could give', () => {
    const held = aboveConnector(ROLES[1]!, undefined)!;
    expect(held.facts).toEqual({ code: 'above_connector', roleName: 'Bronze', highestName: null });
    expect(held.message).toBe(
      'Bronze is held back: the highest role of whoever connected this campaign no longer exists, so Tierlink cannot tell ' +
        'whether they could give it.',
    );
  });

  test('the words in German and Brazilian Portuguese come from the facts', () => {
    const held = aboveConnector(ROLES[4]!, ROLES[3])!;
    expect(refusalWords(translator('de'), held).message).toBe(
      'Gold wird zurückgehalten: Sie liegt auf oder über Head Admin, der höchsten Rolle der Person, die diese Kampagne verbunden ' +
        'hat, und Discord lässt sie nur Rollen unter ihrer eigenen vergeben.',
    );
    expect(refusalWords(translator('pt-BR'), aboveConnector(ROLES[1]!, undefined)!).message).toMatch(
      /^Bronze está retido: o cargo mais alto de quem conectou esta campanha não existe mais/,
    );
  });
});

describe('withConnectorLimits', () => {
  test('a campaign without a connector’s role (the owner or the operator connected it) is not limited', () => {
    expect(withConnectorLimits(tiers(), [], ROLES, new Map())).toEqual(tiers());
  });

  test('only the connected campaign’s tiers are limited, and only their roles at or above the connector’s', () => {
    const limited = withConnectorLimits(tiers(), [], ROLES, connectedBy(HEAD_ADMIN));
    expect(heldOf(limited, TIER.bronze)).toEqual([]);
    expect(heldOf(limited, TIER.silver)).toEqual([]);
    expect(heldOf(limited, TIER.gold)).toEqual([ROLE.gold]);
    expect(heldOf(limited, TIER.gold2)).toEqual([ROLE.goldExtra]);
    // Art is above Head Admin, but its campaign was connected by someone else.
    expect(heldOf(limited, TIER.art)).toEqual([]);
  });

  test('a /map row for the same tier and role lifts it; one for another tier does not', () => {
    const limited = withConnectorLimits(
      tiers(),
      [
        { campaignId: CAMPAIGN, tierId: TIER.gold, roleId: ROLE.gold },
        { campaignId: CAMPAIGN, tierId: TIER.silver, roleId: ROLE.goldExtra },
      ],
      ROLES,
      connectedBy(HEAD_ADMIN),
    );
    expect(heldOf(limited, TIER.gold)).toEqual([]);
    expect(heldOf(limited, TIER.gold2)).toEqual([ROLE.goldExtra]);
  });

  test('a role allowed by name (/allow-role, by someone who may give it) is not held', () => {
    const limited = withConnectorLimits(tiers(), [], ROLES, connectedBy(HEAD_ADMIN), new Set([ROLE.gold]));
    expect(heldOf(limited, TIER.gold)).toEqual([]);
    expect(heldOf(limited, TIER.gold2)).toEqual([ROLE.goldExtra]);
  });

  test('the connector’s role deleted: every role its tiers name is held', () => {
    const limited = withConnectorLimits(tiers(), [], ROLES, connectedBy('300000000000000099'));
    expect(heldOf(limited, TIER.bronze)).toEqual([ROLE.bronze]);
    expect(heldOf(limited, TIER.art)).toEqual([]);
  });
});

describe('plan: a tier role above its campaign’s connector', () => {
  const limitedGuild = (overrides: Parameters<typeof guild>[0] = {}) => {
    const g = guild(overrides);
    return { ...g, tiers: withConnectorLimits(g.tiers, g.mappings, ROLES, connectedBy(HEAD_ADMIN)) };
  };
  const run = (opts: {
    members?: ReturnType<typeof member>[];
    current?: string[];
    ledger?: ReturnType<typeof ledger>;
    g?: ReturnType<typeof guild>;
  }) =>
    planUser({
      guild: opts.g ?? limitedGuild(),
      userId: USER,
      members: opts.members ?? [member()],
      currentRoleIds: new Set(opts.current ?? []),
      ledger: opts.ledger ?? [],
      now: NOW,
    });

  test('a Gold patron is not given Gold: the add is blocked with the reason and its facts', () => {
    const r = run({});
    expect(r.plan.changes).toEqual([]);
    expect(r.plan.blocked).toHaveLength(1);
    expect(r.plan.blocked[0]).toMatchObject({
      op: 'add',
      roleId: ROLE.gold,
      problem: { facts: { code: 'above_connector', roleName: 'Gold', highestName: 'Head Admin' } },
    });
  });

  test('a Silver patron is given Silver, below the connector', () => {
    const r = run({ members: [member({ entitledTierIds: [TIER.silver] })] });
    expect(r.plan.changes.map((c) => `${c.op} ${c.roleName}`)).toEqual(['add Silver']);
    expect(r.plan.blocked).toEqual([]);
  });

  test('Gold granted before keeps while entitled, and goes when the pledge ends', () => {
    const granted = ledger([ROLE.gold, CAMPAIGN, TIER.gold]);
    expect(run({ current: [ROLE.gold], ledger: granted }).plan.changes).toEqual([]);
    const ended = run({ members: [member({ patronStatus: 'former_patron', entitledTierIds: [] })], current: [ROLE.gold], ledger: granted });
    expect(ended.plan.changes.map((c) => `${c.op} ${c.roleName}`)).toEqual(['remove Gold']);
  });

  test('Gold named also by a tier of a campaign without that limit is given', () => {
    const g = guild({ campaignIds: [CAMPAIGN, OTHER_CAMPAIGN] });
    const withArtGold = g.tiers.map((t) => (t.tierId === TIER.art ? { ...t, roleIds: [ROLE.gold] } : t));
    const r = run({
      g: { ...g, tiers: withConnectorLimits(withArtGold, [], ROLES, connectedBy(HEAD_ADMIN)) },
      members: [member(), member({ campaignId: OTHER_CAMPAIGN, entitledTierIds: [TIER.art] })],
    });
    expect(r.plan.changes.map((c) => `${c.op} ${c.roleName}`)).toEqual(['add Gold']);
    expect(r.plan.blocked).toEqual([]);
  });
});
