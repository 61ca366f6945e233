import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MemberPage, UnreadableMember } from '../../../../src/edges/outbound/patreon';
import {
  indexIncluded,
  iterateMemberPages,
  parseCampaign,
  parseDocument,
  parseMember,
  parseTier,
  parseUser,
  parseWebhook,
  readMember,
  retryAfterSeconds,
} from '../../../../src/edges/outbound/patreon';
import type { Resource } from '../../../../src/edges/outbound/patreon';
import { silentLogger } from '../../../../src/shared/logger';

/** Answers written from the samples of Patreon's documentation (test/fixtures/patreon/README.md). */
const fixture = (name: string): unknown => JSON.parse(readFileSync(join(__dirname, '../../../fixtures/patreon', name), 'utf8')) as unknown;
const doc = (name: string) => parseDocument(fixture(name), { method: 'GET', path: name });
const one = (name: string): Resource => {
  const data = doc(name).data;
  if (data === null || Array.isArray(data)) throw new Error(`${name} has no single primary resource`);
  return data;
};

describe("the client reads Patreon's documented sample answers", () => {
  it('a members page with every kind of member: one odd member never fails the page', async () => {
    const pages: MemberPage[] = [];
    const page = doc('members-page.json');
    const served = [page, { ...page, meta: { pagination: { cursors: { next: null }, total: 100 } }, data: [] }];
    for await (const p of iterateMemberPages({ getDocument: async () => served.shift() ?? page, logger: silentLogger }, '4242'))
      pages.push(p);
    const [first] = pages;
    if (!first) throw new Error('no page');
    expect(first.total).toBe(100);
    expect(
      first.members.map((m) => [m.fullName, m.patronStatus, m.lastChargeStatus, m.currentlyEntitledAmountCents, m.isFreeTrial, m.isGifted]),
    ).toEqual([
      ['Platform Team', 'active_patron', 'Paid', 400, false, false],
      ['Tria Lynn', 'active_patron', 'Free Trial', 0, true, false],
      ['Rhea Funded', 'former_patron', 'Refunded by Patreon', 0, false, false],
      ['Pat Partial', 'active_patron', 'Partially Refunded', 400, false, false],
      ['Gift Ed', 'active_patron', null, 0, false, true],
      ['Free Member', null, null, null, false, false],
    ]);
    expect(first.members[0]).toMatchObject({
      id: '03ca69c3-ebea-4b9a-8fac-e4a837873254',
      campaignId: '4242',
      userId: '90001',
      lastChargeDate: '2018-04-01T21:28:06.000Z',
      entitledTierIds: ['54321'],
      discordUserId: '223344556677889900',
    });
    expect(first.members[5]?.entitledTierIds).toEqual(['54300']);
    expect(first.unreadable).toEqual<UnreadableMember[]>([
      {
        memberId: 'd4e5f6a7-b8c9-4d0e-9f2a-3b4c5d6e7f80',
        campaignId: '4242',
        userId: '90007',
        attribute: 'patron_status',
        reason: expect.stringContaining('"paused_patron"'),
      },
      {
        memberId: 'e5f6a7b8-c9d0-4e1f-8a3b-4c5d6e7f8091',
        campaignId: '4242',
        userId: '90008',
        attribute: 'is_gifted',
        reason: 'is null, expected a boolean',
      },
    ]);
    expect(first.tiers.map((t) => [t.id, t.title, t.amountCents, t.roleIds.everywhere])).toEqual([
      ['54321', 'Patron', 100, ['112233445566778899']],
      ['54300', 'Free', 0, []],
    ]);
    expect(first.users.map((u) => [u.id, u.discordUserId])).toEqual([
      ['90001', '223344556677889900'],
      ['90002', null],
    ]);
  });

  it('the webhook body sample: a member who never pledged, with its nulls, reads as such', () => {
    const d = doc('member-webhook-sample.json');
    const member = parseMember(one('member-webhook-sample.json'), indexIncluded(d.included));
    expect(member).toMatchObject({
      id: 'd485d5ac-6c82-42c6-9c08-c50cf01b73d7',
      campaignId: '123456',
      userId: '987654321',
      patronStatus: null,
      lastChargeStatus: null,
      lastChargeDate: null,
      currentlyEntitledAmountCents: null,
      pledgeRelationshipStart: null,
      isFollower: true,
      isFreeTrial: false,
      isGifted: false,
      entitledTierIds: [],
      discordUserId: null,
    });
    const campaign = d.included.find((r) => r.type === 'campaign');
    if (!campaign) throw new Error('no campaign');
    expect(parseCampaign(campaign, indexIncluded([]))).toMatchObject({ id: '123456', chatServerId: null, vanity: null });
  });

  it('a single unreadable member is an invalid_response naming the member and the attribute', () => {
    const page = doc('members-page.json');
    const odd = (page.data as Resource[])[6];
    if (!odd) throw new Error('no odd member');
    expect(readMember(odd, indexIncluded(page.included), { campaignId: '4242' })).toMatchObject({ ok: false });
    expect(() => parseMember(odd, indexIncluded(page.included), { campaignId: '4242' })).toThrow(
      expect.objectContaining({
        kind: 'invalid_response',
        unreadable: expect.objectContaining({ memberId: 'd4e5f6a7-b8c9-4d0e-9f2a-3b4c5d6e7f80', attribute: 'patron_status' }),
      }),
    );
  });

  it('the campaigns sample: discord_server_id is the server, discord_role_ids the roles', () => {
    const d = doc('campaigns.json');
    const included = indexIncluded(d.included);
    const [resource] = d.data as Resource[];
    if (!resource) throw new Error('no campaign');
    expect(parseCampaign(resource, included)).toEqual({
      id: '1234560',
      vanity: 'platformteam',
      url: 'https://www.patreon.com/platformteam',
      creatorId: '90000',
      creatorName: 'Platform Team',
      patronCount: 2,
      chatServerId: '998877665544332211',
      // How the campaign charges, as the sample states it: per creation.
      isMonthly: false,
      payPerName: 'creation',
    });
    const tier = included.get('tier', '54321');
    if (!tier) throw new Error('no tier');
    expect(parseTier(tier, { campaignId: '1234560' })).toMatchObject({ roleIds: { everywhere: ['112233445566778899'], byGuild: {} } });
  });

  it('the webhook list sample has no relationships: the campaign is unknown (null), nothing fails', () => {
    const [resource] = doc('webhooks.json').data as Resource[];
    if (!resource) throw new Error('no webhook');
    expect(parseWebhook(resource)).toEqual({
      id: '2793',
      campaignId: null,
      uri: 'https://requestb.in/123456',
      triggers: ['members:create', 'members:delete', 'members:update'],
      paused: false,
      numConsecutiveTimesFailed: 0,
      lastAttemptedAt: '2018-04-01T20:09:18.000Z',
      secret: 'hereisaverycomplexsecret',
    });
  });

  it("an identity with memberships: the user, its Discord id, and the membership's campaign", () => {
    const d = doc('identity-memberships.json');
    const included = indexIncluded(d.included);
    const user = parseUser(one('identity-memberships.json'), included);
    expect(user).toEqual({
      id: '90001',
      fullName: 'Ada Patron',
      discordUserId: '223344556677889900',
      memberships: [{ memberId: '5b0c1e2a-7d4f-4c1a-9e2b-0a1b2c3d4e5f', campaignId: '4242' }],
    });
    const member = included.get('member', '5b0c1e2a-7d4f-4c1a-9e2b-0a1b2c3d4e5f');
    if (!member) throw new Error('no member');
    expect(parseMember(member, included, { user })).toMatchObject({ campaignId: '4242', userId: '90001', entitledTierIds: ['7001'] });
  });

  it("the 429 sample's retry_after_seconds is the wait", () => {
    expect(retryAfterSeconds(new Headers(), fixture('rate-limited.json'), new Date())).toBe(9);
  });
});
