import type { OddValue } from '../../../../src/edges/outbound/patreon/attribute-reader';
import { PatreonApiError } from '../../../../src/edges/outbound/patreon';
import { memberFields, untitledTier } from '../../../../src/edges/outbound/patreon/resources';
import { UNPACED_PATREON, raisedPatreon } from '../../../support/raised-limits';
import { type Harness, listAll, startHarness } from './harness';

/**
 * Read only what is needed, tolerate what is odd: nothing Patreon marks deprecated is asked for
 * (`is_follower`, `lifetime_support_cents`: docs/patreon-api-notes.md §1.1), and a null or missing
 * label on an included resource (a tier's title, a user's name) never fails a member page or a
 * member read: the member stays readable and the odd value is told to `onOddValue`. A value that
 * decides roles (a tier's amount) odd makes only the members entitled to it unreadable.
 */
const ROLE = '123456789012345678';
let h: Harness;
let odd: OddValue[];
afterEach(() => h.close());

async function start(dialect: 'spec' | 'patreon') {
  odd = [];
  h = await startHarness({
    sandbox: { dialect, ...raisedPatreon('these checks read a few pages on a frozen clock; the claim is about their content') },
    budgetLimits: UNPACED_PATREON,
    storedDialect: dialect,
    onOddValue: (value) => odd.push(value),
  });
  const tier = (title: string, amountCents: number) =>
    h.sb.createTier(h.sb.campaignId, {
      title,
      amountCents,
      ...(dialect === 'patreon' ? { discordRoleIds: [ROLE] } : { chatRoleIds: [ROLE] }),
    }).id;
  const gold = tier('Gold', 1000);
  const silver = tier('Silver', 500);
  let n = 10;
  const patron = (name: string, tierId: string) => {
    const user = h.sb.createUser({ fullName: name, discordUserId: `32345678901234567${n++}` });
    return h.sb.setMembership(
      user.id,
      h.sb.campaignId,
      { tierIds: [tierId], patronStatus: 'active_patron', lastChargeStatus: 'Paid', lastChargeDate: '2026-11-01T00:00:00Z' },
      { deliver: false },
    );
  };
  return { gold, silver, patron };
}

test("Patreon's dialect asks for no deprecated attribute: members list and read the day Patreon drops is_follower and lifetime_support_cents", async () => {
  const { gold, patron } = await start('patreon');
  expect(memberFields('patreon')).not.toEqual(expect.arrayContaining(['is_follower']));
  const pat = patron('Pat', gold);
  h.sb.retireAttributes('member', ['is_follower', 'lifetime_support_cents']);
  const { ids } = await listAll(h.client, h.sb.campaignId);
  expect(ids).toContain(pat.id);
  const read = await h.client.getMember(pat.id);
  expect(read?.member).toMatchObject({ id: pat.id, patronStatus: 'active_patron', isFollower: false, entitledTierIds: [gold] });
  for (const request of h.sb.requests()) {
    const asked = request.query['fields[member]']?.split(',') ?? [];
    expect(asked).not.toContain('is_follower');
    expect(asked).not.toContain('lifetime_support_cents');
  }
  expect(h.sb.requests().every((r) => r.status === 200)).toBe(true);
});

test("the spec's dialect still asks for is_follower; a member served without it reads as no follower", async () => {
  const { gold, patron } = await start('spec');
  const pat = patron('Pat', gold);
  h.sb.omitAttributes('member', pat.id, ['is_follower']);
  const read = await h.client.getMember(pat.id);
  expect(read?.member).toMatchObject({ id: pat.id, isFollower: false, patronStatus: 'active_patron' });
  expect(h.sb.requests().at(-1)?.query['fields[member]']?.split(',')).toContain('is_follower');
});

test.each(['spec', 'patreon'] as const)(
  'a page with a tier whose title is null and users whose name is null or missing reads whole; the odd values are told (%s dialect)',
  async (dialect) => {
    const { gold, silver, patron } = await start(dialect);
    const members = [patron('Ann', gold), patron('Bo', silver), patron('Cy', gold)];
    h.sb.overrideAttributes('tier', gold, { title: null });
    h.sb.overrideAttributes('user', members[1]!.userId, { full_name: null });
    h.sb.omitAttributes('user', members[2]!.userId, ['full_name']);
    h.sb.overrideMemberAttributes(members[2]!.id, { full_name: null });

    let pages = 0;
    const read: string[] = [];
    const tiers = new Map<string, string>();
    for await (const page of h.client.listMembers(h.sb.campaignId)) {
      pages += 1;
      expect(page.unreadable).toEqual([]);
      read.push(...page.members.map((m) => m.id));
      for (const t of page.tiers) tiers.set(t.id, t.title);
    }
    expect(pages).toBe(1);
    expect(read.sort()).toEqual(members.map((m) => m.id).sort());
    expect(tiers.get(gold)).toBe(untitledTier(gold));
    expect(tiers.get(silver)).toBe('Silver');
    expect(odd).toEqual(
      expect.arrayContaining([
        { type: 'tier', id: gold, attribute: 'title', found: 'null' },
        { type: 'user', id: members[1]!.userId, attribute: 'full_name', found: 'null' },
        { type: 'user', id: members[2]!.userId, attribute: 'full_name', found: 'missing' },
        { type: 'member', id: members[2]!.id, attribute: 'full_name', found: 'null' },
      ]),
    );

    // A webhook's re-read of the same member reads too.
    const one = await h.client.getMember(members[0]!.id);
    expect(one?.tiers).toEqual([expect.objectContaining({ id: gold, title: untitledTier(gold) })]);
  },
);

test('a tier whose amount is null makes only its members unreadable: the page completes, the others read, a read of one of them says why', async () => {
  const { gold, silver, patron } = await start('spec');
  const [ann, bo] = [patron('Ann', gold), patron('Bo', silver)];
  h.sb.overrideAttributes('tier', gold, { amount_cents: null });
  const pages = [];
  for await (const page of h.client.listMembers(h.sb.campaignId)) pages.push(page);
  expect(pages.flatMap((p) => p.members.map((m) => m.id))).toEqual([bo.id]);
  expect(pages.flatMap((p) => p.unreadable)).toEqual([
    expect.objectContaining({ memberId: ann.id, attribute: 'currently_entitled_tiers', reason: expect.stringContaining(`tier ${gold}`) }),
  ]);
  const failure = await h.client.getMember(ann.id).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(PatreonApiError);
  expect(failure).toMatchObject({ kind: 'invalid_response', unreadable: { memberId: ann.id, attribute: 'currently_entitled_tiers' } });
});
