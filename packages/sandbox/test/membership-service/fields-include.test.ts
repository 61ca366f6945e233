import type { MembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { getJson } from './raw-http';

describe('membership-service sandbox: sparse fieldsets and includes (spec rule 4)', () => {
  let sb: MembershipServiceSandbox;
  let memberId: string;
  let tierId: string;
  let userId: string;
  let token: string;

  beforeAll(async () => {
    sb = await createMembershipServiceSandbox();
    token = sb.creatorTokens.accessToken;
    tierId = sb.createTier(sb.campaignId, {
      title: 'Gold',
      amountCents: 1000,
      chatRoleIds: { discord: ['123456789012345678'] },
      discordRoleIds: ['223456789012345678'],
    }).id;
    userId = sb.createUser({ fullName: 'Pat Ron', discordUserId: '323456789012345678' }).id;
    memberId = sb.setMembership(userId, sb.campaignId, { tierIds: [tierId] }, { deliver: false }).id;
  });
  afterAll(() => sb.close());

  it('answers only type and id when no fields are named', async () => {
    const res = await getJson(sb.url, `/api/oauth2/v2/members/${memberId}`, token);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ type: 'member', id: memberId });
    expect(res.body.included).toEqual([]);
  });

  it('answers exactly the named attributes, and relationships only for includes', async () => {
    const res = await getJson(sb.url, `/api/oauth2/v2/members/${memberId}?fields[member]=patron_status,full_name`, token);
    expect(res.body.data.attributes).toEqual({ patron_status: 'active_patron', full_name: 'Pat Ron' });
    expect(res.body.data.relationships).toBeUndefined();
  });

  it('accepts %5B/%5D-encoded brackets', async () => {
    const res = await getJson(sb.url, `/api/oauth2/v2/members/${memberId}?fields%5Bmember%5D=is_follower`, token);
    expect(res.body.data.attributes).toEqual({ is_follower: false });
  });

  it('gives included resources only the attributes of their own fields[type]', async () => {
    const res = await getJson(
      sb.url,
      `/api/oauth2/v2/members/${memberId}?include=currently_entitled_tiers,user&fields[tier]=title,chat_role_ids`,
      token,
    );
    expect(res.status).toBe(200);
    expect(res.body.data.attributes).toBeUndefined();
    expect(res.body.data.relationships).toEqual({
      currently_entitled_tiers: { data: [{ type: 'tier', id: tierId }] },
      user: { data: { type: 'user', id: userId } },
    });
    const tier = res.body.included.find((r: { type: string }) => r.type === 'tier');
    const user = res.body.included.find((r: { type: string }) => r.type === 'user');
    expect(tier.attributes).toEqual({ title: 'Gold', chat_role_ids: { discord: ['123456789012345678'] } });
    expect(user).toEqual({ type: 'user', id: userId });
  });

  it('serves the Discord id in social_connections', async () => {
    const res = await getJson(sb.url, `/api/oauth2/v2/members/${memberId}?include=user&fields[user]=social_connections`, token);
    expect(res.body.included[0].attributes.social_connections.discord).toEqual({ user_id: '323456789012345678', url: null });
  });

  it.each([
    ['an unknown attribute', 'fields[member]=patron_status,discord_id'],
    ['a relationship named as a field', 'fields[member]=user'],
    ['an unknown type', 'fields[pledge]=amount_cents'],
    ['an include the endpoint does not offer', 'include=creator'],
    ['a nested include', 'include=user.campaign'],
    ['an unknown parameter', 'page[count]=10'],
    ["Patreon's name of the tier's roles", 'include=currently_entitled_tiers&fields[tier]=discord_role_ids'],
    ["Patreon's member attribute is_free_trial", 'fields[member]=is_free_trial'],
    ["Patreon's name of the campaign's server", 'include=campaign&fields[campaign]=discord_server_id'],
    ['a repeated parameter', 'include=user&include=campaign'],
  ])('answers 400 for %s', async (_label, query) => {
    const res = await getJson(sb.url, `/api/oauth2/v2/members/${memberId}?${query}`, token);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].status).toBe('400');
  });

  it('renders a campaign with its tiers and creator', async () => {
    const res = await getJson(
      sb.url,
      `/api/oauth2/v2/campaigns?include=tiers,creator&fields[campaign]=vanity,patron_count&fields[user]=full_name`,
      token,
    );
    expect(res.status).toBe(200);
    expect(res.body.meta.pagination.total).toBe(1);
    const [campaign] = res.body.data;
    expect(campaign.attributes).toEqual({ vanity: 'casey', patron_count: 1 });
    expect(campaign.relationships.creator.data).toEqual({ type: 'user', id: sb.creatorUserId });
    expect(res.body.included).toEqual(
      expect.arrayContaining([
        { type: 'tier', id: tierId },
        { type: 'user', id: sb.creatorUserId, attributes: { full_name: 'Casey Creator' } },
      ]),
    );
  });

  it('never repeats a resource in included, nor primary data', async () => {
    const other = sb.createUser({ fullName: 'Second' });
    sb.setMembership(other.id, sb.campaignId, { tierIds: [tierId] }, { deliver: false });
    const res = await getJson(sb.url, `/api/oauth2/v2/campaigns/${sb.campaignId}/members?include=currently_entitled_tiers,campaign`, token);
    const keys = res.body.included.map((r: { type: string; id: string }) => `${r.type}:${r.id}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.filter((k: string) => k.startsWith('tier:'))).toEqual([`tier:${tierId}`]);
  });

  it('answers 404 with an errors array for an unknown route, 405 for a wrong method', async () => {
    const unknown = await getJson(sb.url, '/api/oauth2/v2/nothing', token);
    expect(unknown.status).toBe(404);
    expect(Array.isArray(unknown.body.errors)).toBe(true);
    const res = await fetch(`${sb.url}/api/oauth2/v2/identity`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(405);
  });

  it('answers 406 when JSON is not acceptable', async () => {
    const res = await fetch(`${sb.url}/api/oauth2/v2/identity`, { headers: { authorization: `Bearer ${token}`, accept: 'text/html' } });
    expect(res.status).toBe(406);
  });
});
