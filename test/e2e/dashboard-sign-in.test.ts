import net from 'node:net';
import { Permission } from '@tierlink/sandbox/discord';
import { DashboardBrowser, signIn } from '../support/dashboard-client';
import { type E2E, pageText, startE2E } from '../support/e2e';

/**
 * Signing in to the dashboard with Discord, through the Discord stand-in's consent page over real
 * HTTP: who gets in (Manage Server or Manage Roles in the server, read from Discord on every request),
 * who does not, and the sign-in's state bound to the browser that started it; and the overview a
 * moderator then sees: the webhook's health and `/doctor`'s problems with their fixes.
 */

let e: E2E;
let staffRole: string;
beforeAll(async () => {
  // Invited as the README says (Manage Roles and Create Invite), so /doctor finds nothing in this server.
  e = await startE2E({ connected: true });
  staffRole = e.discord.createRole(e.guildId, { name: 'Moderators', permissions: Permission.ManageRoles }).id;
}, 60_000);
afterAll(() => e?.stop());

test('the owner signs in with Discord, sees the server, and opens its overview', async () => {
  const { browser, landing } = await signIn(e, e.ownerId);
  expect(landing.status).toBe(200);
  expect(pageText(landing.html)).toContain('Choose a server');
  expect(landing.html).toContain(`href="/dashboard/${e.guildId}"`);
  expect(pageText(landing.html)).toContain('Fan Club');

  const overview = await browser.get(`/dashboard/${e.guildId}`);
  expect(overview.status).toBe(200);
  const text = pageText(overview.html);
  expect(text).toContain('Overview');
  expect(text).toContain('Patreon connection');
  expect(text).toContain('Role changes per day');
  expect(text).toContain('Last syncs');
  expect(overview.headers.get('content-security-policy')).toContain("form-action 'self'");
  expect(overview.headers.get('cache-control')).toBe('no-store');
});

test('the session cookie is HttpOnly and SameSite=Lax, and the Discord token used to sign in no longer works', async () => {
  e.discord.registerRedirectUri(`${e.url}/dashboard/callback`);
  const browser = new DashboardBrowser(e.url);
  const login = await browser.get('/dashboard/login');
  const stateCookie = login.headers.getSetCookie().find((c) => c.startsWith('tierlink-signin='))!;
  expect(stateCookie).toMatch(/HttpOnly/i);
  expect(stateCookie).toMatch(/SameSite=Lax/i);
  const authorize = new URL(login.location!);
  expect(`${authorize.origin}${authorize.pathname}`).toBe(`${e.discord.webBaseUrl}/oauth2/authorize`);
  expect(authorize.searchParams.get('scope')).toBe('identify guilds');
  expect(authorize.searchParams.get('redirect_uri')).toBe(`${e.url}/dashboard/callback`);

  const callback = new URL(await e.discord.approveAuthorization(login.location!, e.ownerId));
  const answer = await browser.get(callback.pathname + callback.search);
  expect(answer.status).toBe(303);
  const session = answer.headers.getSetCookie().find((c) => c.startsWith('tierlink-session='))!;
  expect(session).toMatch(/HttpOnly/i);
  expect(session).toMatch(/SameSite=Lax/i);
  expect(session).not.toMatch(/Secure/i);
  // Nothing Tierlink keeps acts as the user on Discord: every token issued for the sign-in is revoked.
  const issued = e.discord.userTokensIssuedTo(e.ownerId);
  expect(issued.length).toBeGreaterThan(0);
  for (const pair of issued) {
    const me = await fetch(`${e.discord.apiBaseUrl}/v10/users/@me`, { headers: { authorization: `Bearer ${pair.accessToken}` } });
    expect(me.status).toBe(401);
  }
  // Neither the session nor the code from Discord reaches the log.
  expect(e.log.text()).not.toContain(browser.cookie('tierlink-session') ?? 'no cookie');
  expect(e.log.text()).not.toContain(callback.searchParams.get('code') ?? 'no code');
  expect(e.log.text()).toContain('/dashboard/callback?code=%5Bredacted%5D');
});

test('an answer from Discord is accepted only in the browser that started the sign-in, and only once', async () => {
  e.discord.registerRedirectUri(`${e.url}/dashboard/callback`);
  const victim = new DashboardBrowser(e.url);
  const login = await victim.get('/dashboard/login');
  const callback = new URL(await e.discord.approveAuthorization(login.location!, e.ownerId));
  // Another browser (no sign-in cookie of its own) cannot use the answer.
  const elsewhere = await new DashboardBrowser(e.url).get(callback.pathname + callback.search);
  expect(elsewhere.status).toBe(400);
  expect(pageText(elsewhere.html)).toContain('was not started in this browser');
  // A state that is not the browser's own is refused too.
  const forged = new URL(callback);
  forged.searchParams.set('state', 'x'.repeat(32));
  expect((await victim.get(forged.pathname + forged.search)).status).toBe(400);
  // The first failed attempt cleared the sign-in cookie: the real answer is no longer accepted either.
  expect((await victim.get(callback.pathname + callback.search)).status).toBe(400);

  // Cancelling on Discord's page signs nobody in.
  const again = new DashboardBrowser(e.url);
  const second = await again.get('/dashboard/login');
  const denied = new URL(await e.discord.denyAuthorization(second.location!));
  const page = await again.get(denied.pathname + denied.search);
  expect([page.status, pageText(page.html)]).toEqual([200, expect.stringContaining('You cancelled on Discord’s page')]);
  expect(again.cookie('tierlink-session')).toBeUndefined();
});

