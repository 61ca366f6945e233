import { MEMBER_TRIGGERS, indexIncluded, parseMember } from '../../../../src/edges/outbound/patreon';
import type { Harness } from './harness';
import { startHarness } from './harness';
import { startWebhookReceiver } from '@tierlink/sandbox';

const GUILD = '900000000000000001';
const ROLE_A = '111111111111111111';

describe('patreon client against the sandbox', () => {
  let h: Harness;
  let goldId: string;
  beforeEach(async () => {
    h = await startHarness();
    goldId = h.sb.createTier(h.sb.campaignId, {
      title: 'Gold',
      amountCents: 1000,
      chatRoleIds: { [GUILD]: [ROLE_A] },
    }).id;
    h.sb.createTier(h.sb.campaignId, { title: 'Draft', amountCents: 5000, published: false });
  });
  afterEach(() => h.close());

  it('gets no attributes back from the sandbox for a request without fields', async () => {
    const member = h.sb.setMembership(h.sb.createUser({ fullName: 'X' }).id, h.sb.campaignId, { tierIds: [goldId] }, { deliver: false });
    const res = await fetch(`${h.sb.url}/api/oauth2/v2/members/${member.id}?include=currently_entitled_tiers,user`, {
      headers: { authorization: `Bearer ${h.sb.creatorTokens.accessToken}` },
    });
    expect(res.status).toBe(200);
    const bare = (await res.json()) as { data: { attributes?: unknown }; included: Array<{ attributes?: unknown }> };
    expect(bare.data.attributes).toBeUndefined();
    for (const r of bare.included) expect(r.attributes).toBeUndefined();
    // …which is why the client names fields for every type it reads.
    const details = await h.client.getMember(member.id);
    expect(details?.member.patronStatus).toBe('active_patron');
    const query = h.sb.requests().at(-1)?.query ?? {};
    expect(query.include).toBe('campaign,currently_entitled_tiers,user');
    expect(
      Object.keys(query)
        .filter((k) => k.startsWith('fields['))
        .sort(),
    ).toEqual(['fields[campaign]', 'fields[member]', 'fields[tier]', 'fields[user]']);
  });

  it('reads a member with its entitled tiers and user, and null once deleted', async () => {
    const user = h.sb.createUser({ fullName: 'Pat Ron', discordUserId: '323456789012345678' });
    const member = h.sb.setMembership(user.id, h.sb.campaignId, { tierIds: [goldId] }, { deliver: false });
    const details = await h.client.getMember(member.id);
    expect(details?.member).toMatchObject({
      id: member.id,
      campaignId: h.sb.campaignId,
      userId: user.id,
      entitledTierIds: [goldId],
      discordUserId: '323456789012345678',
    });
    expect(details?.tiers.map((t) => t.title)).toEqual(['Gold']);
    expect(details?.user).toMatchObject({ id: user.id, fullName: 'Pat Ron' });
    h.sb.deleteMember(member.id, { deliver: false });
    await expect(h.client.getMember(member.id)).resolves.toBeNull();
  });

  it("reads campaigns with tiers and parsed role ids (the spec dialect's chat_role_ids)", async () => {
    const [details] = await h.client.getCampaigns();
    expect(details?.campaign).toMatchObject({
      id: h.sb.campaignId,
      vanity: 'casey',
      creatorId: h.sb.creatorUserId,
      creatorName: 'Casey Creator',
      chatServerId: null,
    });
    const gold = details?.tiers.find((t) => t.id === goldId);
    expect(gold).toMatchObject({ title: 'Gold', amountCents: 1000, published: true, patronCount: 0, campaignId: h.sb.campaignId });
    expect(gold?.roleIds).toEqual({ everywhere: [], byGuild: { [GUILD]: [ROLE_A] } });
    expect(details?.tiers.find((t) => t.title === 'Draft')?.published).toBe(false);
    expect(h.sb.requests().at(-1)?.query['fields[tier]']).toBe('title,amount_cents,patron_count,published,chat_role_ids');
    const one = await h.client.getCampaign(h.sb.campaignId);
    expect(one.tiers).toHaveLength(2);
  });

  it('creates, lists and updates webhooks; unpausing replays queued events', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const created = await h.client.createWebhook({ campaignId: h.sb.campaignId, uri: receiver.url, triggers: MEMBER_TRIGGERS });
      expect(created).toMatchObject({
        campaignId: h.sb.campaignId,
        uri: receiver.url,
        paused: false,
        numConsecutiveTimesFailed: 0,
        lastAttemptedAt: null,
        triggers: [...MEMBER_TRIGGERS],
      });
      expect(created.secret.length).toBeGreaterThan(0);
      const listed = await h.client.listWebhooks();
      expect(listed).toEqual([created]);

      h.sb.pauseWebhook(created.id);
      h.sb.setMembership(h.sb.createUser({ fullName: 'Y' }).id, h.sb.campaignId, {});
      await h.sb.flushDeliveries();
      expect(receiver.received).toHaveLength(0);
      expect((await h.client.listWebhooks())[0]?.paused).toBe(true);

      const resumed = await h.client.updateWebhook(created.id, { paused: false });
      expect(resumed).toMatchObject({ paused: false, numConsecutiveTimesFailed: 0 });
      await h.sb.flushDeliveries();
      expect(receiver.received).toHaveLength(1);

      const moved = await h.client.updateWebhook(created.id, { uri: `${receiver.url}?v=2`, triggers: ['members:update'] });
      expect(moved).toMatchObject({ uri: `${receiver.url}?v=2`, triggers: ['members:update'] });
    } finally {
      await receiver.close();
    }
  });

  it('counts every HTTP attempt through onRequest', async () => {
    h.sb.injectFault({ path: '/api/oauth2/v2/campaigns', status: 503 });
    await h.client.getCampaigns();
    expect(h.infos.map((i) => `${i.method} ${i.path} ${String(i.status)} ${i.outcome}`)).toEqual([
      'GET /api/oauth2/v2/campaigns 503 retry',
      'GET /api/oauth2/v2/campaigns 200 ok',
    ]);
  });

  it('fails with invalid_response, not silently, when an attribute it reads is missing', () => {
    expect(() =>
      parseMember(
        { type: 'member', id: 'm1', relationships: { user: { data: { type: 'user', id: 'u' } }, currently_entitled_tiers: { data: [] } } },
        indexIncluded([]),
        { campaignId: 'c' },
      ),
    ).toThrow(expect.objectContaining({ kind: 'invalid_response' }));
  });
});
