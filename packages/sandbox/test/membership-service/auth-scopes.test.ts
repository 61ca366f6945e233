import { DAY, createManualClock } from '@tierlink/sandbox';
import type { MembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { getJson } from './raw-http';

describe('membership-service sandbox: tokens and scopes (spec: Authentication §6–8)', () => {
  const clock = createManualClock();
  let sb: MembershipServiceSandbox;
  let patronId: string;
  let memberId: string;

  beforeAll(async () => {
    sb = await createMembershipServiceSandbox({ clock });
    const tier = sb.createTier(sb.campaignId, { title: 'Gold', amountCents: 500 });
    patronId = sb.createUser({ fullName: 'Pat Ron', discordUserId: '323456789012345678' }).id;
    memberId = sb.setMembership(patronId, sb.campaignId, { tierIds: [tier.id] }, { deliver: false }).id;
  });
  afterAll(() => sb.close());

  it.each([
    ['no token', undefined],
    ['an unknown token', 'not-a-token'],
  ])('answers 401 with an errors array for %s', async (_label, token) => {
    const res = await getJson(sb.url, '/api/oauth2/v2/identity', token);
    expect(res.status).toBe(401);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]).toMatchObject({ status: '401' });
  });

  it('answers 401 for a refresh token used as an access token', async () => {
    const res = await getJson(sb.url, '/api/oauth2/v2/identity', sb.creatorTokens.refreshToken);
    expect(res.status).toBe(401);
  });

  it('gives a patron token with only identity no campaign data (401), but its identity', async () => {
    const patron = sb.issueTokens(patronId, ['identity']);
    expect((await getJson(sb.url, `/api/oauth2/v2/campaigns/${sb.campaignId}/members`, patron.accessToken)).status).toBe(401);
    expect((await getJson(sb.url, '/api/oauth2/v2/campaigns', patron.accessToken)).status).toBe(401);
    expect((await getJson(sb.url, `/api/oauth2/v2/members/${memberId}`, patron.accessToken)).status).toBe(401);
    expect((await getJson(sb.url, '/api/oauth2/v2/webhooks', patron.accessToken)).status).toBe(401);
    const me = await getJson(sb.url, '/api/oauth2/v2/identity?fields[user]=full_name,email', patron.accessToken);
    expect(me.status).toBe(200);
    // email needs identity[email]; without it the attribute is left out.
    expect(me.body.data.attributes).toEqual({ full_name: 'Pat Ron' });
  });

  it("lists only the membership to the client creator's campaign without identity.memberships", async () => {
    const other = sb.createUser({ fullName: 'Other Creator' });
    const elsewhere = sb.createCampaign({ creatorUserId: other.id });
    sb.setMembership(patronId, elsewhere.id, {}, { deliver: false });
    const narrow = sb.issueTokens(patronId, ['identity']);
    const wide = sb.issueTokens(patronId, ['identity', 'identity.memberships']);
    const query = '/api/oauth2/v2/identity?include=memberships,memberships.campaign&fields[member]=patron_status';
    const a = await getJson(sb.url, query, narrow.accessToken);
    const b = await getJson(sb.url, query, wide.accessToken);
    expect(a.body.data.relationships.memberships.data).toEqual([{ type: 'member', id: memberId }]);
    expect(b.body.data.relationships.memberships.data).toHaveLength(2);
    const campaigns = b.body.included.filter((r: { type: string }) => r.type === 'campaign').map((r: { id: string }) => r.id);
    expect(campaigns.sort()).toEqual([sb.campaignId, elsewhere.id].sort());
  });

  it('answers 401 once the access token expires by the injected clock', async () => {
    const patron = sb.issueTokens(patronId, ['identity']);
    expect((await getJson(sb.url, '/api/oauth2/v2/identity', patron.accessToken)).status).toBe(200);
    clock.advance(32 * DAY);
    expect((await getJson(sb.url, '/api/oauth2/v2/identity', patron.accessToken)).status).toBe(401);
  });

  it('answers 401 for an include that needs a scope the token lacks (address)', async () => {
    const limited = sb.issueTokens(sb.creatorUserId, ['campaigns', 'campaigns.members']);
    const res = await getJson(sb.url, `/api/oauth2/v2/members/${memberId}?include=address`, limited.accessToken);
    expect(res.status).toBe(401);
    const full = await getJson(
      sb.url,
      `/api/oauth2/v2/members/${memberId}?include=address`,
      sb.issueTokens(sb.creatorUserId, ['campaigns.members', 'campaigns.members.address']).accessToken,
    );
    expect(full.status).toBe(200);
    expect(full.body.data.relationships.address).toEqual({ data: null });
  });

  it('hides members and campaigns of other creators (404)', async () => {
    const stranger = sb.createUser({ fullName: 'Stranger' });
    const strangerToken = sb.issueTokens(stranger.id, ['campaigns', 'campaigns.members']).accessToken;
    expect((await getJson(sb.url, `/api/oauth2/v2/members/${memberId}`, strangerToken)).status).toBe(404);
    expect((await getJson(sb.url, `/api/oauth2/v2/campaigns/${sb.campaignId}`, strangerToken)).status).toBe(404);
    expect((await getJson(sb.url, `/api/oauth2/v2/campaigns/${sb.campaignId}/members`, strangerToken)).status).toBe(404);
  });

  it('serves v1 current_user with default attributes', async () => {
    const patron = sb.issueTokens(patronId, ['identity', 'identity.memberships']);
    const res = await getJson(sb.url, '/api/oauth2/api/current_user', patron.accessToken);
    expect(res.status).toBe(200);
    expect(res.body.data.attributes).toMatchObject({ full_name: 'Pat Ron', first_name: 'Pat', last_name: 'Ron' });
    expect(res.body.data.attributes.email).toBeUndefined();
    expect(res.body.included.length).toBeGreaterThan(0);
    expect(res.body.included[0]).toMatchObject({ type: 'pledge', attributes: { status: 'valid' } });
  });
});
