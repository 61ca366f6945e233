import { parsePatreonDelivery } from '../../../../src/edges/outbound/patreon/delivery-parser';

/** A stored member delivery's body, as the inbox holds it (text). */
function memberBody(attributes: Record<string, unknown> = {}, campaign: unknown = { data: { type: 'campaign', id: '5000001' } }): string {
  return JSON.stringify({
    data: {
      type: 'member',
      id: 'm-1',
      attributes: {
        currently_entitled_amount_cents: 500,
        is_follower: false,
        last_charge_date: '2026-11-01T10:00:00.000+00:00',
        last_charge_status: 'Paid',
        patron_status: 'active_patron',
        pledge_relationship_start: '2026-05-01T10:00:00.000+00:00',
        ...attributes,
      },
      relationships: {
        campaign,
        currently_entitled_tiers: { data: [{ type: 'tier', id: '7000002' }] },
        user: { data: { type: 'user', id: '1000001' } },
      },
    },
    included: [{ type: 'user', id: '1000001', attributes: { social_connections: { discord: { user_id: '223456789012345678' } } } }],
  });
}

test('a member delivery: who, the campaign (the signing webhook’s first), and the state it carries, ready for the intake', () => {
  const parsed = parsePatreonDelivery({ body: memberBody(), trigger: 'members:pledge:update', campaignId: null });
  if (parsed.kind !== 'member') throw new Error(parsed.kind);
  expect(parsed.member).toMatchObject({
    source: 'patreon',
    campaignId: '5000001',
    memberId: 'm-1',
    externalUserId: '1000001',
    removed: false,
  });
  if (!parsed.member.state.ok) throw new Error(parsed.member.state.error);
  expect(parsed.member.state.value.profileDiscordUserId).toBe('223456789012345678');
  expect(parsed.member.state.value.read.snapshot).toMatchObject({
    source: 'patreon',
    campaignId: '5000001',
    memberId: 'm-1',
    entitledTierIds: ['7000002'],
    readBy: 'webhook-payload',
  });
  const signed = parsePatreonDelivery({ body: memberBody(), trigger: 'members:update', campaignId: '5000009' });
  expect(signed.kind === 'member' && signed.member.campaignId).toBe('5000009');
});

test('a delete is marked removed; a body without a usable state says why, and still names the member', () => {
  const removed = parsePatreonDelivery({ body: memberBody(), trigger: 'members:delete', campaignId: null });
  expect(removed.kind === 'member' && removed.member.removed).toBe(true);
  const unusable = parsePatreonDelivery({ body: memberBody({ patron_status: 'on_a_boat' }), trigger: 'members:update', campaignId: null });
  if (unusable.kind !== 'member') throw new Error(unusable.kind);
  expect(unusable.member).toMatchObject({ memberId: 'm-1', externalUserId: '1000001', state: { ok: false } });
  const nowhere = parsePatreonDelivery({ body: memberBody({}, { data: null }), trigger: 'members:update', campaignId: null });
  expect(nowhere.kind === 'member' && nowhere.member).toMatchObject({ campaignId: null, state: { ok: false } });
});

test("the member's name as the delivery gives it, for people to read: trimmed, also when the state is unusable; blank, absent or not text is null", () => {
  const name = (attributes: Record<string, unknown>) => {
    const parsed = parsePatreonDelivery({ body: memberBody(attributes), trigger: 'members:update', campaignId: null });
    return parsed.kind === 'member' ? parsed.member.name : 'not a member';
  };
  expect(name({ full_name: '  Casey Patron ' })).toBe('Casey Patron');
  expect(name({ full_name: 'Casey Patron', patron_status: 'on_a_boat' })).toBe('Casey Patron');
  expect(name({ full_name: 'x'.repeat(300) })).toHaveLength(200);
  for (const fullName of ['', '   ', null, 42, undefined]) expect(name({ full_name: fullName })).toBeNull();
  // Never stored from here: the snapshot a delivery carries has no name.
  const parsed = parsePatreonDelivery({ body: memberBody({ full_name: 'Casey Patron' }), trigger: 'members:update', campaignId: null });
  expect(parsed.kind === 'member' && parsed.member.state.ok && 'fullName' in parsed.member.state.value.read.snapshot).toBe(false);
});

test('two bodies saying the same compare equal whatever their spacing; a change does not', () => {
  const contents = (body: string) => {
    const parsed = parsePatreonDelivery({ body, trigger: 'members:update', campaignId: null });
    return parsed.kind === 'member' ? parsed.member.contents : null;
  };
  const body = memberBody();
  expect(contents(JSON.stringify(JSON.parse(body), null, 2))).toBe(contents(body));
  expect(contents(memberBody({ patron_status: 'former_patron' }))).not.toBe(contents(body));
});

test('posts: a publish carries its post; another post event, or any other resource, is not a member event', () => {
  const post = JSON.stringify({
    data: {
      type: 'post',
      id: 'p-1',
      attributes: { title: 'Hello', url: '/posts/hello-1', is_public: true, tiers: null, published_at: '2026-11-01T10:00:00.000+00:00' },
      relationships: { campaign: { data: { type: 'campaign', id: '5000001' } } },
    },
  });
  const published = parsePatreonDelivery({ body: post, trigger: 'posts:publish', campaignId: null });
  expect(published).toMatchObject({ kind: 'post', campaignId: '5000001', postId: 'p-1', published: true, post: { title: 'Hello' } });
  expect(parsePatreonDelivery({ body: post, trigger: 'posts:update', campaignId: null })).toMatchObject({
    kind: 'post',
    published: false,
    post: null,
  });
  expect(
    parsePatreonDelivery({ body: JSON.stringify({ data: { type: 'campaign', id: '5000001' } }), trigger: null, campaignId: null }),
  ).toEqual({
    kind: 'ignored',
    type: 'campaign',
  });
  expect(() => parsePatreonDelivery({ body: 'not json', trigger: null, campaignId: null })).toThrow();
});
