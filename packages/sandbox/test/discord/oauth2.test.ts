import { randomBytes } from 'node:crypto';
import { REST } from '@discordjs/rest';
import { Routes } from 'discord.js';
import { createManualClock } from '@tierlink/sandbox';
import { Permission, SESSION_COOKIE, createDiscordSandbox, pkceChallenge, requestIdFromAuthorizePage } from '@tierlink/sandbox/discord';
import type { DiscordSandbox } from '@tierlink/sandbox/discord';
import { call, codeOf } from './http';

const REDIRECT = 'http://127.0.0.1:9/dashboard/callback';

function authorizeUrl(sandbox: DiscordSandbox, params: Record<string, string> = {}): string {
  const url = new URL('/oauth2/authorize', sandbox.webBaseUrl);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: sandbox.applicationId,
    scope: 'identify guilds',
    redirect_uri: REDIRECT,
    state: 'st-123',
    ...params,
  }).toString();
  return url.toString();
}

function basic(sandbox: DiscordSandbox, secret = sandbox.clientSecret): string {
  return `Basic ${Buffer.from(`${sandbox.applicationId}:${secret}`).toString('base64')}`;
}

async function codeFor(sandbox: DiscordSandbox, userId: string, params: Record<string, string> = {}): Promise<string> {
  const location = new URL(await sandbox.approveAuthorization(authorizeUrl(sandbox, params), userId));
  return location.searchParams.get('code') ?? '';
}

function exchange(sandbox: DiscordSandbox, code: string, extra: Record<string, string> = {}) {
  return call(sandbox, 'POST', '/oauth2/token', {
    auth: basic(sandbox),
    form: { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, ...extra },
  });
}

