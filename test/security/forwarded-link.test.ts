import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/edges/outbound/store/database';
import { Browser, discordConsent } from '../support/browser';
import { type E2E, pageText, startE2E } from '../support/e2e';
import { EVERYONE, activePatron, runCommand, unlinkConfirmed } from '../support/e2e-admin';

/**
 * A forwarded, unopened `/link` URL: the attacker runs `/link` and sends the URL itself to a patron.
 * She opens it in her own browser, so her browser, not his, receives the flow's cookie; a nonce cookie
 * proves which browser finished the flow, not which Discord account started it. Before: she allowed
 * on Patreon and her membership and Gold moved to his Discord account. Now: the page of
 * `/link/<token>` signs in with Discord first and refuses when that account is not the one that ran
 * `/link`. `/connect` likewise. Each person has their own `Browser`; everything goes over real HTTP,
 * through the stand-ins' consent pages.
 */

let e: E2E;
beforeAll(async () => {
  e = await startE2E();
}, 60_000);
afterAll(() => e?.stop());

const rows = <T extends Record<string, unknown>>(query: ReturnType<typeof sql>) => queryRows<T>(e.db.database.db, query);
const patreonExchanges = () => e.patreon.requests().filter((r) => r.method === 'POST' && r.path === '/api/oauth2/token').length;

/** Opens a button in `browser` as `discordUserId` would, through Discord's page, then Patreon's (allowing as `patreonUserId`). */
async function openAs(browser: Browser, button: string, discordUserId: string, patreonUserId: string) {
  const step = await e.followToService(browser, button, discordUserId);
  if (step.kind === 'page') return { status: step.status, text: pageText(step.html), reachedService: false };
  const page = await browser.get(await e.patreon.approveAuthorization(step.url, patreonUserId));
  return { status: page.status, text: pageText(await page.text()), reachedService: true };
}

