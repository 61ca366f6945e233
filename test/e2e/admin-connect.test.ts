import { Browser, discordConsent } from '../support/browser';
import { sql } from 'drizzle-orm';
import { type E2E, pageText, startE2E } from '../support/e2e';
import { EVERYONE, MANAGE_GUILD, MANAGE_ROLES, boolOption, runCommand } from '../support/e2e-admin';

/**
 * `/connect` for a creator who runs two campaigns (no PATREON_CAMPAIGN_ID): the result page asks
 * which one, and only the chosen one is bound, read and given a webhook.
 */
let e: E2E;
let side: { campaignId: string; tierId: string };
beforeAll(async () => {
  e = await startE2E({
    beforeStart: ({ patreon }) => {
      const campaign = patreon.createCampaign({ vanity: 'casey-side', creationName: 'a side project' });
      side = { campaignId: campaign.id, tierId: patreon.createTier(campaign.id, { title: 'Side Supporter', amountCents: 200 }).id };
    },
  });
}, 60_000);
afterAll(() => e?.stop());

/** The creator's browser: it holds the cookie of the flows it started. */
const browser = new Browser();
const page = async (url: string) => {
  const res = await browser.get(url);
  return { status: res.status, location: res.headers.get('location'), text: pageText(await res.text()) };
};
/** The owner follows a /connect button: Discord's sign-in, then the service's consent page (its URL). */
const toConsent = async (button: string) => {
  const step = await e.followToService(browser, button, e.ownerId);
  if (step.kind !== 'service') throw new Error(`the /connect link stopped on a page: ${pageText(step.html)}`);
  return step.url;
};

/** The chooser's forms: each campaign's ticket with the page's token. */
function chooserForms(html: string): Array<{ action: string; ticket: string; csrf: string }> {
  const form =
    /<form method="post" action="([^"]+)"><input type="hidden" name="ticket" value="([^"]+)"><input type="hidden" name="csrf" value="([^"]+)">/g;
  const decode = (v: string) => v.replace(/&amp;/g, '&');
  return [...html.matchAll(form)].map((m) => ({ action: decode(m[1]!), ticket: decode(m[2]!), csrf: decode(m[3]!) }));
}

/** The creator presses a campaign's button: the browser posts its form. */
async function choose(form: { action: string; ticket: string; csrf: string }) {
  const res = await browser.post(`${e.url}${form.action}`, { ticket: form.ticket, csrf: form.csrf });
  return { status: res.status, text: pageText(await res.text()) };
}

test('/connect answers only the creator, with a one-time link that asks for the creator scopes', async () => {
  const reply = await runCommand(e, { userId: e.ownerId, name: 'connect', memberPermissions: MANAGE_GUILD }).reply();
  expect(reply.ephemeral).toBe(true);
  expect(reply.content).toContain('Sign in with the Patreon account that owns the campaign');
  expect(reply.content).toMatch(/works once, for \d+ minutes/);
  expect(reply.urls).toHaveLength(1);
  expect(reply.urls[0]!.startsWith(`${e.url}/connect/`)).toBe(true);

  // The link's page signs the creator in with Discord first (only who they are), then goes to the service.
  const first = await page(reply.urls[0]!);
  expect(first.status).toBe(302);
  const signIn = new URL(first.location!);
  expect(`${signIn.origin}${signIn.pathname}`).toBe(`${e.discord.webBaseUrl}/oauth2/authorize`);
  expect(signIn.searchParams.get('scope')).toBe('identify');
  const back = await page(await discordConsent(browser, signIn.toString(), e.ownerId));
  expect(back.status).toBe(302);
  const authorize = new URL(back.location!);
  expect(authorize.origin).toBe(e.patreon.url);
  expect(authorize.searchParams.get('scope')!.split(' ').sort()).toEqual([
    'campaigns',
    'campaigns.members',
    'campaigns.posts',
    'identity',
    'w:campaigns.webhook',
  ]);
  expect(authorize.searchParams.get('redirect_uri')).toBe(`${e.url}/oauth/callback`);

  // Used once: a second click (or someone the link was forwarded to) gets nothing.
  const second = await page(reply.urls[0]!);
  expect(second.status).toBe(410);
  expect(second.text).toContain('Run /connect again in Discord to get a new link.');
});