test('a member without Manage Server or Manage Roles is refused, however the page is reached', async () => {
  const plain = e.discord.addMember(e.guildId, { username: 'plain' }).userId;
  const { browser, landing } = await signIn(e, plain);
  expect(pageText(landing.html)).toContain('You need Manage Server or Manage Roles here.');
  expect(landing.html).not.toContain(`href="/dashboard/${e.guildId}"`);
  for (const path of ['', '/tiers', '/members', '/audit', '/audit.csv', '/syncs']) {
    const page = await browser.get(`/dashboard/${e.guildId}${path}`);
    expect([path, page.status]).toEqual([path, 403]);
    expect(pageText(page.html)).toContain('needs the Manage Server or Manage Roles permission');
  }
  const post = await browser.post(`/dashboard/${e.guildId}/tiers/map`, { tier: 'Gold', role: e.roles.gold }, { csrfFrom: landing.html });
  expect(post.status).toBe(403);
});

test('permissions are read from Discord on every request: losing the role closes the dashboard at once', async () => {
  const moderator = e.discord.addMember(e.guildId, { username: 'mod', roleIds: [staffRole] }).userId;
  const { browser } = await signIn(e, moderator);
  expect((await browser.get(`/dashboard/${e.guildId}/members`)).status).toBe(200);
  e.discord.setMemberRolesByHand(e.guildId, moderator, []);
  expect((await browser.get(`/dashboard/${e.guildId}/members`)).status).toBe(403);
  // A server Tierlink is not in, and a server the user is not in, are not found / refused.
  expect((await browser.get('/dashboard/123456789012345678')).status).toBe(404);
  const other = e.discord.createGuild({ name: 'Elsewhere' }).guildId;
  await new Promise((r) => setTimeout(r, 200));
  const foreign = await browser.get(`/dashboard/${other}`);
  expect([403, 404]).toContain(foreign.status);
});

test('without a session, pages ask to sign in and forms change nothing; signing out ends the session', async () => {
  const anonymous = new DashboardBrowser(e.url);
  const page = await anonymous.get(`/dashboard/${e.guildId}/tiers`);
  expect(page.status).toBe(401);
  expect(page.html).toContain(`/dashboard/login?next=${encodeURIComponent(`/dashboard/${e.guildId}/tiers`)}`);
  expect((await anonymous.post(`/dashboard/${e.guildId}/settings`, { grace_days: '1' })).status).toBe(401);

  const { browser, landing } = await signIn(e, e.ownerId, `/dashboard/${e.guildId}/syncs`);
  expect(pageText(landing.html)).toContain('History');
  const out = await browser.post('/dashboard/logout', {}, { csrfFrom: landing.html });
  expect([out.status, out.location]).toEqual([303, '/dashboard']);
  expect(browser.cookie('tierlink-session')).toBeUndefined();
  expect((await browser.get(`/dashboard/${e.guildId}`)).status).toBe(401);
});

test('an open redirect through ?next= is not possible', async () => {
  const { landing } = await signIn(e, e.ownerId, 'https://evil.example/');
  expect(pageText(landing.html)).toContain('Choose a server');
  const { landing: slashes } = await signIn(e, e.ownerId, '//evil.example/dashboard');
  expect(pageText(slashes.html)).toContain('Choose a server');
});

test('a healthy server’s overview, seen by a moderator: the webhook delivering, every check ok, no problems section', async () => {
  const moderator = e.discord.addMember(e.guildId, { username: 'healthy_mod', roleIds: [staffRole] }).userId;
  const { browser } = await signIn(e, moderator);
  const overview = await browser.get(`/dashboard/${e.guildId}`);
  expect(overview.status).toBe(200);
  const text = pageText(overview.html);
  expect(text).toContain('Everything Tierlink needs is in place.');
  expect(overview.html).toContain('<span class="pill added">webhook delivering</span>');
  expect(text).not.toContain('Problems and their fixes');
  expect(text).not.toContain('Fix:');
  expect(overview.html).not.toContain('>problem</span>');
  expect(text).toMatch(/Role positions ok all 3 mapped roles are below Tierlink’s role/);
  expect(text).toMatch(/Casey Creator: webhook ok registered and delivering/);
});

