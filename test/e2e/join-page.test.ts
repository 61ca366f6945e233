import { getTableName, sql } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { queryRows } from '../../src/edges/outbound/store/database';
import * as schema from '../../src/edges/outbound/store/schema';
import { Permission } from '@tierlink/sandbox/discord';
import { DashboardBrowser, type PageAnswer } from '../support/dashboard-client';
import { type E2E, pageText, startE2E } from '../support/e2e';

/**
 * The join page end to end, through both stand-ins over real HTTP: a patron in no server
 * opens `/join/<slug>`, allows the service's consent page and then Discord's (`identify guilds.join`),
 * and ends in the server with their tier's role, added by one Add Guild Member request with the
 * roles. The Discord token is used for that one request only: no table and no log line holds it.
 */

let e: E2E;
beforeAll(async () => {
  // Invited as the README says for the join page: Manage Roles and Create Invite.
  e = await startE2E({ connected: true });
  e.discord.registerRedirectUri(`${e.url}/join/callback`);
}, 60_000);
afterAll(() => e?.stop());

function patron(fullName: string, tierIds: string[] | null) {
  const user = e.patreon.createUser({ fullName });
  if (tierIds) {
    e.patreon.setMembership(
      user.id,
      e.patreon.campaignId,
      { patronStatus: 'active_patron', tierIds, lastChargeDate: e.clock.now(), lastChargeStatus: 'Paid' },
      { deliver: false },
    );
  }
  return user;
}

interface Visit {
  browser: DashboardBrowser;
  landing: PageAnswer;
  start: PageAnswer;
  serviceCallback: string;
  afterService: PageAnswer;
  discordCallback: string | null;
  done: PageAnswer;
}

/** One visit, as a browser makes it: the join page, its button, the service's consent page, Discord's, the result. */
async function visit(
  patreonUserId: string,
  discordUserId: string,
  slug = e.guildId,
  browser = new DashboardBrowser(e.url),
): Promise<Visit> {
  const landing = await browser.get(`/join/${slug}`);
  const start = await browser.get(`/join/${slug}/start`);
  expect(start.status).toBe(302);
  const serviceCallback = await e.patreon.approveAuthorization(start.location!, patreonUserId);
  const afterService = await browser.get(serviceCallback);
  if (afterService.status !== 302)
    return { browser, landing, start, serviceCallback, afterService, discordCallback: null, done: afterService };
  const discordCallback = await e.discord.approveAuthorization(afterService.location!, discordUserId);
  const done = await browser.get(discordCallback);
  return { browser, landing, start, serviceCallback, afterService, discordCallback, done };
}

/** Every row of every table of the schema, as JSON text. */
async function everyTable(): Promise<string> {
  const { db } = e.db.database;
  const names = (Object.values(schema) as unknown[]).filter((t: unknown): t is PgTable => t instanceof PgTable).map((t) => getTableName(t));
  expect(names.length).toBeGreaterThan(10);
  const parts: string[] = [];
  for (const name of names) parts.push(JSON.stringify(await queryRows<Record<string, unknown>>(db, sql.raw(`select * from "${name}"`))));
  return parts.join('\n');
}

const ledgerOf = (userId: string) => e.tierlink.services.repos.ledger.forUser(e.guildId, userId);
const isMember = (userId: string) => e.discord.members(e.guildId).some((m) => m.userId === userId);

