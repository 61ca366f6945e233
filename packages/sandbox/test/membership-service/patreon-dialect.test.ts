import { createHmac } from 'node:crypto';
import { type ManualClock, type WebhookReceiver, createManualClock, startWebhookReceiver } from '@tierlink/sandbox';
import type { MembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { getJson, sendJson } from './raw-http';

const V2 = '/api/oauth2/v2';
const ROLE = '223456789012345678';
const SERVER = '998877665544332211';
const members = (campaignId: string, query: string): string =>
  `${V2}/campaigns/${campaignId}/members?fields%5Bmember%5D=patron_status${query}`;

describe("membership-service sandbox: Patreon's dialect (docs/patreon-api-notes.md)", () => {
  let sb: MembershipServiceSandbox;
  let token: string;
  let tierId: string;

  beforeEach(async () => {
    sb = await createMembershipServiceSandbox({
      dialect: 'patreon',
      rateLimits: 'none',
      raisedLimits: "these checks are about the dialect's names and answers, not the pace",
    });
    token = sb.creatorTokens.accessToken;
    tierId = sb.createTier(sb.campaignId, { title: 'Gold', amountCents: 500, chatRoleIds: [ROLE] }).id;
  });
  afterEach(() => sb.close());

  it('serves discord_server_id, google_analytics_id and discord_role_ids, whichever record field a tier was made with', async () => {
    const campaign = sb.createCampaign({ chatServerId: SERVER });
    const other = sb.createTier(campaign.id, { title: 'Silver', amountCents: 300, discordRoleIds: ['323456789012345678'] });
    const res = await getJson(
      sb.url,
      `${V2}/campaigns/${campaign.id}?include=tiers&fields%5Bcampaign%5D=discord_server_id,google_analytics_id&fields%5Btier%5D=title,discord_role_ids`,
      token,
    );
    expect(res.status).toBe(200);
    expect(res.body.data.attributes).toEqual({ discord_server_id: SERVER, google_analytics_id: null });
    expect(res.body.included).toEqual([
      { type: 'tier', id: other.id, attributes: { title: 'Silver', discord_role_ids: ['323456789012345678'] } },
    ]);
    const gold = await getJson(sb.url, `${V2}/campaigns/${sb.campaignId}?include=tiers&fields%5Btier%5D=discord_role_ids`, token);
    expect(gold.body.included).toEqual([{ type: 'tier', id: tierId, attributes: { discord_role_ids: [ROLE] } }]);
  });

  it.each([
    ['chat_server_id', `${V2}/campaigns?fields%5Bcampaign%5D=vanity,chat_server_id`],
    ['analytics_id', `${V2}/campaigns?fields%5Bcampaign%5D=analytics_id`],
    ['earnings_visibility', `${V2}/campaigns?fields%5Bcampaign%5D=earnings_visibility`],
    ['chat_role_ids', `${V2}/campaigns?include=tiers&fields%5Btier%5D=title,chat_role_ids`],
  ])("refuses the spec's %s with 400, naming it", async (name, path) => {
    const res = await getJson(sb.url, path, token);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].detail).toContain(`'${name}'`);
  });

  it('serves is_free_trial, is_gifted, the extra charge statuses, is_follower always false and its nulls', async () => {
    const trial = sb.createUser({ fullName: 'Tria L' });
    const gift = sb.createUser({ fullName: 'Gif Ted' });
    const free = sb.createUser({ fullName: 'Free Member' });
    const t = sb.setMembership(
      trial.id,
      sb.campaignId,
      { tierIds: [tierId], isFreeTrial: true, lastChargeStatus: 'Free Trial' },
      { deliver: false },
    );
    const g = sb.setMembership(
      gift.id,
      sb.campaignId,
      { tierIds: [tierId], isGifted: true, lastChargeDate: null, lastChargeStatus: null },
      { deliver: false },
    );
    const f = sb.setMembership(free.id, sb.campaignId, { patronStatus: null, isFollower: true }, { deliver: false });
    const refunded = sb.setMembership(
      sb.createUser({ fullName: 'R' }).id,
      sb.campaignId,
      { patronStatus: 'former_patron', lastChargeStatus: 'Refunded by Patreon' },
      { deliver: false },
    );
    const partial = sb.setMembership(
      sb.createUser({ fullName: 'P' }).id,
      sb.campaignId,
      { lastChargeStatus: 'Partially Refunded' },
      { deliver: false },
    );
    const fields = 'is_free_trial,is_gifted,is_follower,last_charge_status,currently_entitled_amount_cents,pledge_cadence,patron_status';
    const read = async (id: string) =>
      (await getJson(sb.url, `${V2}/members/${id}?fields%5Bmember%5D=${fields}`, token)).body.data.attributes;
    expect(await read(t.id)).toMatchObject({
      is_free_trial: true,
      is_gifted: false,
      last_charge_status: 'Free Trial',
      currently_entitled_amount_cents: 500,
    });
    expect(await read(g.id)).toMatchObject({ is_free_trial: false, is_gifted: true, last_charge_status: null });
    expect(await read(f.id)).toEqual({
      is_free_trial: false,
      is_gifted: false,
      is_follower: false,
      last_charge_status: null,
      currently_entitled_amount_cents: null,
      pledge_cadence: null,
      patron_status: null,
    });
    expect(await read(refunded.id)).toMatchObject({ last_charge_status: 'Refunded by Patreon', patron_status: 'former_patron' });
    expect(await read(partial.id)).toMatchObject({ last_charge_status: 'Partially Refunded' });
  });

  it("serves a member's overridden attributes verbatim (an odd member), until cleared", async () => {
    const m = sb.setMembership(sb.createUser({ fullName: 'Odd' }).id, sb.campaignId, { tierIds: [tierId] }, { deliver: false });
    sb.overrideMemberAttributes(m.id, { patron_status: 'paused_patron', full_name: null });
    const path = `${V2}/members/${m.id}?fields%5Bmember%5D=patron_status,full_name,last_charge_status`;
    expect((await getJson(sb.url, path, token)).body.data.attributes).toEqual({
      patron_status: 'paused_patron',
      full_name: null,
      last_charge_status: 'Paid',
    });
    sb.overrideMemberAttributes(m.id, null);
    expect((await getJson(sb.url, path, token)).body.data.attributes).toMatchObject({ patron_status: 'active_patron', full_name: 'Odd' });
  });

  describe('page[count]', () => {
    beforeEach(() => {
      sb.generateMembers({ campaignId: sb.campaignId, count: 1_234, seed: 5 });
    });

    it.each([
      ['absent: the small default page', '', 20],
      ['page[count]=1000', '&page%5Bcount%5D=1000', 1000],
      ['page[count]=7', '&page%5Bcount%5D=7', 7],
      ['above the maximum: the maximum', '&page%5Bcount%5D=5000', 1000],
      ['with pledge_history: at most 500', '&include=pledge_history&page%5Bcount%5D=1000', 500],
    ])('%s', async (_label, query, size) => {
      const res = await getJson(sb.url, members(sb.campaignId, query), token);
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(size);
      expect(res.body.meta.pagination.total).toBe(1_234);
    });

    it('keeps the page size along the cursor and in links.next', async () => {
      const first = await getJson(sb.url, members(sb.campaignId, '&page%5Bcount%5D=1000'), token);
      expect(first.body.links.next).toContain('page%5Bcount%5D=1000');
      const cursor = first.body.meta.pagination.cursors.next as string;
      const second = await getJson(
        sb.url,
        members(sb.campaignId, `&page%5Bcount%5D=1000&page%5Bcursor%5D=${encodeURIComponent(cursor)}`),
        token,
      );
      expect(second.body.data).toHaveLength(234);
      expect(second.body.meta.pagination.cursors.next).toBeUndefined();
    });

    it.each(['0', '-1', 'ten', '1.5'])('refuses page[count]=%s (400)', async (value) => {
      expect((await getJson(sb.url, members(sb.campaignId, `&page%5Bcount%5D=${value}`), token)).status).toBe(400);
    });

    it('is refused where a list is not paged', async () => {
      expect((await getJson(sb.url, `${V2}/campaigns?page%5Bcount%5D=10`, token)).status).toBe(400);
    });
  });
});

