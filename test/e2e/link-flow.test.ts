import { Browser } from '../support/browser';
import { getTableName, sql } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { queryRows } from '../../src/edges/outbound/store/database';
import * as schema from '../../src/edges/outbound/store/schema';
import { DAY } from '../../src/shared/clock';
import { type E2E, pageText, serviceUrl, startE2E } from '../support/e2e';

/**
 * The patron's whole `/link` journey against the real service: the slash command through the real
 * discord.js client, the one-time link and the service's consent page over plain HTTP, the
 * callback, and the roles in the sandbox Discord when the result page comes back.
 */

let e: E2E;
beforeAll(async () => {
  e = await startE2E({
    connected: true,
    raisedLimits:
      "every test of the file links in one server, a role change each within seconds of the last; the claims are the flow's pages and roles, not Discord's 10 per 10 s",
  });
}, 60_000);
afterAll(() => e?.stop());

type Pledge = {
  status: 'active_patron' | 'declined_patron' | 'former_patron' | null;
  tiers?: string[];
  chargedDaysAgo?: number;
  charge?: 'Paid' | 'Declined' | null;
};

function patron(fullName: string, pledge?: Pledge) {
  const user = e.patreon.createUser({ fullName });
  if (pledge) {
    e.patreon.setMembership(
      user.id,
      e.patreon.campaignId,
      {
        patronStatus: pledge.status,
        tierIds: pledge.tiers ?? [],
        lastChargeDate: pledge.chargedDaysAgo === undefined ? null : new Date(e.clock.now().getTime() - pledge.chargedDaysAgo * DAY),
        lastChargeStatus: pledge.charge ?? (pledge.status === 'declined_patron' ? 'Declined' : pledge.status ? 'Paid' : null),
      },
      { deliver: false },
    );
  }
  return user;
}

/** `/link` run by hand, step by step, the way a patron's browser does it. */
async function linkStepByStep(discordUserId: string, patreonUserId: string) {
  const reply = await e.command(discordUserId, 'link');
  const button = reply.urls[0]!;
  const browser = new Browser();
  // The button's page signs the patron in with Discord, then sends the browser on to the service.
  const signIn = await browser.get(button);
  const follow = await browser.get(await e.discord.approveAuthorization(signIn.headers.get('location')!, discordUserId));
  const authorizeUrl = follow.headers.get('location')!;
  const callbackUrl = await e.patreon.approveAuthorization(authorizeUrl, patreonUserId);
  const rolesWhenCallbackSent = e.discord.memberRoles(e.guildId, discordUserId);
  const res = await browser.get(callbackUrl);
  // Read the roles the moment the response head arrives, before the body is even read.
  const rolesWhenPageReturned = e.discord.memberRoles(e.guildId, discordUserId);
  const html = await res.text();
  return {
    reply,
    button,
    follow,
    authorizeUrl,
    callbackUrl,
    rolesWhenCallbackSent,
    rolesWhenPageReturned,
    page: { status: res.status, html, text: pageText(html) },
  };
}

/** Every row of every table of the schema, as JSON text per table. */
async function everyTable(): Promise<Map<string, string>> {
  const { db } = e.db.database;
  const tables = (Object.values(schema) as unknown[])
    .filter((t: unknown): t is PgTable => t instanceof PgTable)
    .map((t) => getTableName(t));
  const out = new Map<string, string>();
  for (const name of tables) {
    const rows = await queryRows<Record<string, unknown>>(db, sql.raw(`select * from "${name}"`));
    out.set(name, JSON.stringify(rows));
  }
  return out;
}