test('a webhook Patreon paused that Tierlink could not re-enable shows as paused on the overview, with the fix', async () => {
  const [hook] = e.patreon.webhooks();
  e.patreon.pauseWebhook(hook!.id);
  // Tierlink's 15-minute check finds it paused, and the service refuses to re-enable it.
  const refuse = e.patreon.injectFault({ method: 'PATCH', path: `/api/oauth2/v2/webhooks/${hook!.id}`, status: 500, times: Infinity });
  try {
    expect((await e.tierlink.services.registration.ensure(e.patreon.campaignId)).state).toBe('failed');
    expect(e.patreon.webhooks()[0]!.paused).toBe(true);
    e.clock.advance(61_000); // past the overview's cached checks
    const { browser } = await signIn(e, e.ownerId);
    const overview = await browser.get(`/dashboard/${e.guildId}`);
    const text = pageText(overview.html);
    expect(overview.html).toContain('<span class="pill removed">webhook paused</span>');
    expect(overview.html).not.toContain('webhook delivering');
    expect(text).toContain('Casey Creator: webhook problem Patreon paused the webhook');
    expect(text).toContain('Fix: Make sure PUBLIC_URL/webhooks/patreon is reachable from the internet');
  } finally {
    e.patreon.removeFault(refuse);
  }
  // The next check re-enables it: delivering again.
  await e.tierlink.services.registration.ensure(e.patreon.campaignId);
  e.clock.advance(61_000);
  const { browser } = await signIn(e, e.ownerId);
  const healed = await browser.get(`/dashboard/${e.guildId}`);
  expect(healed.html).toContain('<span class="pill added">webhook delivering</span>');
  expect(pageText(healed.html)).toContain('Everything Tierlink needs is in place.');
});

describe('a server with problems (the webhook could not be registered, a mapped role above the bot)', () => {
  let broken: E2E;
  beforeAll(async () => {
    broken = await startE2E({
      connected: true,
      beforeStart: (world) => {
        // The service refuses to create the webhook, at /connect and at every later check.
        world.patreon.injectFault({ method: 'POST', path: '/api/oauth2/v2/webhooks', status: 500, times: Infinity });
      },
    });
  }, 60_000);
  afterAll(() => broken?.stop());

  test('the overview shows the webhook as absent and each problem with its fix, to a moderator', async () => {
    expect(broken.patreon.webhooks()).toEqual([]);
    broken.discord.updateRole(broken.guildId, broken.roles.gold, { position: 20 });
    const moderators = broken.discord.createRole(broken.guildId, { name: 'Moderators', permissions: Permission.ManageRoles }).id;
    const moderator = broken.discord.addMember(broken.guildId, { username: 'mod', roleIds: [moderators] }).userId;
    const { browser } = await signIn(broken, moderator);
    const overview = await browser.get(`/dashboard/${broken.guildId}`);
    expect(overview.status).toBe(200);
    const text = pageText(overview.html);

    // The webhook health indicator of the campaign.
    expect(overview.html).toContain('<span class="pill removed">no webhook</span>');
    expect(overview.html).not.toContain('webhook delivering');

    // The problems, each with its fix.
    expect(text).toContain('2 problems to fix.');
    expect(text).toContain('Problems and their fixes');
    expect(text).toContain("Role Gold problem Gold is at or above Tierlink, the bot's highest role, so Discord refuses to assign it.");
    expect(text).toContain('Fix: Move the Tierlink role above Gold in Server Settings → Roles.');
    expect(text).toContain('Casey Creator: webhook problem no webhook is registered, so pledge changes wait for the nightly sync');
    expect(text).toContain(
      'Fix: Make sure PUBLIC_URL is reachable from the internet; Tierlink registers its webhook within 15 minutes, or at the next /connect.',
    );
    // Problems come first, before the checks that pass (which show no fix).
    expect(text.indexOf('Role Gold problem')).toBeLessThan(text.indexOf('Manage Roles permission ok'));
    expect(overview.html.match(/class="item-fix"/g)).toHaveLength(2);
  });
});

describe('behind HTTPS (PUBLIC_URL is https)', () => {
  let secure: E2E;
  let port: number;
  beforeAll(async () => {
    // A TLS proxy in front: Tierlink listens on a local port, people reach it at PUBLIC_URL.
    port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, () => {
        const { port: free } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    secure = await startE2E({
      beforeStart: () => ({ PUBLIC_URL: 'https://tierlink.example', PORT: String(port) }),
    });
  }, 60_000);
  afterAll(() => secure?.stop());

  test('the cookies are Secure and __Host- prefixed, and Discord is sent back to the public address', async () => {
    const login = await new DashboardBrowser(`http://localhost:${port}`).get('/dashboard/login');
    const cookie = login.headers.getSetCookie().find((c) => c.startsWith('__Host-tierlink-signin='))!;
    expect(cookie).toMatch(/; Secure/i);
    expect(cookie).toMatch(/; Path=\//i);
    expect(cookie).not.toMatch(/Domain=/i);
    expect(new URL(login.location!).searchParams.get('redirect_uri')).toBe('https://tierlink.example/dashboard/callback');
  });
});
