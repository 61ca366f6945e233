import { memberFromPayload } from '../../../../src/edges/outbound/patreon/member-payload';

/**
 * A member delivery as production sends it (every member attribute, the user included), as the
 * processor reads it back from the inbox: parsed JSON, so a key set to undefined here is absent.
 */
function delivery(overrides: { attributes?: Record<string, unknown>; relationships?: Record<string, unknown>; included?: unknown[] } = {}) {
  return JSON.parse(
    JSON.stringify({
      data: {
        type: 'member',
        id: '03ca69c3-ebea-4b9a-8fac-e4a837873254',
        attributes: {
          currently_entitled_amount_cents: 500,
          full_name: 'Casey Patron',
          is_follower: false,
          last_charge_date: '2026-11-01T10:00:00.000+00:00',
          last_charge_status: 'Paid',
          lifetime_support_cents: 3500,
          patron_status: 'active_patron',
          pledge_relationship_start: '2026-05-01T10:00:00.000+00:00',
          ...overrides.attributes,
        },
        relationships: {
          address: { data: null },
          campaign: { data: { type: 'campaign', id: '5000001' } },
          currently_entitled_tiers: { data: [{ type: 'tier', id: '7000002' }] },
          user: { data: { type: 'user', id: '1000001' } },
          ...overrides.relationships,
        },
      },
      included: overrides.included ?? [
        {
          type: 'user',
          id: '1000001',
          attributes: {
            full_name: 'Casey Patron',
            social_connections: { discord: { user_id: '223456789012345678', url: null }, twitch: null },
          },
        },
      ],
    }),
  ) as unknown;
}

test('reads the member state a delivery carries, with the Discord id from the included user', () => {
  expect(memberFromPayload(delivery())).toEqual({
    ok: true,
    value: {
      memberId: '03ca69c3-ebea-4b9a-8fac-e4a837873254',
      userId: '1000001',
      patronStatus: 'active_patron',
      isFollower: false,
      isFreeTrial: false,
      isGifted: false,
      lastChargeDate: new Date('2026-11-01T10:00:00.000Z'),
      lastChargeStatus: 'Paid',
      entitledTierIds: ['7000002'],
      pledgeRelationshipStart: new Date('2026-05-01T10:00:00.000Z'),
      entitledAmountCents: 500,
      discordUserId: '223456789012345678',
    },
  });
});

test("Patreon's is_free_trial and is_gifted are read when the body carries them", () => {
  const result = memberFromPayload(delivery({ attributes: { is_free_trial: true, is_gifted: true, last_charge_status: 'Free Trial' } }));
  expect(result).toMatchObject({ ok: true, value: { isFreeTrial: true, isGifted: true, lastChargeStatus: 'Free Trial' } });
});

test('the v2 sample’s currently_entitled_rewards stands in for currently_entitled_tiers; repeated ids count once', () => {
  const result = memberFromPayload(
    delivery({
      relationships: {
        currently_entitled_tiers: undefined,
        currently_entitled_rewards: {
          data: [
            { type: 'reward', id: '7000003' },
            { type: 'reward', id: '7000003' },
          ],
        },
      },
    }),
  );
  expect(result).toMatchObject({ ok: true, value: { entitledTierIds: ['7000003'] } });
});

test('harmless gaps read as defaults: no follower flag, unreadable dates, no amount, no user, a null patron status', () => {
  const result = memberFromPayload(
    delivery({
      attributes: {
        patron_status: null,
        is_follower: undefined,
        last_charge_date: 'not a date',
        currently_entitled_amount_cents: null,
        last_charge_status: 7,
      },
      relationships: { user: { data: null } },
      included: [],
    }),
  );
  expect(result).toMatchObject({
    ok: true,
    value: {
      patronStatus: null,
      isFollower: false,
      lastChargeDate: null,
      lastChargeStatus: null,
      entitledAmountCents: null,
      userId: null,
      discordUserId: null,
    },
  });
});

test.each([
  {
    name: 'patron_status is absent',
    body: () => delivery({ attributes: { patron_status: undefined } }),
    error: 'patron_status is missing',
  },
  {
    name: 'patron_status is not a status',
    body: () => delivery({ attributes: { patron_status: 'paying' } }),
    error: 'patron_status "paying" is not a known status',
  },
  {
    name: 'the entitled tiers are absent',
    body: () => delivery({ relationships: { currently_entitled_tiers: undefined } }),
    error: 'currently_entitled_tiers is missing',
  },
  {
    name: 'the primary resource is a post',
    body: () => ({ data: { type: 'post', id: '3000001', attributes: {} } }),
    error: 'the primary resource is a post, not a member',
  },
  { name: 'the primary data is a list', body: () => ({ data: [] }), error: 'the primary data is not one resource' },
])('no usable state when $name: an error, never a guess', ({ body, error }) => {
  expect(memberFromPayload(body())).toEqual({ ok: false, error });
});

test('a body that is not a JSON:API document is an error value, not an exception', () => {
  const result = memberFromPayload([1, 2, 3]);
  expect(result.ok).toBe(false);
  expect(result.ok ? null : result.error).toMatch(/not a JSON:API document/);
});