test('a creator with several campaigns picks one on the result page; only that one is bound, read and given a webhook', async () => {
  // A patron who linked Discord on Patreon itself: the dry run finds them without any /link.
  const member = e.discord.addMember(e.guildId, { username: 'ada' });
  const ada = e.patreon.createUser({ fullName: 'Ada Patron', discordUserId: member.userId });
  e.patreon.setMembership(
    ada.id,
    e.patreon.campaignId,
    { patronStatus: 'active_patron', tierIds: [e.tiers.gold], lastChargeDate: e.clock.now(), lastChargeStatus: 'Paid' },
    { deliver: false },
  );

  const reply = await runCommand(e, { userId: e.ownerId, name: 'connect', memberPermissions: MANAGE_GUILD }).reply();
  const authorize = await toConsent(reply.urls[0]!);
  const callback = await e.patreon.approveAuthorization(authorize, e.patreon.creatorUserId);
  const res = await browser.get(callback);
  const html = await res.text();
  expect(res.status).toBe(200);
  expect(pageText(html)).toContain('Which campaign should this server follow?');
  expect(pageText(html)).toContain('Fan Club');
  expect(pageText(html)).toContain('2 campaigns');
  expect(pageText(html)).toContain('Nothing is connected until you choose.');

  // Nothing is bound before the choice, but the creator's tokens are stored, sealed.
  const { repos } = e.tierlink.services;
  expect(await repos.guilds.campaignsOf(e.guildId)).toEqual([]);
  expect(e.patreon.webhooks()).toEqual([]);
  const tokens = await repos.credentials.load(e.patreon.creatorUserId);
  expect(tokens?.scopes.sort()).toEqual(['campaigns', 'campaigns.members', 'campaigns.posts', 'identity', 'w:campaigns.webhook']);
  const raw = await e.db.database.db.execute(sql`select access_token_enc, refresh_token_enc from creator_credentials`);
  const row = ((raw as { rows?: unknown[] }).rows ?? (raw as unknown as unknown[]))[0] as {
    access_token_enc: string;
    refresh_token_enc: string;
  };
  expect(row.access_token_enc).not.toContain(tokens!.accessToken);
  expect(row.refresh_token_enc).not.toContain(tokens!.refreshToken);

  // Each campaign is a form posting its ticket and the page's token to /connect/choose.
  const choices = chooserForms(html);
  expect(choices).toHaveLength(2);
  const main = choices.find((form) => form.ticket.includes(`.${e.patreon.campaignId}.`))!;
  expect(main).toBeDefined();

  // A ticket altered to name the other campaign is refused.
  const forged = { ...main, ticket: main.ticket.replace(`.${e.patreon.campaignId}.`, `.${side.campaignId}.`) };
  expect(forged.ticket).not.toBe(main.ticket);
  expect((await choose(forged)).status).toBe(403);
  expect(await repos.guilds.campaignsOf(e.guildId)).toEqual([]);

  const chosen = await choose(main);
  expect(chosen.status).toBe(200);
  expect(chosen.text).toContain('Your campaign is connected');
  expect(chosen.text).toContain('Tierlink now keeps the roles in Fan Club in step with the tiers of Casey Creator');
  // The tiers and the roles they grant, read from the service.
  expect(chosen.text).toMatch(/Bronze \$3 a month · 0 patrons @Bronze/);
  expect(chosen.text).toMatch(/Silver \$5 a month · 0 patrons @Silver/);
  expect(chosen.text).toMatch(/Gold \$10 a month · 1 patron @Gold/);
  expect(chosen.text).not.toContain('Side Supporter');
  // The dry run: Ada would get Gold, but /connect itself changed nothing.
  expect(chosen.text).toContain('Nothing has changed yet: /connect only looks.');
  expect(chosen.text).toContain('linked member 1 role to add 1 roles to remove 0');
  expect(chosen.text).toContain('Run /sync in Discord to apply the roles now.');
  expect(chosen.text).toContain('Live updates are on');
  expect(e.discord.memberRoles(e.guildId, member.userId)).toEqual([]);

  expect(await repos.guilds.campaignsOf(e.guildId)).toEqual([e.patreon.campaignId]);
  const hooks = e.patreon.webhooks();
  expect(hooks).toHaveLength(1);
  expect(hooks[0]).toMatchObject({ campaignId: e.patreon.campaignId, uri: `${e.url}/webhooks/patreon`, paused: false });
  expect(hooks[0]!.triggers).toEqual(expect.arrayContaining(['members:create', 'members:update', 'members:delete']));

  // The same ticket binds nothing twice (the flow is over: its cookie went with the first choice).
  expect((await choose(main)).status).toBe(403);
  expect(await repos.guilds.campaignsOf(e.guildId)).toEqual([e.patreon.campaignId]);
  expect(e.patreon.webhooks()).toHaveLength(1);

  // /sync applies what the dry run showed.
  const sync = await runCommand(e, {
    userId: e.ownerId,
    name: 'sync',
    options: [boolOption('dry_run', false)],
    memberPermissions: MANAGE_ROLES,
  }).reply();
  expect(sync.content).toContain('Applied: 1 added, 0 removed');
  expect(e.discord.memberRoles(e.guildId, member.userId)).toEqual([e.roles.gold]);
});

test('a denied consent connects nothing and says so', async () => {
  const reply = await runCommand(e, { userId: e.ownerId, name: 'connect', memberPermissions: MANAGE_GUILD }).reply();
  const authorize = await toConsent(reply.urls[0]!);
  const callback = await e.patreon.denyAuthorization(authorize);
  const denied = await page(callback);
  expect(denied.text).toContain('You chose not to give Tierlink access to your campaign, so nothing was connected.');
  expect(denied.text).toContain('Run /connect again in Discord and choose Allow.');
  expect(await e.tierlink.services.repos.guilds.campaignsOf(e.guildId)).toEqual([e.patreon.campaignId]);
});

test('/connect is refused to anyone but the owner or an administrator, Manage Server or not', async () => {
  const member = e.discord.addMember(e.guildId, { username: 'bob' });
  const reply = await runCommand(e, { userId: member.userId, name: 'connect', memberPermissions: EVERYONE | MANAGE_ROLES }).reply();
  expect(reply.content).toMatch(/^Only the server owner or an administrator can connect a Patreon campaign/);
  expect(reply.urls).toEqual([]);
  const managers = e.discord.createRole(e.guildId, { name: 'Managers', permissions: MANAGE_GUILD }).id;
  const manager = e.discord.addMember(e.guildId, { username: 'manager', roleIds: [managers] });
  const refused = await runCommand(e, { userId: manager.userId, name: 'connect', memberPermissions: EVERYONE | MANAGE_GUILD }).reply();
  expect(refused.content).toMatch(/^Only the server owner or an administrator can connect a Patreon campaign/);
  expect(refused.urls).toEqual([]);
});