test('/link: an ephemeral button, the consent page with scope identity, and the tier’s role in Discord before the result page returns', async () => {
  const user = patron('Ada Lovelace', { status: 'active_patron', tiers: [e.tiers.gold], chargedDaysAgo: 2 });
  const member = e.discord.addMember(e.guildId, { username: 'ada' });
  e.patreon.resetRequests();

  const run = await linkStepByStep(member.userId, user.id);

  // The /link reply: only for this user, one button to $PUBLIC_URL/link/<128-bit token>.
  expect(run.reply.ephemeral).toBe(true);
  expect(run.reply.content).toMatch(/15 minutes/);
  expect(run.button).toMatch(new RegExp(`^${e.url}/link/[A-Za-z0-9_-]{22}$`));

  // Following it redirects to the service's authorize page with exactly what the spec asks.
  expect(run.follow.status).toBe(302);
  const authorize = new URL(run.authorizeUrl);
  expect(`${authorize.origin}${authorize.pathname}`).toBe(`${e.patreon.url}/oauth2/authorize`);
  expect(authorize.searchParams.get('response_type')).toBe('code');
  expect(authorize.searchParams.get('client_id')).toBe(e.patreon.clientId);
  expect(authorize.searchParams.get('redirect_uri')).toBe(`${e.url}/oauth/callback`);
  expect(authorize.searchParams.get('scope')).toBe('identity');
  expect(authorize.searchParams.get('state')).toBeTruthy();

  // No role before the callback; the role is there the moment the page is.
  expect(run.rolesWhenCallbackSent).not.toContain(e.roles.gold);
  expect(run.rolesWhenPageReturned).toContain(e.roles.gold);
  expect(run.page.status).toBe(200);
  expect(run.page.text).toContain('Ada Lovelace');
  expect(run.page.text).toContain("You're all set");
  expect(run.page.text).toMatch(/Your tier Gold/);
  expect(run.page.text).toMatch(/Gold Added Gold tier/);
  expect(run.page.text).toMatch(/Fan Club/);

  // Server to server: the code exchange, the identity with its memberships (the patron's token),
  // then the member's current state with the creator's token.
  const calls = e.patreon.requests();
  const exchange = calls.filter((r) => r.method === 'POST' && r.path === '/api/oauth2/token');
  expect(exchange.map((r) => r.status)).toEqual([200]);
  const identity = calls.find((r) => r.path === '/api/oauth2/v2/identity')!;
  expect(identity).toMatchObject({ status: 200, tokenKind: 'patron' });
  expect(identity.query.include?.split(',')).toContain('memberships');
  expect(identity.query['fields[user]']?.split(',')).toEqual(expect.arrayContaining(['full_name', 'social_connections']));
  expect(identity.query['fields[member]']).toContain('patron_status');
  const memberId = e.patreon.memberOf(user.id, e.patreon.campaignId)!.id;
  const read = calls.find((r) => r.path === `/api/oauth2/v2/members/${memberId}`)!;
  expect(read).toMatchObject({ status: 200, tokenKind: 'creator' });
  expect(read.query.include?.split(',')).toContain('currently_entitled_tiers');
  expect(read.query['fields[user]']?.split(',')).toContain('social_connections');
  // The patron's token is used for the identity only.
  expect(calls.filter((r) => r.tokenKind === 'patron').map((r) => r.path)).toEqual(['/api/oauth2/v2/identity']);

  // The role went on with an audit-log reason a moderator can read.
  const event = e.discord.roleEvents().find((r) => r.userId === member.userId && r.roleId === e.roles.gold)!;
  expect(event).toMatchObject({ op: 'add', via: 'rest' });
  expect(event.reason).toMatch(/Gold/);
});

