import { PermissionFlagsBits } from 'discord.js';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/edges/outbound/store/database';
import { Browser, discordConsent } from '../support/browser';
import { type E2E, pageText, serviceUrl, startE2E } from '../support/e2e';
import { EVERYONE, activePatron, runCommand } from '../support/e2e-admin';

/**
 * Login CSRF: an attacker runs `/link` (or `/connect`), follows his own link as far as
 * the service's consent page, and sends that page to a patron (or the creator), who allows in her
 * own browser. Each person has their own `Browser` (cookie jar); everything goes over real HTTP,
 * through the stand-in's consent page. The callback in the wrong browser must refuse and move nothing.
 */

let e: E2E;
beforeAll(async () => {
  e = await startE2E();
}, 60_000);
afterAll(() => e?.stop());

const rows = <T extends Record<string, unknown>>(query: ReturnType<typeof sql>) => queryRows<T>(e.db.database.db, query);
const tokenExchanges = () => e.patreon.requests().filter((r) => r.method === 'POST' && r.path === '/api/oauth2/token').length;
const flowCookies = (browser: Browser) => [...browser.cookies(e.url).keys()].filter((name) => name.includes('tierlink_flow_'));

/** `/connect` from someone who may (a role with Administrator): the consent page's URL, as his browser reaches it. */
async function connectAsFarAsConsent(userId: string, browser: Browser): Promise<string> {
  const reply = await runCommand(e, { userId, name: 'connect', memberPermissions: EVERYONE }).reply();
  return serviceUrl(await e.followToService(browser, reply.urls[0]!, userId));
}