test('a Gold patron in no server joins with Gold in one visit; the ledger records it; a second visit changes nothing', async () => {
  const user = patron('Grace Hopper', [e.tiers.gold]);
  const person = e.discord.createUser({ username: 'grace', globalName: 'Grace' });
  expect(isMember(person.id)).toBe(false);
  e.discord.resetRequests();

  const run = await visit(user.id, person.id);

  // The join page: the campaign, the server, the tiers with their roles, one button.
  expect(run.landing.status).toBe(200);
  const landing = pageText(run.landing.html);
  expect(landing).toContain('Join Fan Club');
  expect(landing).toMatch(/Gold \$10 a month/);
  expect(run.landing.html).toContain(`href="/join/${e.guildId}/start"`);

  // The service's consent page first (identity, PKCE), then Discord's (identify guilds.join).
  const service = new URL(run.start.location!);
  expect(`${service.origin}${service.pathname}`).toBe(`${e.patreon.url}/oauth2/authorize`);
  expect(service.searchParams.get('scope')).toBe('identity');
  expect(service.searchParams.get('code_challenge_method')).toBe('S256');
  expect(run.start.headers.getSetCookie().some((c) => /HttpOnly/i.test(c) && /SameSite=Lax/i.test(c))).toBe(true);
  const discord = new URL(run.afterService.location!);
  expect(`${discord.origin}${discord.pathname}`).toBe(`${e.discord.webBaseUrl}/oauth2/authorize`);
  expect(discord.searchParams.get('scope')).toBe('identify guilds.join');
  expect(discord.searchParams.get('redirect_uri')).toBe(`${e.url}/join/callback`);

  // In the server, with Gold, by one Add Guild Member request carrying the role.
  expect(run.done.status).toBe(200);
  const text = pageText(run.done.html);
  expect(text).toContain('You’re in Fan Club');
  expect(text).toContain('Grace (@grace)');
  expect(text).toMatch(/Gold Added/);
  expect(run.done.html).toContain(`https://discord.com/channels/${e.guildId}`);
  expect(e.discord.memberRoles(e.guildId, person.id)).toEqual([e.roles.gold]);
  const puts = e.discord.requests({ method: 'PUT' }).filter((r) => r.path.endsWith(`/members/${person.id}`));
  expect(puts).toHaveLength(1);
  expect(e.discord.requests().filter((r) => r.path.includes(`/members/${person.id}/roles/`))).toHaveLength(0);
  const ledger = await ledgerOf(person.id);
  expect(ledger.map((g) => g.roleId)).toEqual([e.roles.gold]);
  expect((await e.tierlink.services.repos.links.byDiscordUser(person.id, 'patreon'))?.externalId).toBe(user.id);

  // Nothing that can act as the person on Discord works any more: the token was revoked after its request.
  for (const pair of e.discord.userTokensIssuedTo(person.id)) {
    const me = await fetch(`${e.discord.apiBaseUrl}/v10/users/@me`, { headers: { authorization: `Bearer ${pair.accessToken}` } });
    expect(me.status).toBe(401);
  }

  // A second visit: already there, nothing changes (no role write, the same ledger).
  e.discord.resetRequests();
  const again = await visit(user.id, person.id);
  expect(again.done.status).toBe(200);
  expect(pageText(again.done.html)).toContain('You’re already in Fan Club');
  expect(e.discord.memberRoles(e.guildId, person.id)).toEqual([e.roles.gold]);
  expect(e.discord.requests().filter((r) => r.path.includes(`/members/${person.id}/roles/`))).toHaveLength(0);
  expect(await ledgerOf(person.id)).toEqual(ledger);
});

test('the Discord user token appears in no table and no log line', async () => {
  const user = patron('Token Scan', [e.tiers.silver]);
  const person = e.discord.createUser({ username: 'scan' });
  const run = await visit(user.id, person.id);
  expect(run.done.status).toBe(200);
  const issued = e.discord.userTokensIssuedTo(person.id);
  expect(issued.length).toBeGreaterThan(0);
  const tables = await everyTable();
  const log = e.log.text();
  expect(log).toContain('join page: done');
  const code = new URL(run.discordCallback!).searchParams.get('code')!;
  for (const secret of [...issued.flatMap((p) => [p.accessToken, p.refreshToken]), code]) {
    expect(secret.length).toBeGreaterThan(10);
    expect(tables.includes(secret)).toBe(false);
    expect(log.includes(secret)).toBe(false);
  }
});

