import { authorizeUrl, pkceChallenge, pkcePair } from '../../../../src/edges/outbound/patreon';
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
        codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      }),
    );
    expect(`${url.origin}${url.pathname}`).toBe('https://www.patreon.com/oauth2/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'cid',
      redirect_uri: REDIRECT,
      scope: 'identity identity.memberships',
      state: 'st',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
  });

  it('makes PKCE pairs as RFC 7636 does: a 43-character verifier, its S256 challenge', () => {
    // RFC 7636 Appendix B.
    expect(pkceChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    const a = pkcePair();
    const b = pkcePair();
    expect(a.verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.challenge).toBe(pkceChallenge(a.verifier));
    expect(a.verifier).not.toBe(b.verifier);
  });

  it('links a patron: authorize, exchange the code, read the identity with memberships', async () => {
    const tier = h.sb.createTier(h.sb.campaignId, { title: 'Gold', amountCents: 500 });
    const patron = h.sb.createUser({ fullName: 'Pat Ron', discordUserId: '323456789012345678' });
    const member = h.sb.setMembership(patron.id, h.sb.campaignId, { tierIds: [tier.id] }, { deliver: false });
    const pkce = pkcePair();
    const location = new URL(
      await h.sb.approveAuthorization(
        h.client.oauth.authorizeUrl({ redirectUri: REDIRECT, scopes: ['identity'], state: 'csrf-1', codeChallenge: pkce.challenge }),
        patron.id,
      ),
    );
    expect(location.searchParams.get('state')).toBe('csrf-1');
    const code = location.searchParams.get('code') ?? '';
    const tokens = await h.client.oauth.exchangeCode({ code, redirectUri: REDIRECT, codeVerifier: pkce.verifier });
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

  it('surfaces a used code, or a wrong PKCE verifier, as a typed 400 invalid_grant', async () => {
    const patron = h.sb.createUser({ fullName: 'Pat' });
    const pkce = pkcePair();
    const codeOf = async () =>
      new URL(
        await h.sb.approveAuthorization(
          h.client.oauth.authorizeUrl({ redirectUri: REDIRECT, scopes: ['identity'], state: 's', codeChallenge: pkce.challenge }),
          patron.id,
        ),
      ).searchParams.get('code') ?? '';
    const code = await codeOf();
    await h.client.oauth.exchangeCode({ code, redirectUri: REDIRECT, codeVerifier: pkce.verifier });
    await expect(h.client.oauth.exchangeCode({ code, redirectUri: REDIRECT, codeVerifier: pkce.verifier })).rejects.toMatchObject({
      kind: 'bad_request',
      status: 400,
      oauthError: 'invalid_grant',
    });
    const other = await codeOf();
    await expect(
      h.client.oauth.exchangeCode({ code: other, redirectUri: REDIRECT, codeVerifier: pkcePair().verifier }),
    ).rejects.toMatchObject({
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