describe('Discord sandbox OAuth2 (authorization code)', () => {
  let sandbox: DiscordSandbox;
  let guildId: string;
  let aliceId: string;

  beforeEach(async () => {
    sandbox = await createDiscordSandbox();
    sandbox.setOAuth2Application({ redirectUris: [REDIRECT] });
    aliceId = sandbox.createUser({ username: 'alice', globalName: 'Alice' }).id;
    ({ guildId } = sandbox.createGuild({ name: 'Creators', ownerId: aliceId }));
  });

  afterEach(async () => {
    await sandbox.close();
  });

  it('signs a user in: authorize, code, token, /users/@me and /users/@me/guilds with owner and permissions', async () => {
    const location = new URL(await sandbox.approveAuthorization(authorizeUrl(sandbox), aliceId));
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get('state')).toBe('st-123');
    const token = await exchange(sandbox, location.searchParams.get('code') ?? '');
    expect(token.status).toBe(200);
    expect(token.headers.get('cache-control')).toBe('no-store');
    const body = token.body as Record<string, unknown>;
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 604800, scope: 'identify guilds' });
    const bearer = `Bearer ${String(body.access_token)}`;

    const me = await call(sandbox, 'GET', '/users/@me', { auth: bearer });
    expect(me.body).toMatchObject({ id: aliceId, username: 'alice', global_name: 'Alice' });
    expect((me.body as Record<string, unknown>).email).toBeUndefined();

    const bob = sandbox.addMember(guildId, { username: 'bob' }).userId;
    const other = sandbox.createGuild({ name: 'Elsewhere' }).guildId;
    const staff = sandbox.createRole(other, { name: 'Staff', permissions: Permission.ManageRoles });
    sandbox.addMember(other, { userId: aliceId, roleIds: [staff.id] });
    const guilds = await call(sandbox, 'GET', '/users/@me/guilds', { auth: bearer });
    const list = guilds.body as Array<{ id: string; owner: boolean; permissions: string }>;
    expect(list.map((g) => [g.id, g.owner, typeof g.permissions])).toEqual([
      [guildId, true, 'string'],
      [other, false, 'string'],
    ]);
    expect(BigInt(list[1]?.permissions ?? '0')).toBe(Permission.ManageRoles);
    expect(BigInt(list[0]?.permissions ?? '0') & Permission.Administrator).toBe(Permission.Administrator);
    // Only the guilds the token's user is in.
    const bobsView = sandbox.issueUserTokens(bob, ['guilds']);
    const bobGuilds = await call(sandbox, 'GET', '/users/@me/guilds', { auth: `Bearer ${bobsView.accessToken}` });
    expect((bobGuilds.body as Array<{ id: string }>).map((g) => g.id)).toEqual([guildId]);

    // Each user's token has its own /users/@me/guilds bucket.
    sandbox.setRateLimit({ route: 'user-guilds', limit: 1, windowMs: 60_000 });
    expect((await call(sandbox, 'GET', '/users/@me/guilds', { auth: bearer })).status).toBe(200);
    expect((await call(sandbox, 'GET', '/users/@me/guilds', { auth: bearer })).status).toBe(429);
    expect((await call(sandbox, 'GET', '/users/@me/guilds', { auth: `Bearer ${bobsView.accessToken}` })).status).toBe(200);
    expect((await call(sandbox, 'GET', '/users/@me', { auth: bearer })).status).toBe(200);
  });

  it('takes a code once, for the redirect URI it was issued with, and answers RFC 6749 errors', async () => {
    const code = await codeFor(sandbox, aliceId);
    const wrongRedirect = await exchange(sandbox, code, { redirect_uri: 'http://127.0.0.1:9/elsewhere' });
    expect([wrongRedirect.status, wrongRedirect.body]).toEqual([
      400,
      { error: 'invalid_grant', error_description: 'Invalid "redirect_uri" in request.' },
    ]);
    // The code was spent by that attempt: it is single-use.
    const again = await exchange(sandbox, code);
    expect([again.status, again.body]).toEqual([400, { error: 'invalid_grant', error_description: 'Invalid "code" in request.' }]);

    const fresh = await codeFor(sandbox, aliceId);
    const badSecret = await call(sandbox, 'POST', '/oauth2/token', {
      auth: basic(sandbox, 'not-the-secret'),
      form: { grant_type: 'authorization_code', code: fresh, redirect_uri: REDIRECT },
    });
    expect([badSecret.status, badSecret.body]).toEqual([401, { error: 'invalid_client' }]);
    const json = await call(sandbox, 'POST', '/oauth2/token', {
      auth: basic(sandbox),
      body: { grant_type: 'authorization_code', code: fresh, redirect_uri: REDIRECT },
    });
    expect([json.status, json.body]).toEqual([
      400,
      { error: 'unsupported_grant_type', error_description: 'Grant type None is not supported' },
    ]);
    // Client credentials in the form body work as well as Basic.
    const inBody = await call(sandbox, 'POST', '/oauth2/token', {
      auth: null,
      form: {
        grant_type: 'authorization_code',
        code: fresh,
        redirect_uri: REDIRECT,
        client_id: sandbox.applicationId,
        client_secret: sandbox.clientSecret,
      },
    });
    expect(inBody.status).toBe(200);
  });

  it('prompt=none skips the page only for a logged-in browser whose user already authorized every scope asked, until revoked', async () => {
    /** A browser: the stand-in's session cookie, kept between requests to its web pages. */
    let cookie = '';
    const open = async (url: string) => {
      const res = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
      const set = res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
      if (set) cookie = set.split(';')[0]!;
      return { status: res.status, location: res.headers.get('location'), html: await res.text() };
    };
    const allow = async (html: string) => {
      const res = await fetch(new URL('/oauth2/authorize', sandbox.webBaseUrl), {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
        body: new URLSearchParams({ request: requestIdFromAuthorizePage(html)!, decision: 'allow', user_id: aliceId }).toString(),
      });
      const set = res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
      if (set) cookie = set.split(';')[0]!;
      return new URL(res.headers.get('location')!);
    };
    const none = (scope: string) => authorizeUrl(sandbox, { scope, prompt: 'none' });

    // Never authorized: Discord asks, prompt=none or not. Allowing logs the browser in.
    const first = await open(none('identify'));
    expect(first.status).toBe(200);
    expect((await allow(first.html)).searchParams.get('code')).toBeTruthy();
    expect(cookie).toMatch(new RegExp(`^${SESSION_COOKIE}=`));

    // Authorized for identify: prompt=none answers at once with a code for that user and the state.
    const skipped = await open(none('identify'));
    expect(skipped.status).toBe(302);
    const answer = new URL(skipped.location!);
    expect([answer.searchParams.get('state'), answer.searchParams.has('code')]).toEqual(['st-123', true]);
    const token = await exchange(sandbox, answer.searchParams.get('code')!);
    expect(token.status).toBe(200);
    const accessToken = (token.body as { access_token: string }).access_token;
    const me = await call(sandbox, 'GET', '/users/@me', { auth: `Bearer ${accessToken}` });
    expect((me.body as { id: string }).id).toBe(aliceId);

    // A scope not authorized yet, no prompt, or prompt=consent: the page asks again.
    expect((await open(none('identify guilds'))).status).toBe(200);
    expect((await open(authorizeUrl(sandbox, { scope: 'identify' }))).status).toBe(200);
    expect((await open(authorizeUrl(sandbox, { scope: 'identify', prompt: 'consent' }))).status).toBe(200);
    // Another browser (no session) is asked too.
    const elsewhere = await fetch(none('identify'), { redirect: 'manual' });
    expect(elsewhere.status).toBe(200);

    // Revoking a token ends the authorization: the next prompt=none asks again.
    const revoked = await call(sandbox, 'POST', '/oauth2/token/revoke', { auth: basic(sandbox), form: { token: accessToken } });
    expect(revoked.status).toBe(200);
    expect((await open(none('identify'))).status).toBe(200);
  });

  it('refuses bad authorize requests on the page, and a user who cancels comes back with access_denied', async () => {
    await expect(sandbox.approveAuthorization(authorizeUrl(sandbox, { redirect_uri: 'http://evil.example/cb' }), aliceId)).rejects.toThrow(
      /redirect_uri/,
    );
    await expect(sandbox.approveAuthorization(authorizeUrl(sandbox, { scope: 'identify bot' }), aliceId)).rejects.toThrow(/scope/);
    await expect(sandbox.approveAuthorization(authorizeUrl(sandbox, { client_id: '1234567890123456789' }), aliceId)).rejects.toThrow(
      /application/i,
    );
    await expect(sandbox.approveAuthorization(authorizeUrl(sandbox), sandbox.botUserId)).rejects.toThrow(/No sandbox user/);
    const denied = new URL(await sandbox.denyAuthorization(authorizeUrl(sandbox)));
    expect([denied.searchParams.get('error'), denied.searchParams.get('state'), denied.searchParams.get('code')]).toEqual([
      'access_denied',
      'st-123',
      null,
    ]);
  });

  it('verifies PKCE S256 when a challenge was sent, and refuses other methods', async () => {
    const verifier = randomBytes(48).toString('base64url');
    const pkce = { code_challenge: pkceChallenge(verifier), code_challenge_method: 'S256' };
    const missing = await exchange(sandbox, await codeFor(sandbox, aliceId, pkce));
    expect([missing.status, missing.body]).toEqual([400, { error: 'invalid_request', error_description: 'Invalid "code_verifier"' }]);
    const wrong = await exchange(sandbox, await codeFor(sandbox, aliceId, pkce), { code_verifier: randomBytes(48).toString('base64url') });
    expect([wrong.status, (wrong.body as { error: string }).error]).toEqual([400, 'invalid_grant']);
    const right = await exchange(sandbox, await codeFor(sandbox, aliceId, pkce), { code_verifier: verifier });
    expect(right.status).toBe(200);

    const plain = new URL(
      await sandbox.approveAuthorization(authorizeUrl(sandbox, { code_challenge: verifier, code_challenge_method: 'plain' }), aliceId),
    );
    expect([plain.searchParams.get('error'), plain.searchParams.get('error_description')]).toEqual([
      'invalid_request',
      'Unsupported "code_challenge_method"',
    ]);
  });

  it('rotates refresh tokens, and revoking one token ends the whole authorization', async () => {
    const first = (await exchange(sandbox, await codeFor(sandbox, aliceId))).body as Record<string, string>;
    const refresh = (form: Record<string, string>) => call(sandbox, 'POST', '/oauth2/token', { auth: basic(sandbox), form });
    const second = await refresh({ grant_type: 'refresh_token', refresh_token: first.refresh_token ?? '' });
    expect(second.status).toBe(200);
    const rotated = second.body as Record<string, string>;
    expect(rotated.refresh_token).not.toBe(first.refresh_token);
    const reused = await refresh({ grant_type: 'refresh_token', refresh_token: first.refresh_token ?? '' });
    expect([reused.status, reused.body]).toEqual([
      400,
      { error: 'invalid_grant', error_description: 'Invalid "refresh_token" in request' },
    ]);

    const revoke = await call(sandbox, 'POST', '/oauth2/token/revoke', {
      auth: basic(sandbox),
      form: { token: rotated.refresh_token ?? '', token_type_hint: 'refresh_token' },
    });
    expect([revoke.status, revoke.body]).toEqual([200, {}]);
    for (const access of [first.access_token, rotated.access_token]) {
      const me = await call(sandbox, 'GET', '/users/@me', { auth: `Bearer ${access ?? ''}` });
      expect([me.status, me.body]).toEqual([401, { message: '401: Unauthorized', code: 0 }]);
    }
    expect(sandbox.userTokensIssuedTo(aliceId)).toHaveLength(2);
  });

  it('enforces scopes with 401 / 0 and keeps user tokens off bot routes', async () => {
    const identifyOnly = sandbox.issueUserTokens(aliceId, ['identify']);
    const guildsOnly = sandbox.issueUserTokens(aliceId, ['guilds']);
    const cases = [
      await call(sandbox, 'GET', '/users/@me/guilds', { auth: `Bearer ${identifyOnly.accessToken}` }),
      await call(sandbox, 'GET', '/users/@me', { auth: `Bearer ${guildsOnly.accessToken}` }),
      await call(sandbox, 'GET', `/guilds/${guildId}`, { auth: `Bearer ${identifyOnly.accessToken}` }),
      await call(sandbox, 'GET', `/users/@me/guilds/${guildId}/member`, { auth: `Bearer ${identifyOnly.accessToken}` }),
      await call(sandbox, 'GET', '/oauth2/@me', { auth: `Bot ${sandbox.botToken}` }),
    ];
    expect(cases.map((a) => [a.status, codeOf(a)])).toEqual(Array(5).fill([401, 0]));
    const withEmail = sandbox.issueUserTokens(aliceId, ['identify', 'email']);
    const me = await call(sandbox, 'GET', '/users/@me', { auth: `Bearer ${withEmail.accessToken}` });
    expect(me.body).toMatchObject({ id: aliceId, verified: true, email: expect.stringContaining('@') as unknown });
    expect((me.body as Record<string, unknown>).premium_type).toBeUndefined();
    const withMember = sandbox.issueUserTokens(aliceId, ['identify', 'guilds.members.read']);
    const member = await call(sandbox, 'GET', `/users/@me/guilds/${guildId}/member`, { auth: `Bearer ${withMember.accessToken}` });
    expect(member.body).toMatchObject({ user: { id: aliceId }, roles: [] });
    const notMember = sandbox.createGuild().guildId;
    const unknown = await call(sandbox, 'GET', `/users/@me/guilds/${notMember}/member`, { auth: `Bearer ${withMember.accessToken}` });
    expect([unknown.status, codeOf(unknown)]).toEqual([404, 10004]);
    const info = await call(sandbox, 'GET', '/oauth2/@me', { auth: `Bearer ${withMember.accessToken}` });
    expect(info.body).toMatchObject({
      application: { id: sandbox.applicationId, verify_key: sandbox.publicKey },
      scopes: ['identify', 'guilds.members.read'],
      user: { id: aliceId },
    });
  });

  it('serves the flow to @discordjs/rest: a form token exchange without auth, then Bearer requests', async () => {
    const code = await codeFor(sandbox, aliceId);
    const rest = new REST({ api: sandbox.apiBaseUrl });
    const token = (await rest.post(Routes.oauth2TokenExchange(), {
      auth: false,
      passThroughBody: true,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        client_id: sandbox.applicationId,
        client_secret: sandbox.clientSecret,
      }).toString(),
    })) as { access_token: string };
    const asUser = new REST({ api: sandbox.apiBaseUrl, authPrefix: 'Bearer' }).setToken(token.access_token);
    expect(await asUser.get(Routes.user())).toMatchObject({ id: aliceId });
    expect(((await asUser.get(Routes.userGuilds())) as Array<{ id: string }>).map((g) => g.id)).toEqual([guildId]);
    sandbox.expireAccessToken(token.access_token);
    await expect(asUser.get(Routes.user())).rejects.toMatchObject({ status: 401 });
  });

  it('offers OAuth2 through the HTTP control API', async () => {
    const control = (path: string, method: string, body?: unknown) =>
      fetch(`${sandbox.baseUrl}/__sandbox${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
    const app = (await (
      await control('/oauth2/application', 'PUT', { clientSecret: 'a-new-secret', redirectUris: [REDIRECT] })
    ).json()) as {
      clientId: string;
      clientSecret: string;
    };
    expect(app).toEqual({ clientId: sandbox.applicationId, clientSecret: 'a-new-secret', redirectUris: [REDIRECT] });
    const user = (await (await control('/users', 'POST', { username: 'carol' })).json()) as { id: string };
    const answered = (await (await control('/oauth2/authorizations', 'POST', { url: authorizeUrl(sandbox), userId: user.id })).json()) as {
      location: string;
    };
    const code = new URL(answered.location).searchParams.get('code') ?? '';
    expect((await exchange(sandbox, code)).status).toBe(200);
    const refused = await control('/oauth2/authorizations', 'POST', { url: authorizeUrl(sandbox, { scope: 'nope' }), userId: user.id });
    expect(refused.status).toBe(400);
  });
});

describe('Discord sandbox OAuth2 codes', () => {
  it('expire after ten minutes by the sandbox clock', async () => {
    const clock = createManualClock();
    const sandbox = await createDiscordSandbox({ clock });
    try {
      sandbox.setOAuth2Application({ redirectUris: [REDIRECT] });
      const alice = sandbox.createUser({ username: 'alice' }).id;
      const code = await codeFor(sandbox, alice);
      clock.advance(10 * 60_000);
      const late = await exchange(sandbox, code);
      expect([late.status, (late.body as { error: string }).error]).toEqual([400, 'invalid_grant']);
    } finally {
      await sandbox.close();
    }
  });
});
