import { Browser } from '../support/browser';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/edges/outbound/store/database';
import { MINUTE } from '../../src/shared/clock';
import { type E2E, pageText, startE2E } from '../support/e2e';

/**
 * What goes wrong on the way through `/link`: expired, used and unknown links, a denied consent, a
 * missing, forged or replayed OAuth state. Each gives the patron a page that says what to do, and
 * none stores anything or touches a role.
 */

let e: E2E;
beforeAll(async () => {
  e = await startE2E({ connected: true });
}, 60_000);
afterAll(() => e?.stop());

function activeGoldPatron(fullName: string) {
  const user = e.patreon.createUser({ fullName });
  e.patreon.setMembership(
    user.id,
    e.patreon.campaignId,
    { patronStatus: 'active_patron', tierIds: [e.tiers.gold], lastChargeDate: e.clock.now(), lastChargeStatus: 'Paid' },
    { deliver: false },
  );
  return user;
}

/** One patron's browser for the whole file: it holds the cookie of every flow it started. */
const browser = new Browser();

async function get(url: string) {
  const res = await browser.get(url);
  const html = await res.text();
  return { status: res.status, location: res.headers.get('location'), text: pageText(html) };
}

/** Follows a `/link` button as `discordUserId`, through Discord's sign-in: `location` is the service's consent page. */
async function follow(url: string, discordUserId: string) {
  const step = await e.followToService(browser, url, discordUserId);
  return step.kind === 'service'
    ? { status: 302, location: step.url, text: '' }
    : { status: step.status, location: null, text: pageText(step.html) };
}

/** What a failed attempt must leave untouched: links, snapshots, the ledger, and Discord. */
async function stored(patreonUserId: string, discordUserId: string) {
  const { db } = e.db.database;
  const links = await queryRows(db, sql`select * from links where external_id = ${patreonUserId} or discord_user_id = ${discordUserId}`);
  const snapshots = await queryRows(db, sql`select * from member_snapshots where external_user_id = ${patreonUserId}`);
  const grants = await queryRows(db, sql`select * from role_grants where discord_user_id = ${discordUserId}`);
  const events = await queryRows(
    db,
    sql`select * from link_events where discord_user_id = ${discordUserId} or external_id = ${patreonUserId}`,
  );
  return {
    links: links.length,
    snapshots: snapshots.length,
    grants: grants.length,
    events: events.length,
    roles: e.discord.memberRoles(e.guildId, discordUserId),
  };
}
const NOTHING = { links: 0, snapshots: 0, grants: 0, events: 0, roles: [] };

const tokenExchanges = () => e.patreon.requests().filter((r) => r.method === 'POST' && r.path === '/api/oauth2/token').length;

test('a link followed after its 15 minutes gets the friendly 410 page, and no trip to the service', async () => {
  const member = e.discord.addMember(e.guildId, { username: 'slow' });
  const reply = await e.command(member.userId, 'link');

  e.clock.advance(15 * MINUTE + 1000);
  const page = await get(reply.urls[0]!);

  expect(page.status).toBe(410);
  expect(page.location).toBeNull();
  expect(page.text).toMatch(/This link has expired/);
  expect(page.text).toMatch(/Run \/link again/);
});

test('a link still works just before its 15 minutes are up', async () => {
  const user = activeGoldPatron('Just In Time');
  const member = e.discord.addMember(e.guildId, { username: 'just-in-time' });
  const reply = await e.command(member.userId, 'link');

  e.clock.advance(15 * MINUTE - 1000);
  const followed = await follow(reply.urls[0]!, member.userId);
  expect(followed.status).toBe(302);
  const callback = await e.patreon.approveAuthorization(followed.location!, user.id);
  const page = await get(callback);

  expect(page.status).toBe(200);
  expect(e.discord.memberRoles(e.guildId, member.userId)).toContain(e.roles.gold);
});

test('a link is single use: following it a second time gets the 410 page', async () => {
  const member = e.discord.addMember(e.guildId, { username: 'twice' });
  const reply = await e.command(member.userId, 'link');

  const first = await follow(reply.urls[0]!, member.userId);
  const second = await get(reply.urls[0]!);

  expect(first.status).toBe(302);
  expect(second.status).toBe(410);
  expect(second.text).toMatch(/This link was already used/);
});

test('an unknown or malformed link token gets the 410 page', async () => {
  for (const token of ['AAAAAAAAAAAAAAAAAAAAAA', 'not-a-token', 'x'.repeat(200), '%00']) {
    const page = await get(`${e.url}/link/${token}`);
    expect(page.status).toBe(410);
    expect(page.text).toMatch(/Run \/link again/);
  }
});

