import { createDiscordUserOAuth } from '../../../../src/edges/outbound/discord/user-oauth';
import { Permission, createDiscordSandbox } from '@tierlink/sandbox/discord';
import type { DiscordSandbox } from '@tierlink/sandbox/discord';

const REDIRECT = 'http://127.0.0.1:9/dashboard/callback';

describe('Discord user OAuth client against the Discord stand-in', () => {
  let sandbox: DiscordSandbox;
  let aliceId: string;
  let guildId: string;

  beforeEach(async () => {
    sandbox = await createDiscordSandbox();
    sandbox.setOAuth2Application({ redirectUris: [REDIRECT] });
    aliceId = sandbox.createUser({ username: 'alice', globalName: 'Alice A.' }).id;
    ({ guildId } = sandbox.createGuild({ name: 'Creators' }));
    const staff = sandbox.createRole(guildId, { name: 'Staff', permissions: Permission.ManageRoles });
    sandbox.addMember(guildId, { userId: aliceId, roleIds: [staff.id] });
  });

  afterEach(async () => {
    await sandbox.close();
  });

  const client = (secret = sandbox.clientSecret) =>
    createDiscordUserOAuth({
      clientId: sandbox.applicationId,
      clientSecret: secret,
      webBaseUrl: sandbox.webBaseUrl,
      apiBaseUrl: sandbox.apiBaseUrl,
    });

  async function codeFor(userId: string, state = 'st'): Promise<URL> {
    const url = client().authorizeUrl({ scopes: ['identify', 'guilds'], state, redirectUri: REDIRECT });
    return new URL(await sandbox.approveAuthorization(url, userId));
  }

  it('builds the authorize URL on the web base, exchanges the code, reads the user and their guilds, and revokes', async () => {
    const oauth = client();
    const url = new URL(oauth.authorizeUrl({ scopes: ['identify', 'guilds'], state: 'abc', redirectUri: REDIRECT, prompt: 'none' }));
    expect(`${url.origin}${url.pathname}`).toBe(`${sandbox.webBaseUrl}/oauth2/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: sandbox.applicationId,
      scope: 'identify guilds',
      state: 'abc',
      redirect_uri: REDIRECT,
      prompt: 'none',
    });

    const back = await codeFor(aliceId, 'abc');
    expect(back.searchParams.get('state')).toBe('abc');
    const tokens = await oauth.exchangeCode(back.searchParams.get('code')!, REDIRECT);
    if (!tokens.ok) throw new Error(tokens.error.detail);
    expect(tokens.value).toMatchObject({ expiresIn: 604800, scopes: ['identify', 'guilds'] });

    expect(await oauth.currentUser(tokens.value.accessToken)).toEqual({
      ok: true,
      value: { id: aliceId, username: 'alice', globalName: 'Alice A.', locale: 'en-US' },
    });
    const guilds = await oauth.currentUserGuilds(tokens.value.accessToken);
    expect(guilds).toEqual({ ok: true, value: [{ id: guildId, name: 'Creators', owner: false, permissions: Permission.ManageRoles }] });

    expect(await oauth.revoke(tokens.value.accessToken)).toEqual({ ok: true, value: undefined });
    const after = await oauth.currentUser(tokens.value.accessToken);
    expect(after).toMatchObject({ ok: false, error: { kind: 'unauthorized', status: 401 } });
  });

  it('answers a used code, a wrong secret and a token without the scope as values', async () => {
    const code = (await codeFor(aliceId)).searchParams.get('code')!;
    expect(await client('not-the-secret-at-all').exchangeCode(code, REDIRECT)).toMatchObject({
      ok: false,
      error: { kind: 'invalid_client', status: 401 },
    });
    const fresh = (await codeFor(aliceId)).searchParams.get('code')!;
    expect((await client().exchangeCode(fresh, REDIRECT)).ok).toBe(true);
    expect(await client().exchangeCode(fresh, REDIRECT)).toMatchObject({ ok: false, error: { kind: 'invalid_grant', status: 400 } });

    const identifyOnly = sandbox.issueUserTokens(aliceId, ['identify']);
    expect(await client().currentUserGuilds(identifyOnly.accessToken)).toMatchObject({ ok: false, error: { kind: 'unauthorized' } });
  });

  it('reports a rate limit with its wait, and an unreachable Discord as unavailable', async () => {
    const tokens = sandbox.issueUserTokens(aliceId, ['identify', 'guilds']);
    sandbox.setRateLimit({ route: 'user-guilds', limit: 1, windowMs: 60_000 });
    expect((await client().currentUserGuilds(tokens.accessToken)).ok).toBe(true);
    const limited = await client().currentUserGuilds(tokens.accessToken);
    expect(limited).toMatchObject({ ok: false, error: { kind: 'rate_limited', status: 429 } });
    expect(!limited.ok && limited.error.retryAfterMs).toBeGreaterThan(0);

    const nowhere = createDiscordUserOAuth({
      clientId: sandbox.applicationId,
      clientSecret: sandbox.clientSecret,
      webBaseUrl: 'http://127.0.0.1:9',
      apiBaseUrl: 'http://127.0.0.1:9/api',
      timeoutMs: 2000,
    });
    expect(await nowhere.currentUser(tokens.accessToken)).toMatchObject({ ok: false, error: { kind: 'unavailable', status: null } });
  });
});