test('after links, no patron access or refresh token, code, link token or state is in any table', async () => {
  const user = patron('Tok En', { status: 'active_patron', tiers: [e.tiers.silver], chargedDaysAgo: 1 });
  const member = e.discord.addMember(e.guildId, { username: 'token-check' });
  const run = await linkStepByStep(member.userId, user.id);
  expect(run.rolesWhenPageReturned).toContain(e.roles.silver);

  const issued = e.patreon.tokensIssuedTo(user.id);
  expect(issued).toHaveLength(1);
  const callback = new URL(run.callbackUrl);
  const secrets = {
    accessToken: issued[0]!.accessToken,
    refreshToken: issued[0]!.refreshToken,
    code: callback.searchParams.get('code')!,
    state: callback.searchParams.get('state')!,
    linkToken: run.button.split('/').pop()!,
  };
  for (const value of Object.values(secrets)) expect(value.length).toBeGreaterThanOrEqual(20);

  const tables = await everyTable();
  // Every table the database has is one the schema declares (so none escapes this scan).
  const names = await queryRows<{ table_name: string }>(
    e.db.database.db,
    sql`select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`,
  );
  const userTables = names.map((n) => n.table_name).filter((n) => !n.startsWith('__drizzle') && !n.startsWith('pgboss'));
  expect([...tables.keys()].sort()).toEqual(expect.arrayContaining(userTables.sort()));
  // The scan really sees the link (so an empty read cannot pass).
  expect(tables.get('links')).toContain(user.id);
  expect(tables.get('member_snapshots')).toContain(user.id);
  for (const [table, text] of tables) {
    for (const [name, value] of Object.entries(secrets)) {
      if (text.includes(value)) throw new Error(`the ${name} of the patron is stored in table ${table}`);
    }
  }
  // Nor in the logs.
  for (const [name, value] of Object.entries(secrets)) {
    if (e.log.text().includes(value)) throw new Error(`the ${name} of the patron is in the logs`);
  }
});

test('a user who never pledged is linked, gets no role, and the page says what they can do', async () => {
  const user = patron('Nora Never');
  const member = e.discord.addMember(e.guildId, { username: 'nora' });

  const run = await linkStepByStep(member.userId, user.id);

  expect(run.page.status).toBe(200);
  expect(run.rolesWhenPageReturned).toEqual([]);
  expect(run.page.text).toContain("You're not a patron yet");
  expect(run.page.text).toContain('Nora Never');
  // A button to the campaign's page on the service, to pledge.
  const pledge = /<a class="button" href="([^"]+)"[^>]*>Become a patron/.exec(run.page.html);
  expect(pledge?.[1]).toMatch(/^https?:\/\//);
  expect(run.page.text).toMatch(/different Patreon account\? Run \/link again/);
  const status = await e.command(member.userId, 'status');
  expect(status.content).toMatch(/\*\*Linked\*\*/);
});

test('a follower who never pledged (a member with patron_status null) gets no role and a page to join a tier', async () => {
  const user = patron('Finn Follower', { status: null });
  e.patreon.setMembership(user.id, e.patreon.campaignId, { isFollower: true }, { deliver: false });
  const member = e.discord.addMember(e.guildId, { username: 'finn' });

  const run = await linkStepByStep(member.userId, user.id);

  expect(run.page.status).toBe(200);
  expect(run.rolesWhenPageReturned).toEqual([]);
  expect(run.page.text).toMatch(/You follow, but aren’t a paid member/);
});

test('a declined patron inside the grace period keeps the tier’s role, and the page says until when', async () => {
  const user = patron('Grace Period', { status: 'declined_patron', tiers: [e.tiers.silver], chargedDaysAgo: 3 });
  const member = e.discord.addMember(e.guildId, { username: 'grace' });

  const run = await linkStepByStep(member.userId, user.id);

  expect(run.page.status).toBe(200);
  expect(run.rolesWhenPageReturned).toContain(e.roles.silver);
  // Charged 2026-11-17, 7-day grace: until 2026-11-24.
  expect(run.page.text).toContain("Your last payment didn't go through");
  expect(run.page.text).toContain('November 24, 2026');
  expect(run.page.text).toMatch(/Open Patreon/);

  const status = await e.command(member.userId, 'status');
  expect(status.content).toContain('2026-11-24');
  expect(status.content).toContain(`<@&${e.roles.silver}>`);
});

test('a declined patron past the grace period gets no role, and the page says to update the payment', async () => {
  const user = patron('Lapsed Larry', { status: 'declined_patron', tiers: [e.tiers.silver], chargedDaysAgo: 10 });
  const member = e.discord.addMember(e.guildId, { username: 'larry' });

  const run = await linkStepByStep(member.userId, user.id);

  expect(run.page.status).toBe(200);
  expect(run.rolesWhenPageReturned).not.toContain(e.roles.silver);
  expect(run.rolesWhenPageReturned).toEqual([]);
  expect(run.page.text).toContain('Your membership has lapsed');
  expect(run.page.text).toContain('grace period ended on 2026-11-17');
  expect(run.page.text).toMatch(/Update payment on Patreon/);

  const status = await e.command(member.userId, 'status');
  expect(status.content).toMatch(/grace period ended on 2026-11-17/);
  expect(status.content).toMatch(new RegExp(`<@&${e.roles.silver}> — Silver tier: payment declined on 2026-11-10`));
});

