import { authorizeUrl } from '../../../src/edges/patreon';
import type { Harness } from './harness';
import { startHarness } from './harness';

const REDIRECT = 'http://127.0.0.1:9/oauth/callback';

describe('oauth (client) against the sandbox', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
    h.sb.registerRedirectUri(REDIRECT);
  });
  afterEach(() => h.close());

  it('builds the authorize URL of the spec', () => {
    const url = new URL(
      authorizeUrl({
        baseUrl: 'https://www.patreon.com/',
        clientId: 'cid',
        redirectUri: REDIRECT,
        scopes: ['identity', 'identity.memberships'],
        state: 'st',
      }),
    );
    expect(`${url.origin}${url.pathname}`).toBe('https://www.patreon.com/oauth2/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'cid',
      redirect_uri: REDIRECT,
      scope: 'identity identity.memberships',
      state: 'st',
    });
  });

  it('links a patron: authorize, exchange the code, read the identity with memberships', async () => {
    const tier = h.sb.createTier(h.sb.campaignId, { title: 'Gold', amountCents: 500 });
    const patron = h.sb.createUser({ fullName: 'Pat Ron', discordUserId: '323456789012345678' });
    const member = h.sb.setMembership(patron.id, h.sb.campaignId, { tierIds: [tier.id] }, { deliver: false });
    const location = new URL(
      await h.sb.approveAuthorization(
        h.client.oauth.authorizeUrl({ redirectUri: REDIRECT, scopes: ['identity'], state: 'csrf-1' }),
        patron.id,
      ),
    );
    expect(location.searchParams.get('state')).toBe('csrf-1');
    const tokens = await h.client.oauth.exchangeCode({ code: location.searchParams.get('code') ?? '', redirectUri: REDIRECT });
    expect(tokens.scopes).toEqual(['identity']);
    expect(tokens.expiresAt.getTime()).toBeGreaterThan(h.clock.now().getTime());

    const identity = await h.client.getIdentity(tokens.accessToken, { includeMemberships: true });
    expect(identity.user).toEqual({
      id: patron.id,
      fullName: 'Pat Ron',
      discordUserId: '323456789012345678',
      memberships: [{ memberId: member.id, campaignId: h.sb.campaignId }],
    });
    expect(identity.members).toHaveLength(1);
    expect(identity.members[0]).toMatchObject({
      id: member.id,
      userId: patron.id,
      campaignId: h.sb.campaignId,
      patronStatus: 'active_patron',
      entitledTierIds: [tier.id],
      discordUserId: '323456789012345678',
    });
    const last = h.sb.requests().at(-1);
    expect(last?.tokenKind).toBe('patron');
    expect(last?.query.include).toBe('memberships,memberships.campaign,memberships.currently_entitled_tiers');

    const plain = await h.client.getIdentity(tokens.accessToken);
    expect(plain.members).toEqual([]);
    expect(plain.user.memberships).toEqual([]);
  });

  it('surfaces a used code as a typed 400 invalid_grant', async () => {
    const patron = h.sb.createUser({ fullName: 'Pat' });
    const code =
      new URL(
        await h.sb.approveAuthorization(
          h.client.oauth.authorizeUrl({ redirectUri: REDIRECT, scopes: ['identity'], state: 's' }),
          patron.id,
        ),
      ).searchParams.get('code') ?? '';
    await h.client.oauth.exchangeCode({ code, redirectUri: REDIRECT });
    await expect(h.client.oauth.exchangeCode({ code, redirectUri: REDIRECT })).rejects.toMatchObject({
      kind: 'bad_request',
      status: 400,
      oauthError: 'invalid_grant',
    });
  });

  it('refreshes and rotates', async () => {
    const first = h.store.current();
    if (!first) throw new Error('no tokens');
    const next = await h.client.oauth.refreshToken(first.refreshToken);
    expect(next.refreshToken).not.toBe(first.refreshToken);
    await expect(h.client.oauth.refreshToken(first.refreshToken)).rejects.toMatchObject({ oauthError: 'invalid_grant' });
  });
});