describe('membership-service sandbox: the spec dialect refuses what only Patreon has', () => {
  let sb: MembershipServiceSandbox;
  beforeAll(async () => {
    sb = await createMembershipServiceSandbox();
  });
  afterAll(() => sb.close());

  it.each([
    ['discord_server_id', `${V2}/campaigns?fields%5Bcampaign%5D=discord_server_id`],
    ['google_analytics_id', `${V2}/campaigns?fields%5Bcampaign%5D=google_analytics_id`],
    ['discord_role_ids', `${V2}/campaigns?include=tiers&fields%5Btier%5D=discord_role_ids`],
    ['is_gifted', `${V2}/campaigns/:c/members?fields%5Bmember%5D=is_gifted`],
    ['is_creator', `${V2}/identity?fields%5Buser%5D=is_creator`],
  ])('%s answers 400', async (_name, path) => {
    const res = await getJson(sb.url, path.replace(':c', sb.campaignId), sb.creatorTokens.accessToken);
    expect(res.status).toBe(400);
  });

  it("holds only the spec's charge statuses", () => {
    const user = sb.createUser({ fullName: 'Tria L' });
    expect(() => sb.setMembership(user.id, sb.campaignId, { lastChargeStatus: 'Free Trial' }, { deliver: false })).toThrow(/spec dialect/);
  });
});