test('a declined patron for whom the service lists no tier any more gets no role, and the page promises none', async () => {
  const user = patron('Nia Notier', { status: 'declined_patron', tiers: [], chargedDaysAgo: 2 });
  const member = e.discord.addMember(e.guildId, { username: 'nia' });

  const run = await linkStepByStep(member.userId, user.id);

  expect(run.page.status).toBe(200);
  expect(run.rolesWhenPageReturned).toEqual([]);
  expect(run.page.text).not.toMatch(/roles are kept|roles kept until/);
  expect(run.page.text).toMatch(/payment declined on 2026-11-18\s*; no tier is listed until a payment goes through/i);
  expect(run.page.text).toMatch(/Update payment on Patreon/);
  const status = await e.command(member.userId, 'status');
  expect(status.content).not.toMatch(/roles kept until/);
  expect(status.content).toMatch(/payment declined on 2026-11-18; no tier is listed until a payment goes through/);
});

test('an active patron without a tier is told so, not thanked for a tier', async () => {
  const user = patron('Cus Tom', { status: 'active_patron', tiers: [], chargedDaysAgo: 2 });
  const member = e.discord.addMember(e.guildId, { username: 'custom' });

  const run = await linkStepByStep(member.userId, user.id);

  expect(run.page.status).toBe(200);
  expect(run.rolesWhenPageReturned).toEqual([]);
  expect(run.page.text).toMatch(/Active patron without a tier/);
  expect(run.page.text).not.toMatch(/Your tiers? [A-Z]/);
});