describe('/connect', () => {
  test('a consent page forwarded to the creator binds nothing, stores no token, and says to start again from Discord', async () => {
    const admins = e.discord.createRole(e.guildId, { name: 'Admins', permissions: PermissionFlagsBits.Administrator }).id;
    const mallory = e.discord.addMember(e.guildId, { username: 'mallory-admin', roleIds: [admins] }).userId;
    const attacker = new Browser();
    const consent = await connectAsFarAsConsent(mallory, attacker);

    const creator = new Browser();
    const callback = await e.patreon.approveAuthorization(consent, e.patreon.creatorUserId);
    const exchanges = tokenExchanges();
    const res = await creator.get(callback);
    const text = pageText(await res.text());

    expect(res.status).toBe(403);
    expect(text).toContain('Start again from Discord');
    expect(text).toContain('nothing was linked or changed');
    expect(text).toContain('Run /connect yourself in Discord');
    expect(tokenExchanges()).toBe(exchanges);
    expect(await e.tierlink.services.repos.guilds.campaignsOf(e.guildId)).toEqual([]);
    expect(await rows(sql`select * from creator_credentials`)).toEqual([]);
    expect(e.patreon.webhooks()).toEqual([]);

    // The state is spent: the attacker, handed the callback back, gets nothing in his own browser either.
    const replay = await attacker.get(callback);
    expect(replay.status).toBe(400);
    expect(tokenExchanges()).toBe(exchanges);
    expect(await e.tierlink.services.repos.guilds.campaignsOf(e.guildId)).toEqual([]);
  });

  test('the creator’s own /connect still works in one click, with PKCE toward the service', async () => {
    const browser = new Browser();
    const consent = new URL(await connectAsFarAsConsent(e.ownerId, browser));
    expect(consent.searchParams.get('code_challenge_method')).toBe('S256');
    expect(consent.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(consent.searchParams.has('code_verifier')).toBe(false);
    const callback = await e.patreon.approveAuthorization(consent.toString(), e.patreon.creatorUserId);
    const res = await browser.get(callback);
    expect(res.status).toBe(200);
    expect(pageText(await res.text())).toContain('Your campaign is connected');
    expect(await e.tierlink.services.repos.guilds.campaignsOf(e.guildId)).toEqual([e.patreon.campaignId]);
    // The flow is over: its cookie is gone.
    expect(flowCookies(browser)).toEqual([]);
  });
});

describe('/link', () => {
  test('a consent page forwarded to a patron ends on a refusal page and moves no role', async () => {
    const mallory = e.discord.addMember(e.guildId, { username: 'mallory' }).userId;
    const penny = activePatron(e, 'Penny Patron', [e.tiers.gold]);
    const pennyDiscord = e.discord.addMember(e.guildId, { username: 'penny' }).userId;

    // Mallory runs /link and follows his button as far as the consent page.
    const attacker = new Browser();
    const reply = await runCommand(e, { userId: mallory, name: 'link', memberPermissions: EVERYONE }).reply();
    const consent = serviceUrl(await e.followToService(attacker, reply.urls[0]!, mallory));
    expect(flowCookies(attacker)).toHaveLength(1);

    // He sends the consent page to Penny; she allows, as herself, in her own browser.
    const victim = new Browser();
    const callback = await e.patreon.approveAuthorization(consent, penny.id);
    const exchanges = tokenExchanges();
    const res = await victim.get(callback);
    const text = pageText(await res.text());

    expect(res.status).toBe(403);
    expect(text).toContain('Start again from Discord');
    expect(text).toContain('This page was opened in a different browser from the one that followed the /link link');
    expect(text).toContain('Run /link yourself in Discord and follow the button it gives you, in this browser.');
    expect(tokenExchanges()).toBe(exchanges);
    expect(e.discord.memberRoles(e.guildId, mallory)).toEqual([]);
    expect(e.discord.memberRoles(e.guildId, pennyDiscord)).toEqual([]);
    expect(await rows(sql`select * from links where external_id = ${penny.id} or discord_user_id = ${mallory}`)).toEqual([]);
    expect(await rows(sql`select * from role_grants where discord_user_id = ${mallory}`)).toEqual([]);
    expect(e.log.text()).toContain('oauth callback refused: the state belongs to another browser');

    // Spent: Mallory, handed the callback URL, cannot use it in his browser (which holds the cookie).
    const replay = await attacker.get(callback);
    expect(replay.status).toBe(400);
    expect(tokenExchanges()).toBe(exchanges);
    expect(e.discord.memberRoles(e.guildId, mallory)).toEqual([]);
  });

  test('a patron’s own /link still works in one click; the page names the Discord account linked', async () => {
    const dana = activePatron(e, 'Dana Patron', [e.tiers.gold]);
    const danaDiscord = e.discord.addMember(e.guildId, { username: 'dana', globalName: 'Dana D.' }).userId;
    const browser = new Browser();
    const reply = await runCommand(e, { userId: danaDiscord, name: 'link', memberPermissions: EVERYONE }).reply();
    // The link's page signs Dana in with Discord first; Discord's answer sets the flow's cookie.
    const signIn = await browser.get(reply.urls[0]!);
    const follow = await browser.get(await discordConsent(browser, signIn.headers.get('location')!, danaDiscord));

    // The flow's cookie: short-lived, HttpOnly, SameSite=Lax, not Secure over http.
    const setCookie = follow.headers.getSetCookie().find((c) => c.startsWith('tierlink_flow_'));
    expect(setCookie).toMatch(/^tierlink_flow_[0-9a-f]{16}=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=900; HttpOnly; SameSite=Lax$/);
    const consent = new URL(follow.headers.get('location')!);
    expect(consent.searchParams.get('code_challenge_method')).toBe('S256');
    // The state carries only a hash of the cookie's nonce, never the nonce.
    const nonce = setCookie!.split(';')[0]!.split('=')[1]!;
    expect(consent.toString()).not.toContain(nonce);
    // The PKCE verifier stays on the server, sealed.
    const [row] = await rows<{ code_verifier: string }>(sql`select code_verifier from link_tokens order by used_at desc limit 1`);
    expect(row!.code_verifier).toMatch(/^v2\./);

    const callback = await e.patreon.approveAuthorization(consent.toString(), dana.id);
    const res = await browser.get(callback);
    const text = pageText(await res.text());
    expect(res.status).toBe(200);
    expect(text).toContain("You're all set");
    expect(text).toContain('Your Patreon membership is linked to the Discord account Dana D. (@dana).');
    expect(e.discord.memberRoles(e.guildId, danaDiscord)).toContain(e.roles.gold);
    expect(res.headers.getSetCookie()[0]).toMatch(/^tierlink_flow_[0-9a-f]{16}=; Path=\/; Max-Age=0; HttpOnly; SameSite=Lax$/);
    expect(flowCookies(browser)).toEqual([]);

    // A replayed state is refused, even in the same browser.
    const replay = await browser.get(callback);
    expect(replay.status).toBe(400);
    expect(pageText(await replay.text())).toContain("This link can't be used");
  });

  test('a cookie from another flow does not unlock a state: each flow has its own', async () => {
    const mallory = e.discord.addMember(e.guildId, { username: 'mallory2' }).userId;
    const pat = activePatron(e, 'Pat Two', [e.tiers.silver]);
    const patDiscord = e.discord.addMember(e.guildId, { username: 'pat2' }).userId;
    // Pat started a flow of her own in her browser (she holds a flow cookie), then opens Mallory's consent page.
    const victim = new Browser();
    const own = await runCommand(e, { userId: patDiscord, name: 'link', memberPermissions: EVERYONE }).reply();
    await e.followToService(victim, own.urls[0]!, patDiscord);
    expect(flowCookies(victim)).toHaveLength(1);

    const attacker = new Browser();
    const reply = await runCommand(e, { userId: mallory, name: 'link', memberPermissions: EVERYONE }).reply();
    const consent = serviceUrl(await e.followToService(attacker, reply.urls[0]!, mallory));
    const res = await victim.get(await e.patreon.approveAuthorization(consent, pat.id));
    expect(res.status).toBe(403);
    expect(e.discord.memberRoles(e.guildId, mallory)).toEqual([]);
    expect(await rows(sql`select * from links where discord_user_id = ${mallory}`)).toEqual([]);
  });
});