describe('/link', () => {
  test('a forwarded /link URL, opened by the patron, ends on a page that says it was made for someone else; nothing moves', async () => {
    await e.connect();
    const mallory = e.discord.addMember(e.guildId, { username: 'mallory' }).userId;
    const penny = activePatron(e, 'Penny Patron', [e.tiers.gold]);
    const pennyDiscord = e.discord.addMember(e.guildId, { username: 'penny' }).userId;
    // Penny is linked already, and holds Gold through Tierlink.
    await e.link(pennyDiscord, penny.id);
    expect(e.discord.memberRoles(e.guildId, pennyDiscord)).toContain(e.roles.gold);

    // Mallory runs /link and sends the button's URL, unopened, to Penny.
    const reply = await runCommand(e, { userId: mallory, name: 'link', memberPermissions: EVERYONE }).reply();
    const forwarded = reply.urls[0]!;
    const exchanges = patreonExchanges();

    // Penny opens it in her own browser, as herself.
    const victim = new Browser();
    const result = await openAs(victim, forwarded, pennyDiscord, penny.id);

    expect(e.discord.memberRoles(e.guildId, mallory)).toEqual([]);
    expect(e.discord.memberRoles(e.guildId, pennyDiscord)).toContain(e.roles.gold);
    expect(await rows(sql`select discord_user_id from links where external_id = ${penny.id}`)).toEqual([{ discord_user_id: pennyDiscord }]);
    expect(await rows(sql`select * from role_grants where discord_user_id = ${mallory}`)).toEqual([]);
    expect(result.reachedService).toBe(false);
    expect(patreonExchanges()).toBe(exchanges);
    expect(result.status).toBe(403);
    expect(result.text).toContain('This link was made for someone else');
    expect(result.text).toContain('It was made for another Discord account, and you are signed in to Discord as @penny.');
    expect(result.text).toContain('Nothing was linked or changed.');
    expect(result.text).toContain('Run /link yourself in Discord and follow the button it gives you.');

    // The link is spent: Mallory cannot use it afterwards either.
    const after = await openAs(new Browser(), forwarded, mallory, penny.id);
    expect(after.reachedService).toBe(false);
    expect(e.discord.memberRoles(e.guildId, mallory)).toEqual([]);
  });

  test('the patron’s own /link takes one click from Discord: Discord asks once, then never again in that browser', async () => {
    const dana = activePatron(e, 'Dana Patron', [e.tiers.silver]);
    const danaDiscord = e.discord.addMember(e.guildId, { username: 'dana' }).userId;
    const browser = new Browser();

    // First time: Discord's consent page (identify only), then Patreon's.
    const first = await runCommand(e, { userId: danaDiscord, name: 'link', memberPermissions: EVERYONE }).reply();
    const opened = await browser.get(first.urls[0]!);
    expect(opened.status).toBe(302);
    const authorize = new URL(opened.headers.get('location')!);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${e.discord.webBaseUrl}/oauth2/authorize`);
    expect(authorize.searchParams.get('scope')).toBe('identify');
    expect(authorize.searchParams.get('prompt')).toBe('none');
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${e.url}/discord/callback`);
    const asked = await browser.get(authorize.toString());
    expect(asked.status).toBe(200); // not authorized yet: Discord shows its page, prompt=none or not
    const back = await browser.get(await discordConsent(browser, authorize.toString(), danaDiscord));
    expect(back.status).toBe(302);
    const service = new URL(back.headers.get('location')!);
    expect(service.origin).toBe(new URL(e.patreon.url).origin);
    const done = await browser.get(await e.patreon.approveAuthorization(service.toString(), dana.id));
    expect(done.status).toBe(200);
    expect(e.discord.memberRoles(e.guildId, danaDiscord)).toContain(e.roles.silver);
    // The Discord token served that one request and was not kept; the authorization stays, as Discord keeps it.
    expect(await rows(sql`select * from dashboard_sessions`)).toEqual([]);

    // Again later, in the same browser: Discord answers at once, with no page, and the patron is on Patreon's page.
    await unlinkConfirmed(e, danaDiscord);
    const second = await runCommand(e, { userId: danaDiscord, name: 'link', memberPermissions: EVERYONE }).reply();
    const again = await browser.get(second.urls[0]!);
    const skipped = await browser.get(again.headers.get('location')!);
    expect(skipped.status).toBe(302);
    expect(skipped.headers.get('location')!.startsWith(`${e.url}/discord/callback?`)).toBe(true);
    const onward = await browser.get(skipped.headers.get('location')!);
    expect(new URL(onward.headers.get('location')!).origin).toBe(new URL(e.patreon.url).origin);
    const relinked = await browser.get(await e.patreon.approveAuthorization(onward.headers.get('location')!, dana.id));
    expect(relinked.status).toBe(200);
    expect(e.discord.memberRoles(e.guildId, danaDiscord)).toContain(e.roles.silver);
  });

  test('the Discord step is bound to the browser: its answer opened in another browser does nothing', async () => {
    const pat = activePatron(e, 'Pat Patron', [e.tiers.bronze]);
    const patDiscord = e.discord.addMember(e.guildId, { username: 'pat' }).userId;
    const mallory = e.discord.addMember(e.guildId, { username: 'mallory2' }).userId;
    const attacker = new Browser();
    const reply = await runCommand(e, { userId: mallory, name: 'link', memberPermissions: EVERYONE }).reply();
    const authorize = (await attacker.get(reply.urls[0]!)).headers.get('location')!;
    // Mallory signs in as himself, then hands the answer to Pat's browser instead of opening it.
    const answer = await discordConsent(attacker, authorize, mallory);
    const victim = new Browser();
    const res = await victim.get(answer);
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(pageText(await res.text())).toContain("This link can't be used");
    expect(await rows(sql`select * from links where discord_user_id = ${mallory} or external_id = ${pat.id}`)).toEqual([]);
    expect(e.discord.memberRoles(e.guildId, patDiscord)).toEqual([]);
  });
});

describe('/connect', () => {
  test('a forwarded /connect URL, opened by a creator signed in to Discord as someone else, binds nothing', async () => {
    const fresh = await startE2E();
    try {
      const reply = await runCommand(fresh, { userId: fresh.ownerId, name: 'connect', memberPermissions: EVERYONE }).reply();
      const creatorDiscord = fresh.discord.addMember(fresh.guildId, { username: 'casey' }).userId;
      const browser = new Browser();
      const step = await fresh.followToService(browser, reply.urls[0]!, creatorDiscord);
      expect(step.kind).toBe('page');
      if (step.kind === 'page') {
        expect(step.status).toBe(403);
        expect(pageText(step.html)).toContain('This link was made for someone else');
        expect(pageText(step.html)).toContain('Run /connect yourself in Discord');
      }
      expect(await fresh.tierlink.services.repos.guilds.campaignsOf(fresh.guildId)).toEqual([]);
      expect(fresh.patreon.webhooks()).toEqual([]);
    } finally {
      await fresh.stop();
    }
  });
});
