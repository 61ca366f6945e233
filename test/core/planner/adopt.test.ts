import { adoptions, planUser } from '../../../src/core/planner';
import type { LedgerEntry, MemberState } from '../../../src/core/planner';
import { CAMPAIGN, NOW, ROLE, TIER, USER, guild, ledger, member } from './fixtures';

/** What adopting would record for a member holding `held`, with `members` and `ours` in the ledger. */
function adopt(held: string[], members: MemberState[], ours: LedgerEntry[] = [], g = guild()) {
  const current = new Set(held);
  const planned = planUser({ guild: g, userId: USER, members, currentRoleIds: current, ledger: ours, now: NOW });
  return { adopted: adoptions(planned.desired, current, ours), changes: planned.plan.changes };
}

describe('adoptions: the roles an entitled member already holds that are not ours yet', () => {
  test('an active Gold patron holding Gold by hand: Gold is adopted, with the tier, and no request is planned', () => {
    const { adopted, changes } = adopt([ROLE.gold, ROLE.staff], [member()]);
    expect(changes).toEqual([]);
    expect(adopted).toEqual([
      {
        roleId: ROLE.gold,
        roleName: 'Gold',
        grant: { campaignId: CAMPAIGN, tierId: TIER.gold, kind: 'tier', sources: ['patreon'] },
        reason: 'already held; adopted as Gold tier (active patron)',
        why: { code: 'adopted', as: { code: 'tier', tier: 'Gold', standing: { kind: 'active', basis: 'pledge', graceEndsAt: null } } },
      },
    ]);
  });

  test.each<[string, string[], MemberState[], LedgerEntry[]]>([
    ['a role already in the ledger', [ROLE.gold], [member()], ledger([ROLE.gold, CAMPAIGN, TIER.gold])],
    ['a patron who lacks the role (it is granted, not adopted)', [], [member()], []],
    ['a role the member holds but is not entitled to', [ROLE.silver], [member()], []],
    ['a former patron holding the role', [ROLE.gold], [member({ patronStatus: 'former_patron', entitledTierIds: [] })], []],
    [
      'a member whose read could not be understood',
      [ROLE.gold],
      [member({ unreadable: { attribute: 'patron_status', reason: 'is "x"' } })],
      [],
    ],
    ['an unlinked member (no membership)', [ROLE.gold], [], []],
  ])('nothing for %s', (_label, held, members, ours) => {
    expect(adopt(held, members, ours).adopted).toEqual([]);
  });

  test('a patron in the grace period is still entitled: the kept role is adopted', () => {
    const declined = member({
      patronStatus: 'declined_patron',
      lastChargeStatus: 'Declined',
      lastChargeDate: new Date(NOW.getTime() - 2 * 86_400_000),
      entitledTierIds: [],
      lastActiveTierIds: [TIER.gold],
    });
    expect(adopt([ROLE.gold], [declined]).adopted.map((a) => a.roleId)).toEqual([ROLE.gold]);
  });

  test('only tier roles: the follower role a member holds stays the server’s own', () => {
    const g = guild({ settings: { followerRoleId: ROLE.follower } });
    const follower = member({ patronStatus: null, isFollower: true, entitledTierIds: [], lastChargeStatus: null });
    expect(adopt([ROLE.follower], [follower], [], g).adopted).toEqual([]);
  });
});