describe("membership-service sandbox: Patreon's webhooks", () => {
  const hmacMd5 = (secret: string, raw: Buffer): string => createHmac('md5', secret).update(raw).digest('hex');
  let receiver: WebhookReceiver;
  const opened: MembershipServiceSandbox[] = [];
  const start = async (options: Parameters<typeof createMembershipServiceSandbox>[0] = {}) => {
    const sb = await createMembershipServiceSandbox({
      dialect: 'patreon',
      rateLimits: 'none',
      raisedLimits: "these checks are about Patreon's webhooks, not the pace",
      ...options,
    });
    opened.push(sb);
    const created = await sendJson(sb.url, 'POST', `${V2}/webhooks`, sb.creatorTokens.accessToken, {
      data: {
        type: 'webhook',
        attributes: { triggers: ['members:create', 'members:update'], uri: receiver.url },
        relationships: { campaign: { data: { type: 'campaign', id: sb.campaignId } } },
      },
    });
    return { sb, id: created.body.data.id as string, secret: created.body.data.attributes.secret as string };
  };
  beforeEach(async () => {
    receiver = await startWebhookReceiver();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((sb) => sb.close()));
    await receiver.close();
  });

  it('lists webhooks without the campaign relationship by default (as the docs sample), or with it when asked, by option', async () => {
    const query = `${V2}/webhooks?include=campaign&fields%5Bwebhook%5D=uri`;
    const withCampaign = await start({ webhookListCampaign: 'included' });
    const listed = await getJson(withCampaign.sb.url, query, withCampaign.sb.creatorTokens.accessToken);
    expect(listed.body.data[0].relationships).toEqual({ campaign: { data: { type: 'campaign', id: withCampaign.sb.campaignId } } });
    const without = await start();
    const bare = await getJson(without.sb.url, query, without.sb.creatorTokens.accessToken);
    expect(bare.status).toBe(200);
    expect(bare.body.data[0]).toEqual({ type: 'webhook', id: without.id, attributes: { uri: receiver.url } });
  });

  it('takes paused as the string "false" the docs sample sends, and replays what the pause held', async () => {
    const { sb, id } = await start();
    sb.pauseWebhook(id);
    sb.setMembership(sb.createUser({ fullName: 'Held' }).id, sb.campaignId, {});
    await sb.flushDeliveries();
    expect(receiver.received).toHaveLength(0);
    const patch = await sendJson(sb.url, 'PATCH', `${V2}/webhooks/${id}`, sb.creatorTokens.accessToken, {
      data: { id, type: 'webhook', attributes: { paused: 'false' } },
    });
    expect(patch.status).toBe(200);
    expect(patch.body.data.attributes.paused).toBe(false);
    await sb.flushDeliveries();
    expect(receiver.received).toHaveLength(1);
    const bad = await sendJson(sb.url, 'PATCH', `${V2}/webhooks/${id}`, sb.creatorTokens.accessToken, {
      data: { id, type: 'webhook', attributes: { paused: 'no' } },
    });
    expect(bad.status).toBe(400);
  });

  it('refuses paused as a string in the spec dialect', async () => {
    const sb = await createMembershipServiceSandbox();
    opened.push(sb);
    const created = await sendJson(sb.url, 'POST', `${V2}/webhooks`, sb.creatorTokens.accessToken, {
      data: {
        type: 'webhook',
        attributes: { triggers: ['members:create'], uri: receiver.url },
        relationships: { campaign: { data: { type: 'campaign', id: sb.campaignId } } },
      },
    });
    const id = created.body.data.id as string;
    const patch = await sendJson(sb.url, 'PATCH', `${V2}/webhooks/${id}`, sb.creatorTokens.accessToken, {
      data: { id, type: 'webhook', attributes: { paused: 'false' } },
    });
    expect(patch.status).toBe(400);
  });

  it("signs with X-Patreon-Signature only and carries Patreon's member attributes and names", async () => {
    const { sb, secret } = await start();
    const tier = sb.createTier(sb.campaignId, { title: 'Gold', amountCents: 500, chatRoleIds: [ROLE] });
    sb.setMembership(sb.createUser({ fullName: 'Tria L' }).id, sb.campaignId, {
      tierIds: [tier.id],
      isFreeTrial: true,
      lastChargeStatus: 'Free Trial',
    });
    await sb.flushDeliveries();
    const [delivery] = receiver.received;
    if (!delivery) throw new Error('no delivery');
    expect(delivery.headers['x-patreon-signature']).toBe(hmacMd5(secret, delivery.raw));
    expect(delivery.headers['x-service-signature']).toBeUndefined();
    expect(delivery.headers['x-patreon-event']).toBe('members:create');
    const body = JSON.parse(delivery.raw.toString('utf8'));
    expect(body.data.attributes).toMatchObject({
      is_free_trial: true,
      is_gifted: false,
      is_follower: false,
      last_charge_status: 'Free Trial',
    });
    const includedTier = body.included.find((r: { type: string }) => r.type === 'tier');
    expect(includedTier.attributes).toMatchObject({ discord_role_ids: [ROLE] });
    expect(includedTier.attributes).not.toHaveProperty('chat_role_ids');
    expect(body.included.find((r: { type: string }) => r.type === 'campaign').attributes).toHaveProperty('discord_server_id', null);
  });
});