test('a non-patron is refused with the tiers and the pledge link, and is not added', async () => {
  const user = patron('Just Looking', null);
  const person = e.discord.createUser({ username: 'looking' });
  e.discord.resetRequests();
  const run = await visit(user.id, person.id);
  // Refused at the service step: Discord's consent page is never shown.
  expect(run.discordCallback).toBeNull();
  expect(run.done.status).toBe(403);
  const text = pageText(run.done.html);
  expect(text).toContain('Joining is for patrons');
  expect(text).toContain('Become a patron');
  expect(text).toMatch(/Gold \$10 a month/);
  const pledgeUrl = (await e.tierlink.services.repos.campaigns.get(e.patreon.campaignId))?.url;
  expect(pledgeUrl).toMatch(/^https?:\/\//);
  expect(run.done.html).toMatch(new RegExp(`<a class="button"[^>]*href="${pledgeUrl!.replace(/[.?+]/g, '\\$&')}"[^>]*>Become a patron`));
  expect(isMember(person.id)).toBe(false);
  expect(e.discord.requests({ method: 'PUT' })).toHaveLength(0);
  expect(await ledgerOf(person.id)).toEqual([]);
});

test('a state replayed, or opened in another browser, is refused and adds no one', async () => {
  const user = patron('Replay', [e.tiers.gold]);
  const person = e.discord.createUser({ username: 'replay' });

  // The Discord answer opened in another browser: refused, and the state is spent.
  const browser = new DashboardBrowser(e.url);
  await browser.get(`/join/${e.guildId}/start`).then(async (start) => {
    const afterService = await browser.get(await e.patreon.approveAuthorization(start.location!, user.id));
    const callback = await e.discord.approveAuthorization(afterService.location!, person.id);
    const elsewhere = await new DashboardBrowser(e.url).get(callback);
    expect(elsewhere.status).toBe(403);
    expect(pageText(elsewhere.html)).toContain('Start again from the join page');
    const replay = await browser.get(callback);
    expect(replay.status).toBe(400);
    expect(pageText(replay.html)).toContain('This sign-in can’t be used');
  });
  expect(isMember(person.id)).toBe(false);

  // The service's answer opened in another browser: refused before Discord.
  const second = new DashboardBrowser(e.url);
  const start = await second.get(`/join/${e.guildId}/start`);
  const serviceCallback = await e.patreon.approveAuthorization(start.location!, user.id);
  const stolen = await new DashboardBrowser(e.url).get(serviceCallback);
  expect(stolen.status).toBe(403);
  expect(stolen.location).toBeNull();

  // A completed visit's Discord answer replayed in the same browser: refused, nothing more happens.
  const run = await visit(user.id, person.id);
  expect(run.done.status).toBe(200);
  expect(isMember(person.id)).toBe(true);
  e.discord.resetRequests();
  const replayed = await run.browser.get(run.discordCallback!);
  expect(replayed.status).toBe(400);
  const replayedService = await run.browser.get(run.serviceCallback);
  expect(replayedService.status).toBe(400);
  expect(e.discord.requests({ method: 'PUT' })).toHaveLength(0);
});

test('banned, the server full, or the person in 100 servers: clear pages, nobody added', async () => {
  const user = patron('Refusals', [e.tiers.gold]);

  const banned = e.discord.createUser({ username: 'banned' });
  e.discord.banUser(e.guildId, banned.id);
  const ban = await visit(user.id, banned.id);
  expect(ban.done.status).toBe(403);
  expect(pageText(ban.done.html)).toContain('You are banned from this server');
  expect(isMember(banned.id)).toBe(false);
  expect(await ledgerOf(banned.id)).toEqual([]);

  const full = e.discord.createUser({ username: 'full' });
  e.discord.setMaxMembers(e.guildId, e.discord.members(e.guildId).length);
  const cap = await visit(user.id, full.id);
  expect(cap.done.status).toBe(409);
  expect(pageText(cap.done.html)).toContain('Fan Club is full');
  expect(isMember(full.id)).toBe(false);
  expect(await ledgerOf(full.id)).toEqual([]);
  e.discord.setMaxMembers(e.guildId, 500_000);

  // In 100 servers already: Discord's 30001, said as what to do.
  const busy = e.discord.createUser({ username: 'busy' });
  for (let i = 0; i < 100; i++) e.discord.addMember(e.discord.createGuild({ name: `Elsewhere ${i}` }).guildId, { userId: busy.id });
  const many = await visit(user.id, busy.id);
  expect(many.done.status).toBe(409);
  expect(pageText(many.done.html)).toContain('You are in too many servers');
  expect(isMember(busy.id)).toBe(false);
  expect(await ledgerOf(busy.id)).toEqual([]);
});

test('/settings: a chosen join slug opens the page; join_non_patrons lets a non-patron in with the joiner role', async () => {
  const chosen = await e.command(e.ownerId, 'settings', [{ name: 'join_slug', type: 3, value: 'fanclub' }], 1n << 3n);
  expect(chosen.content).toContain(`${e.url}/join/fanclub`);
  const page = await new DashboardBrowser(e.url).get('/join/fanclub');
  expect(page.status).toBe(200);
  expect(pageText(page.html)).toContain('Join Fan Club');
  expect((await new DashboardBrowser(e.url).get('/join/nothing-here')).status).toBe(404);

  const open = await e.command(
    e.ownerId,
    'settings',
    [
      { name: 'join_non_patrons', type: 5, value: true },
      { name: 'join_role', type: 8, value: e.roles.staff },
    ],
    1n << 3n,
  );
  expect(open.content).toContain('anyone with a Patreon account');
  const user = patron('Visitor', null);
  const person = e.discord.createUser({ username: 'visitor' });
  const run = await visit(user.id, person.id, 'fanclub');
  expect(run.done.status).toBe(200);
  expect(e.discord.memberRoles(e.guildId, person.id)).toEqual([e.roles.staff]);
  expect((await ledgerOf(person.id)).map((g) => g.roleId)).toEqual([e.roles.staff]);

  // /link and /doctor show the address.
  expect((await e.command(person.id, 'link')).content).toContain(`can join with their roles at ${e.url}/join/fanclub`);
  expect((await e.command(e.ownerId, 'doctor', [], 1n << 3n)).content).toContain(`${e.url}/join/fanclub`);
});

test.each([
  { lacks: 'Create Invite', keeps: Permission.ManageRoles, doctor: 'Create Invite' },
  { lacks: 'Manage Roles', keeps: Permission.CreateInstantInvite, doctor: 'lacks the Manage Roles permission' },
])('while the bot lacks $lacks the page says so and starts nothing', async ({ lacks, keeps, doctor }) => {
  const { botRoleId } = e.discord.guild(e.guildId);
  e.discord.updateRole(e.guildId, botRoleId, { permissions: keeps });
  let page: PageAnswer | null = null;
  for (let i = 0; i < 50; i++) {
    page = await new DashboardBrowser(e.url).get(`/join/${e.guildId}`);
    if (pageText(page.html).includes(`lacks the ${lacks} permission`)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(pageText(page!.html)).toContain(`lacks the ${lacks} permission`);
  expect(page!.html).not.toContain('/start"');
  const start = await new DashboardBrowser(e.url).get(`/join/${e.guildId}/start`);
  expect(start.status).toBe(503);
  expect(start.location).toBeNull();
  const report = await e.command(e.ownerId, 'doctor', [], 1n << 3n);
  expect(report.content).toContain(doctor);
  e.discord.updateRole(e.guildId, botRoleId, { permissions: Permission.ManageRoles | Permission.CreateInstantInvite });
  // Fixed: the page offers its button again.
  for (let i = 0; i < 50; i++) {
    page = await new DashboardBrowser(e.url).get(`/join/${e.guildId}`);
    if (page.html.includes('/start"')) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(page!.html).toContain('/start"');
});

test('a patron already in the server, not linked and with no role, is linked and granted her roles as /link does', async () => {
  const user = patron('Ada Lovelace', [e.tiers.silver, e.tiers.gold]);
  const person = e.discord.createUser({ username: 'ada', globalName: 'Ada' });
  e.discord.addMember(e.guildId, { userId: person.id });
  expect(e.discord.memberRoles(e.guildId, person.id)).toEqual([]);
  expect(await e.tierlink.services.repos.links.byDiscordUser(person.id, 'patreon')).toBeNull();
  e.discord.resetRequests();

  const run = await visit(user.id, person.id);

  // The result page says she was already there, names her account and the roles added.
  expect(run.done.status).toBe(200);
  const text = pageText(run.done.html);
  expect(text).toContain('You’re already in Fan Club');
  expect(text).not.toContain('You’re in Fan Club');
  expect(text).toContain('Ada (@ada)');
  expect(text).toMatch(/Silver Added/);
  expect(text).toMatch(/Gold Added/);

  // Linked, and granted as /link grants: one role PUT per role, no Add Guild Member request.
  expect((await e.tierlink.services.repos.links.byDiscordUser(person.id, 'patreon'))?.externalId).toBe(user.id);
  expect([...e.discord.memberRoles(e.guildId, person.id)].sort()).toEqual([e.roles.silver, e.roles.gold].sort());
  const rolePuts = e.discord.requests({ method: 'PUT' }).filter((r) => r.path.includes(`/members/${person.id}/roles/`));
  expect(rolePuts.map((r) => r.path.split('/').at(-1)).sort()).toEqual([e.roles.silver, e.roles.gold].sort());
  expect(e.discord.requests({ method: 'PUT' }).filter((r) => r.path.endsWith(`/members/${person.id}`))).toHaveLength(0);

  // The ledger records both grants.
  const ledger = await ledgerOf(person.id);
  expect(ledger.map((g) => g.roleId).sort()).toEqual([e.roles.silver, e.roles.gold].sort());

  // A second visit: nothing more to do.
  e.discord.resetRequests();
  const again = await visit(user.id, person.id);
  expect(again.done.status).toBe(200);
  expect(pageText(again.done.html)).toContain('You’re already in Fan Club');
  expect(e.discord.requests({ method: 'PUT' }).filter((r) => r.path.includes(`/members/${person.id}`))).toHaveLength(0);
  expect(await ledgerOf(person.id)).toEqual(ledger);
});

test('with the message to newly linked patrons on, a patron who joins through the page is told once, as /link tells', async () => {
  await e.tierlink.services.repos.guilds.setLinkMessages(e.guildId, true);
  try {
    const user = patron('Ada Lovelace', [e.tiers.gold]);
    const person = e.discord.createUser({ username: 'ada' });
    const run = await visit(user.id, person.id);
    expect(run.done.status).toBe(200);
    expect(e.discord.memberRoles(e.guildId, person.id)).toEqual([e.roles.gold]);
    await e.tierlink.services.patronMessages.settled();
    const told = () => e.discord.directMessages(person.id).filter((m) => m.content.includes('is now linked in'));
    expect(told()).toHaveLength(1);
    expect(await e.tierlink.services.repos.directMessages.ofMember(e.guildId, person.id)).toEqual([
      { kind: 'linked', subject: user.id, status: 'sent', lastError: null },
    ]);
    // A second visit links the same account again: nothing more is said.
    await visit(user.id, person.id);
    await e.tierlink.services.patronMessages.settled();
    expect(told()).toHaveLength(1);
  } finally {
    await e.tierlink.services.repos.guilds.setLinkMessages(e.guildId, false);
  }
});

test('the join routes have a per-address budget: past it, a 429 page with Retry-After', async () => {
  const browser = new DashboardBrowser(e.url);
  let refused: PageAnswer | null = null;
  for (let i = 0; i < 130 && !refused; i++) {
    const page = await browser.get('/join/nothing-here');
    if (page.status === 429) refused = page;
    else expect(page.status).toBe(404);
  }
  expect(refused?.status).toBe(429);
  expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThan(0);
});