test('a /connect link cannot be used as a /link', async () => {
  const reply = await e.command(e.ownerId, 'connect', [], 1n << 3n);
  const token = reply.urls[0]!.split('/').pop()!;
  const page = await get(`${e.url}/link/${token}`);
  expect(page.status).toBe(410);
  // Opened at the wrong address, the link is not spent: it still works where it belongs.
  const right = await browser.get(`${e.url}/connect/${token}`);
  expect(right.status).toBe(302);
});

test('denied consent: a friendly page, nothing stored, no role, and no code exchange', async () => {
  const user = activeGoldPatron('Dee Nied');
  const member = e.discord.addMember(e.guildId, { username: 'dee' });
  const before = tokenExchanges();

  const page = await e.link(member.userId, user.id, 'deny');

  expect(page.status).toBe(200);
  expect(pageText(page.html)).toMatch(/Nothing was linked/);
  expect(pageText(page.html)).toMatch(/Run \/link again in Discord and choose Allow/);
  expect(await stored(user.id, member.userId)).toEqual(NOTHING);
  expect(tokenExchanges()).toBe(before);
  const status = await e.command(member.userId, 'status');
  expect(status.content).toMatch(/Not linked/);
});

test('a replayed callback (same code and state) gets the 400 page and changes nothing', async () => {
  const user = activeGoldPatron('Rita Replay');
  const member = e.discord.addMember(e.guildId, { username: 'rita' });
  const reply = await e.command(member.userId, 'link');
  const followed = await follow(reply.urls[0]!, member.userId);
  const callback = await e.patreon.approveAuthorization(followed.location!, user.id);
  const first = await get(callback);
  expect(first.status).toBe(200);
  const after = await stored(user.id, member.userId);
  const exchanges = tokenExchanges();

  const replay = await get(callback);

  expect(replay.status).toBe(400);
  expect(replay.text).toMatch(/can't be used/);
  expect(replay.text).toMatch(/Run \/link again/);
  expect(await stored(user.id, member.userId)).toEqual(after);
  expect(tokenExchanges()).toBe(exchanges);
});

test('two requests racing with the same callback: one links, the other gets the 400 page, and the code is exchanged once', async () => {
  const user = activeGoldPatron('Ray Ce');
  const member = e.discord.addMember(e.guildId, { username: 'race' });
  const reply = await e.command(member.userId, 'link');
  const followed = await follow(reply.urls[0]!, member.userId);
  const callback = await e.patreon.approveAuthorization(followed.location!, user.id);
  const exchanges = tokenExchanges();

  const pages = await Promise.all([get(callback), get(callback)]);

  expect(pages.map((p) => p.status).sort()).toEqual([200, 400]);
  expect(tokenExchanges()).toBe(exchanges + 1);
  expect(e.discord.memberRoles(e.guildId, member.userId)).toEqual([e.roles.gold]);
});

test('a used state with a fresh code from another authorization is refused, and that other account is not linked', async () => {
  const victim = activeGoldPatron('Vic Tim');
  const attacker = activeGoldPatron('Mal Lory');
  const victimMember = e.discord.addMember(e.guildId, { username: 'vic' });
  const attackerMember = e.discord.addMember(e.guildId, { username: 'mal' });

  // The victim's link completes; its state is used.
  const victimReply = await e.command(victimMember.userId, 'link');
  const victimFollow = await follow(victimReply.urls[0]!, victimMember.userId);
  const victimCallback = new URL(await e.patreon.approveAuthorization(victimFollow.location!, victim.id));
  expect((await get(victimCallback.toString())).status).toBe(200);

  // A second authorization yields a fresh code; it is sent with the victim's (used) state.
  const attackerReply = await e.command(attackerMember.userId, 'link');
  const attackerFollow = await follow(attackerReply.urls[0]!, attackerMember.userId);
  const attackerCallback = new URL(await e.patreon.approveAuthorization(attackerFollow.location!, attacker.id));
  const spliced = new URL(attackerCallback);
  spliced.searchParams.set('state', victimCallback.searchParams.get('state')!);
  const exchanges = tokenExchanges();

  const page = await get(spliced.toString());

  expect(page.status).toBe(400);
  expect(tokenExchanges()).toBe(exchanges);
  expect(await stored(attacker.id, attackerMember.userId)).toEqual(NOTHING);
  const victimLink = await queryRows<{ external_id: string }>(
    e.db.database.db,
    sql`select external_id from links where discord_user_id = ${victimMember.userId}`,
  );
  expect(victimLink.map((l) => l.external_id)).toEqual([victim.id]);
  expect(e.discord.memberRoles(e.guildId, victimMember.userId)).toEqual([e.roles.gold]);
  // The attacker's own state is still good: the genuine callback completes for the right user.
  const genuine = await get(attackerCallback.toString());
  expect(genuine.status).toBe(200);
  expect(e.discord.memberRoles(e.guildId, attackerMember.userId)).toEqual([e.roles.gold]);
});

test('a missing or forged state gets the 400 page, and the code is never exchanged', async () => {
  const user = activeGoldPatron('Fay Forger');
  const member = e.discord.addMember(e.guildId, { username: 'fay' });
  const reply = await e.command(member.userId, 'link');
  const followed = await follow(reply.urls[0]!, member.userId);
  const callback = new URL(await e.patreon.approveAuthorization(followed.location!, user.id));
  const state = callback.searchParams.get('state')!;
  const [hash, nonce, binding, signature] = state.split('.');
  const exchanges = tokenExchanges();

  const variants: Array<string | null> = [
    null,
    '',
    'garbage',
    `${hash}.${nonce}.${binding}.${'A'.repeat(signature!.length)}`,
    `${hash}.${'B'.repeat(nonce!.length)}.${binding}.${signature}`,
    `${'0'.repeat(hash!.length)}.${nonce}.${binding}.${signature}`,
    // Another browser's binding: the signature covers it.
    `${hash}.${nonce}.${'C'.repeat(binding!.length)}.${signature}`,
    `${hash}.${nonce}.${signature}`,
    `${hash}.${nonce}`,
  ];
  for (const variant of variants) {
    const forged = new URL(callback);
    if (variant === null) forged.searchParams.delete('state');
    else forged.searchParams.set('state', variant);
    const page = await get(forged.toString());
    expect(page.status).toBe(400);
    expect(page.text).toMatch(/nothing was changed/);
  }
  expect(tokenExchanges()).toBe(exchanges);
  expect(await stored(user.id, member.userId)).toEqual(NOTHING);

  // The genuine state was not spent by the forgeries.
  const page = await get(callback.toString());
  expect(page.status).toBe(200);
  expect(e.discord.memberRoles(e.guildId, member.userId)).toEqual([e.roles.gold]);
});

test('a callback with a code but a state from the consent page after the state expired is refused', async () => {
  const user = activeGoldPatron('Stan Stale');
  const member = e.discord.addMember(e.guildId, { username: 'stan' });
  const reply = await e.command(member.userId, 'link');
  const followed = await follow(reply.urls[0]!, member.userId);
  const callback = await e.patreon.approveAuthorization(followed.location!, user.id);

  e.clock.advance(16 * MINUTE);
  const page = await get(callback);

  expect(page.status).toBe(400);
  expect(await stored(user.id, member.userId)).toEqual(NOTHING);
});

test('an error other than access_denied from the service gets a page that says to try again, and nothing is stored', async () => {
  const user = activeGoldPatron('Err Or');
  const member = e.discord.addMember(e.guildId, { username: 'error' });
  const reply = await e.command(member.userId, 'link');
  const followed = await follow(reply.urls[0]!, member.userId);
  const state = new URL(followed.location!).searchParams.get('state')!;

  const page = await get(`${e.url}/oauth/callback?error=server_error&state=${encodeURIComponent(state)}`);

  expect(page.status).toBeGreaterThanOrEqual(500);
  expect(page.text).toMatch(/run \/link again/i);
  expect(await stored(user.id, member.userId)).toEqual(NOTHING);
});

test('the service failing the code exchange gives a page that says to try again, and nothing is stored', async () => {
  const user = activeGoldPatron('Down Time');
  const member = e.discord.addMember(e.guildId, { username: 'downtime' });
  const reply = await e.command(member.userId, 'link');
  const followed = await follow(reply.urls[0]!, member.userId);
  const callback = await e.patreon.approveAuthorization(followed.location!, user.id);
  const fault = e.patreon.injectFault({ method: 'POST', path: '/api/oauth2/token', status: 503, times: 10 });

  const page = await get(callback);
  e.patreon.removeFault(fault);

  expect(page.status).toBe(502);
  expect(page.text).toMatch(/couldn't reach Patreon/);
  expect(page.text).toMatch(/run \/link again/i);
  expect(await stored(user.id, member.userId)).toEqual(NOTHING);
});