test('when the creator-side read of the member fails, the patron’s own view of the membership still links and grants', async () => {
  const user = patron('Ida Identity', { status: 'active_patron', tiers: [e.tiers.bronze], chargedDaysAgo: 2 });
  const member = e.discord.addMember(e.guildId, { username: 'ida' });
  const fault = e.patreon.injectFault({ method: 'GET', path: /^\/api\/oauth2\/v2\/members\//, status: 500, times: Infinity });
  try {
    const run = await linkStepByStep(member.userId, user.id);
    expect(run.page.status).toBe(200);
    expect(run.rolesWhenPageReturned).toEqual([e.roles.bronze]);
  } finally {
    e.patreon.removeFault(fault);
  }
});

test('a former patron gets no role and a page to pledge again', async () => {
  const user = patron('Fred Former', { status: 'former_patron', tiers: [], chargedDaysAgo: 60 });
  const member = e.discord.addMember(e.guildId, { username: 'fred' });

  const run = await linkStepByStep(member.userId, user.id);

  expect(run.page.status).toBe(200);
  expect(run.rolesWhenPageReturned).toEqual([]);
  expect(run.page.text).toContain("You're no longer a patron");
});

test('linking the same Patreon account from a second Discord account moves the roles, and the first account’s /status says why', async () => {
  const user = patron('Max Mover', { status: 'active_patron', tiers: [e.tiers.gold], chargedDaysAgo: 5 });
  const first = e.discord.addMember(e.guildId, { username: 'max-main' });
  const second = e.discord.addMember(e.guildId, { username: 'max-alt' });

  const one = await linkStepByStep(first.userId, user.id);
  expect(one.rolesWhenPageReturned).toContain(e.roles.gold);

  const two = await linkStepByStep(second.userId, user.id);
  expect(two.page.status).toBe(200);
  expect(two.rolesWhenPageReturned).toContain(e.roles.gold);
  // The first account lost the role before the second account's page came back.
  expect(e.discord.memberRoles(e.guildId, first.userId)).not.toContain(e.roles.gold);
  expect(two.page.text).toMatch(/linked to another Discord account before/);
  const removal = e.discord.roleEvents().find((r) => r.userId === first.userId && r.roleId === e.roles.gold && r.op === 'remove')!;
  expect(removal.reason).toMatch(/another Discord account/);

  const firstStatus = await e.command(first.userId, 'status');
  expect(firstStatus.ephemeral).toBe(true);
  expect(firstStatus.content).toMatch(/Not linked/);
  expect(firstStatus.content).toMatch(/linked to another Discord account on 2026-11-20/);
  expect(firstStatus.content).not.toMatch(/Roles from Tierlink/);
  expect(firstStatus.content).toContain(`<@&${e.roles.gold}> — Gold tier: needs a linked Patreon membership`);
  expect(firstStatus.content).not.toMatch(/not a member of this campaign/);
  const secondStatus = await e.command(second.userId, 'status');
  expect(secondStatus.content).toMatch(/\*\*Linked\*\*/);
  expect(secondStatus.content).toContain(`<@&${e.roles.gold}> — Gold tier`);
});

test('linking a second Patreon account from the same Discord account replaces the first, and its roles follow the new one', async () => {
  const gold = patron('Pat Gold', { status: 'active_patron', tiers: [e.tiers.gold], chargedDaysAgo: 5 });
  const bronze = patron('Pat Bronze', { status: 'active_patron', tiers: [e.tiers.bronze], chargedDaysAgo: 5 });
  const member = e.discord.addMember(e.guildId, { username: 'pat' });

  await linkStepByStep(member.userId, gold.id);
  expect(e.discord.memberRoles(e.guildId, member.userId)).toEqual([e.roles.gold]);
  const again = await linkStepByStep(member.userId, bronze.id);
  expect(again.rolesWhenPageReturned).toEqual([e.roles.bronze]);
  expect(again.page.text).toMatch(/Gold Removed/);
});

test('a patron who left the server while on the consent page is linked, and the page says the roles arrive when they join', async () => {
  const user = patron('Out Side', { status: 'active_patron', tiers: [e.tiers.bronze], chargedDaysAgo: 1 });
  const member = e.discord.addMember(e.guildId, { username: 'outside' });
  const reply = await e.command(member.userId, 'link');
  const browser = new Browser();
  const consent = serviceUrl(await e.followToService(browser, reply.urls[0]!, member.userId));
  e.discord.removeMember(e.guildId, member.userId);

  const callback = await e.patreon.approveAuthorization(consent, user.id);
  const res = await browser.get(callback);
  const text = pageText(await res.text());

  expect(res.status).toBe(200);
  expect(text).toContain('Linked! Now join the server');
  expect(text).toContain('Join Fan Club');
  e.discord.addMember(e.guildId, { userId: member.userId, username: 'outside' });
  await e.discord.waitForMemberRole(e.guildId, member.userId, e.roles.bronze, { present: true, timeoutMs: 5_000 });
});

test('a tier created after the campaign was connected grants its Discord role at the first /link, without a catalog refresh', async () => {
  const roleId = e.discord.createRole(e.guildId, { name: 'Platinum', position: 1 }).id;
  const tierId = e.patreon.createTier(e.patreon.campaignId, { title: 'Platinum', amountCents: 5000, chatRoleIds: [roleId] }).id;
  const { campaigns } = e.tierlink.services.repos;
  expect((await campaigns.tiersOf([e.patreon.campaignId])).map((t) => t.id)).not.toContain(tierId);
  const user = patron('Pat Platinum', { status: 'active_patron', tiers: [tierId], chargedDaysAgo: 1 });
  const member = e.discord.addMember(e.guildId, { username: 'pat' });

  const run = await linkStepByStep(member.userId, user.id);

  expect(run.rolesWhenPageReturned).toContain(roleId);
  expect(run.page.text).toMatch(/Your tier Platinum/);
  const stored = (await campaigns.tiersOf([e.patreon.campaignId])).find((t) => t.id === tierId);
  expect(stored?.roleIds.everywhere).toEqual([roleId]);
});
