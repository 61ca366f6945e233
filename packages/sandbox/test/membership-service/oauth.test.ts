import { createHash } from 'node:crypto';
import { MINUTE, createManualClock } from '@tierlink/sandbox';
import type { MembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { getJson, postForm } from './raw-http';

const REDIRECT = 'http://127.0.0.1:9/oauth/callback';

describe('membership-service sandbox: OAuth (spec: OAuth endpoints, Authentication §4)', () => {
  const clock = createManualClock();
  let sb: MembershipServiceSandbox;
  let patronId: string;

  beforeAll(async () => {
    sb = await createMembershipServiceSandbox({ clock });
    sb.registerRedirectUri(REDIRECT);
    patronId = sb.createUser({ fullName: 'Pat Ron' }).id;
  });
  afterAll(() => sb.close());

  const authorize = (extra: Record<string, string> = {}): string =>
    `${sb.url}/oauth2/authorize?${new URLSearchParams({ response_type: 'code', client_id: sb.clientId, redirect_uri: REDIRECT, scope: 'identity', state: 's t/ä', ...extra })}`;

  const exchange = (code: string, redirectUri = REDIRECT, extra: Record<string, string> = {}) =>
    postForm(sb.url, '/api/oauth2/token', {
      grant_type: 'authorization_code',
      code,
      client_id: sb.clientId,
      client_secret: sb.clientSecret,
      redirect_uri: redirectUri,
      ...extra,
    });

  const codeOf = (location: string): string => new URL(location).searchParams.get('code') ?? '';

  it('walks the consent page over plain HTTP and redirects with code and the state unchanged', async () => {
    const page = await fetch(authorize());
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    const request = /name="request" value="([^"]+)"/.exec(html)?.[1] ?? '';
    const decision = await fetch(`${sb.url}/__sandbox/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ request, user_id: patronId, decision: 'allow' }).toString(),
      redirect: 'manual',
    });
    expect(decision.status).toBe(302);
    const location = new URL(decision.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get('state')).toBe('s t/ä');
    expect(location.searchParams.get('code')).toBeTruthy();
  });

  it.each([
    ['an unknown client', { client_id: 'nope' }],
    ['an unregistered redirect_uri', { redirect_uri: 'http://evil.example/cb' }],
    ['response_type other than code', { response_type: 'token' }],
    ['a non-v2 scope', { scope: 'identity pledges-to-me' }],
  ])('refuses %s with a 400 page and no redirect', async (_label, extra) => {
    const res = await fetch(authorize(extra), { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-type')).toContain('text/html');
  });

  it.each([
    ['a method it does not know', { code_challenge: 'a'.repeat(43), code_challenge_method: 'S512' }],
    ['a challenge shorter than 43 characters', { code_challenge: 'a'.repeat(42), code_challenge_method: 'S256' }],
    ['a challenge with characters outside [A-Za-z0-9-._~]', { code_challenge: `${'a'.repeat(42)}+`, code_challenge_method: 'S256' }],
    ['a method without a challenge', { code_challenge_method: 'S256' }],
  ])('refuses a PKCE request with %s', async (_label, extra) => {
    const res = await fetch(authorize(extra), { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  describe('PKCE (RFC 7636)', () => {
    const verifier = 'v'.repeat(20) + '-._~' + 'Z9'.repeat(12);
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const pkce = { code_challenge: challenge, code_challenge_method: 'S256' };

    it('exchanges an S256 code only with the matching code_verifier', async () => {
      const code = codeOf(await sb.approveAuthorization(authorize(pkce), patronId));
      expect((await exchange(code, REDIRECT, { code_verifier: verifier })).status).toBe(200);
    });

    it.each([
      ['no code_verifier', {}],
      ['another code_verifier', { code_verifier: `${verifier.slice(1)}x` }],
      ['the challenge itself as verifier', { code_verifier: challenge }],
    ])('refuses %s with invalid_grant, and the code is spent', async (_label, extra: Record<string, string>) => {
      const code = codeOf(await sb.approveAuthorization(authorize(pkce), patronId));
      const refused = await exchange(code, REDIRECT, extra);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBe('invalid_grant');
      expect((await exchange(code, REDIRECT, { code_verifier: verifier })).body.error).toBe('invalid_grant');
    });

    it('refuses a code_verifier for a code asked for without a challenge', async () => {
      const code = codeOf(await sb.approveAuthorization(authorize(), patronId));
      expect((await exchange(code, REDIRECT, { code_verifier: verifier })).body.error).toBe('invalid_grant');
    });

    it('takes a plain challenge as the verifier itself (the RFC default method)', async () => {
      const code = codeOf(await sb.approveAuthorization(authorize({ code_challenge: verifier }), patronId));
      expect((await exchange(code, REDIRECT, { code_verifier: verifier })).status).toBe(200);
    });
  });

  it('redirects with error=access_denied on Deny', async () => {
    const location = new URL(await sb.denyAuthorization(authorize({ state: 'xyz' })));
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('xyz');
    expect(location.searchParams.get('code')).toBeNull();
  });

  it('exchanges a code once; a second use is invalid_grant', async () => {
    const code = codeOf(await sb.approveAuthorization(authorize(), patronId));
    const first = await exchange(code);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ token_type: 'Bearer', scope: 'identity', expires_in: expect.any(Number) });
    const me = await getJson(sb.url, '/api/oauth2/v2/identity', first.body.access_token);
    expect(me.body.data.id).toBe(patronId);
    const second = await exchange(code);
    expect(second.status).toBe(400);
    expect(second.body.error).toBe('invalid_grant');
  });

  it('binds the code to the redirect_uri and to the client, and expires it after 10 minutes', async () => {
    const code = codeOf(await sb.approveAuthorization(authorize(), patronId));
    expect((await exchange(code, 'http://127.0.0.1:9/other')).status).toBe(400);
    const wrongSecret = await postForm(sb.url, '/api/oauth2/token', {
      grant_type: 'authorization_code',
      code,
      client_id: sb.clientId,
      client_secret: 'x',
      redirect_uri: REDIRECT,
    });
    expect(wrongSecret.status).toBe(401);
    const late = codeOf(await sb.approveAuthorization(authorize(), patronId));
    clock.advance(10 * MINUTE + 1);
    expect((await exchange(late)).body.error).toBe('invalid_grant');
  });

  it('accepts only form-encoded token requests', async () => {
    const code = codeOf(await sb.approveAuthorization(authorize(), patronId));
    const res = await postForm(
      sb.url,
      '/api/oauth2/token',
      { grant_type: 'authorization_code', code, client_id: sb.clientId, client_secret: sb.clientSecret, redirect_uri: REDIRECT },
      'application/json',
    );
    expect(res.status).toBe(400);
    expect((await exchange(code)).status).toBe(200);
  });

  it('rotates refresh tokens: the used one stops working, and so does its access token', async () => {
    const refresh = (token: string) =>
      postForm(sb.url, '/api/oauth2/token', {
        grant_type: 'refresh_token',
        refresh_token: token,
        client_id: sb.clientId,
        client_secret: sb.clientSecret,
      });
    const original = sb.issueTokens(sb.creatorUserId, ['campaigns']);
    const next = await refresh(original.refreshToken);
    expect(next.status).toBe(200);
    expect(next.body.refresh_token).not.toBe(original.refreshToken);
    expect(next.body.scope).toBe('campaigns');
    expect((await refresh(original.refreshToken)).body.error).toBe('invalid_grant');
    expect((await getJson(sb.url, '/api/oauth2/v2/campaigns', original.accessToken)).status).toBe(401);
    expect((await getJson(sb.url, '/api/oauth2/v2/campaigns', next.body.access_token)).status).toBe(200);
    sb.revokeRefreshToken(next.body.refresh_token);
    expect((await refresh(next.body.refresh_token)).status).toBe(400);
  });
});