describe("membership-service sandbox: Patreon's rate limits (100 per 2 s per client, 100 per minute per token)", () => {
  let sb: MembershipServiceSandbox;
  let clock: ManualClock;
  const identity = (token: string) => getJson(sb.url, `${V2}/identity`, token);

  beforeEach(async () => {
    clock = createManualClock();
    sb = await createMembershipServiceSandbox({ dialect: 'patreon', clock });
  });
  afterEach(() => sb.close());

  it('answers the 101st request of a token in a minute with 429, Retry-After and the documented body; the window then frees', async () => {
    const token = sb.creatorTokens.accessToken;
    for (let i = 0; i < 100; i++) {
      expect((await identity(token)).status).toBe(200);
      clock.advance(100); // 100 requests over 10 s: inside the client's limit, at the token's
    }
    const refused = await identity(token);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('50');
    expect(refused.body.errors[0]).toMatchObject({ code: null, code_name: 'RequestThrottled', status: '429', retry_after_seconds: 50 });
    clock.advance(49_000);
    expect((await identity(token)).status).toBe(429);
    clock.advance(1_000);
    expect((await identity(token)).status).toBe(200);
  });

  it('keeps the count for a new token of the same user and client (a refresh does not reset it)', async () => {
    const user = sb.createUser({ fullName: 'Pat' });
    const first = sb.issueTokens(user.id, ['identity']);
    for (let i = 0; i < 100; i++) expect((await identity(first.accessToken)).status).toBe(200);
    clock.advance(2_001);
    const second = sb.issueTokens(user.id, ['identity']);
    expect((await identity(second.accessToken)).status).toBe(429);
    const other = sb.issueTokens(sb.createUser({ fullName: 'Other' }).id, ['identity']);
    expect((await identity(other.accessToken)).status).toBe(200);
  });

  it("limits the client's requests across tokens to 100 per 2 s", async () => {
    const tokens = [0, 1, 2].map((i) => sb.issueTokens(sb.createUser({ fullName: `User ${i}` }).id, ['identity']).accessToken);
    for (let i = 0; i < 100; i++) expect((await identity(tokens[i % 2] ?? '')).status).toBe(200);
    const refused = await identity(tokens[2] ?? '');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('2');
    clock.advance(2_000);
    expect((await identity(tokens[2] ?? '')).status).toBe(200);
  });

  it("keeps Patreon's limits in the spec's dialect too; takes stricter ones freely, raised ones or none only with a reason", async () => {
    await sb.close();
    sb = await createMembershipServiceSandbox({
      dialect: 'patreon',
      clock,
      rateLimits: { perClient: { requests: 100, windowMs: 2_000 }, perToken: { requests: 2, windowMs: 60_000 } },
    });
    const token = sb.creatorTokens.accessToken;
    expect((await identity(token)).status).toBe(200);
    expect((await identity(token)).status).toBe(200);
    expect((await identity(token)).status).toBe(429);
    const spec = await createMembershipServiceSandbox({ clock });
    try {
      for (let i = 0; i < 100; i++) expect((await getJson(spec.url, `${V2}/identity`, spec.creatorTokens.accessToken)).status).toBe(200);
      expect((await getJson(spec.url, `${V2}/identity`, spec.creatorTokens.accessToken)).status).toBe(429);
    } finally {
      await spec.close();
    }
    await expect(createMembershipServiceSandbox({ clock, rateLimits: 'none' })).rejects.toThrow('say why (raisedLimits)');
    await expect(
      createMembershipServiceSandbox({
        clock,
        rateLimits: { perClient: { requests: 1000, windowMs: 1000 }, perToken: { requests: 100, windowMs: 60_000 } },
      }),
    ).rejects.toThrow('say why (raisedLimits)');
    const unlimited = await createMembershipServiceSandbox({ clock, rateLimits: 'none', raisedLimits: 'this check counts nothing' });
    try {
      for (let i = 0; i < 150; i++)
        expect((await getJson(unlimited.url, `${V2}/identity`, unlimited.creatorTokens.accessToken)).status).toBe(200);
    } finally {
      await unlimited.close();
    }
  });
});
