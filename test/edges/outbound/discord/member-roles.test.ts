import { createManualClock } from '@tierlink/sandbox';
import { type DiscordSandbox, createDiscordSandbox } from '@tierlink/sandbox/discord';
import { createDiscordAccess, createMemberRoleCache } from '../../../../src/edges/outbound/discord';

/**
 * The member-role cache over the real directory against the Discord stand-in; the gateway's
 * dispatches are given as discord.js's `raw` event gives them (the real client feeding it is
 * covered end to end in test/e2e/discord-traffic.test.ts).
 */
let sandbox: DiscordSandbox;
beforeAll(async () => {
  sandbox = await createDiscordSandbox();
});
afterAll(() => sandbox.close());

function setup() {
  const { guildId } = sandbox.createGuild({ name: 'Cache Club' });
  const gold = sandbox.createRole(guildId, { name: 'Gold', position: 1 }).id;
  const staff = sandbox.createRole(guildId, { name: 'Staff', position: 1 }).id;
  const alice = sandbox.addMember(guildId, { username: 'alice', roleIds: [staff] }).userId;
  const access = createDiscordAccess({
    apiBaseUrl: sandbox.apiBaseUrl,
    token: sandbox.botToken,
    botUserId: sandbox.botUserId,
    clock: createManualClock(),
  });
  sandbox.resetRequests();
  // Reads of members other than the bot (the writer reads the bot's own member for the role hierarchy).
  const memberReads = () =>
    sandbox.requests().filter((r) => r.route === 'GET /guilds/:g/members/:u' && !r.path.endsWith(`/${sandbox.botUserId}`)).length;
  const dispatch = (feed: ReturnType<typeof access.memberRoles.session>, t: string, d: Record<string, unknown>) => feed.dispatch({ t, d });
  return { guildId, gold, staff, alice, access, cache: access.memberRoles, memberReads, dispatch };
}

test('a guild whose events this process does not receive is read over REST every time, and nothing is kept', async () => {
  const { guildId, staff, alice, cache, memberReads } = setup();
  expect(await cache.rolesOf(guildId, alice)).toEqual([staff]);
  expect(await cache.rolesOf(guildId, alice)).toEqual([staff]);
  expect(memberReads()).toBe(2);
  expect(cache.trusted(guildId)).toBe(false);
  expect(cache.stats()).toEqual({ guilds: 0, entries: 0, bytes: 0 });
});

test('once the session delivers the guild: an unknown member is read once and then known; events keep them', async () => {
  const { guildId, gold, staff, alice, cache, memberReads, dispatch } = setup();
  const feed = cache.session();
  dispatch(feed, 'GUILD_CREATE', { id: guildId, unavailable: false });
  expect(await cache.rolesOf(guildId, alice)).toEqual([staff]);
  expect(await cache.rolesOf(guildId, alice)).toEqual([staff]);
  expect(memberReads()).toBe(1);

  dispatch(feed, 'GUILD_MEMBER_UPDATE', { guild_id: guildId, user: { id: alice }, roles: [staff, gold] });
  expect([...(await cache.rolesOf(guildId, alice))!].sort()).toEqual([staff, gold].sort());
  dispatch(feed, 'GUILD_ROLE_DELETE', { guild_id: guildId, role_id: gold });
  expect(await cache.rolesOf(guildId, alice)).toEqual([staff]);
  dispatch(feed, 'GUILD_MEMBER_REMOVE', { guild_id: guildId, user: { id: alice } });
  expect(await cache.rolesOf(guildId, alice)).toBeNull();
  const bob = '200000000000000001';
  dispatch(feed, 'GUILD_MEMBER_ADD', { guild_id: guildId, user: { id: bob }, roles: [gold] });
  expect(await cache.rolesOf(guildId, bob)).toEqual([gold]);
  expect(memberReads()).toBe(1);
  expect(cache.stats()).toMatchObject({ guilds: 1, entries: 2 });
});

test('a member who is not in the guild is remembered as such after one read', async () => {
  const { guildId, cache, memberReads, dispatch } = setup();
  dispatch(cache.session(), 'GUILD_CREATE', { id: guildId });
  const stranger = sandbox.createUser({ username: 'stranger' }).id;
  expect(await cache.rolesOf(guildId, stranger)).toBeNull();
  expect(await cache.rolesOf(guildId, stranger)).toBeNull();
  expect(memberReads()).toBe(1);
});

test('a read answered after an event about the same member does not overwrite what the event said', async () => {
  const { guildId, gold, staff, alice, cache, dispatch } = setup();
  const feed = cache.session();
  dispatch(feed, 'GUILD_CREATE', { id: guildId });
  const read = cache.rolesOf(guildId, alice);
  // The event arrives while the GET is out: it is newer than anything the GET can answer.
  dispatch(feed, 'GUILD_MEMBER_UPDATE', { guild_id: guildId, user: { id: alice }, roles: [gold] });
  expect(await read).toEqual([staff]);
  expect(await cache.rolesOf(guildId, alice)).toEqual([gold]);
});

test('a dropped session stops trusting its guilds until it resumes; a new session starts from GUILD_CREATE', async () => {
  const { guildId, staff, alice, cache, memberReads, dispatch } = setup();
  const feed = cache.session();
  dispatch(feed, 'GUILD_CREATE', { id: guildId });
  await cache.rolesOf(guildId, alice);
  feed.lost();
  expect(cache.trusted(guildId)).toBe(false);
  // Events while disconnected are not seen; whatever was known is gone.
  expect(await cache.rolesOf(guildId, alice)).toEqual([staff]);
  expect(await cache.rolesOf(guildId, alice)).toEqual([staff]);
  expect(memberReads()).toBe(3);
  dispatch(feed, 'RESUMED', {});
  expect(cache.trusted(guildId)).toBe(true);
  expect(await cache.rolesOf(guildId, alice)).toEqual([staff]);
  expect(await cache.rolesOf(guildId, alice)).toEqual([staff]);
  expect(memberReads()).toBe(4);

  feed.lost();
  dispatch(feed, 'READY', {});
  dispatch(feed, 'RESUMED', {});
  expect(cache.trusted(guildId)).toBe(false);
  dispatch(feed, 'GUILD_CREATE', { id: guildId });
  expect(cache.trusted(guildId)).toBe(true);
  dispatch(feed, 'GUILD_DELETE', { id: guildId });
  expect(cache.trusted(guildId)).toBe(false);
});

test('our own accepted role requests update the member; a member Discord does not know is remembered as gone', async () => {
  const { guildId, gold, staff, alice, access, cache, memberReads, dispatch } = setup();
  dispatch(cache.session(), 'GUILD_CREATE', { id: guildId });
  await cache.rolesOf(guildId, alice);
  expect((await access.writer.addRole(guildId, alice, gold, 'test')).ok).toBe(true);
  expect([...(await cache.rolesOf(guildId, alice))!].sort()).toEqual([staff, gold].sort());
  expect((await access.writer.removeRole(guildId, alice, staff, 'test')).ok).toBe(true);
  expect(await cache.rolesOf(guildId, alice)).toEqual([gold]);
  expect(memberReads()).toBe(1);

  const leaver = sandbox.addMember(guildId, { username: 'leaver' }).userId;
  await cache.rolesOf(guildId, leaver);
  sandbox.removeMember(guildId, leaver); // no session event reaches this test's feed
  const refused = await access.writer.addRole(guildId, leaver, gold, 'test');
  expect(refused.ok).toBe(false);
  expect(await cache.rolesOf(guildId, leaver)).toBeNull();
});

test("the full sync's listing refreshes every member and forgets those it no longer lists", async () => {
  const { guildId, gold, staff, alice, access, cache, memberReads, dispatch } = setup();
  dispatch(cache.session(), 'GUILD_CREATE', { id: guildId });
  const bob = sandbox.addMember(guildId, { username: 'bob', roleIds: [gold] }).userId;
  await cache.rolesOf(guildId, alice);
  await cache.rolesOf(guildId, bob);
  sandbox.removeMember(guildId, bob);
  sandbox.setMemberRolesByHand(guildId, alice, [gold]);
  const carol = sandbox.addMember(guildId, { username: 'carol', roleIds: [staff] }).userId;
  sandbox.resetRequests();

  let pages = 0;
  for await (const page of access.directory.listMembers(guildId, { pageSize: 2 })) pages += page.length > 0 ? 1 : 0;
  expect(pages).toBeGreaterThan(1);
  expect(await cache.rolesOf(guildId, alice)).toEqual([gold]);
  expect(await cache.rolesOf(guildId, carol)).toEqual([staff]);
  // Bob was not listed: forgotten, so the next lookup reads him (and learns he is gone).
  expect(await cache.rolesOf(guildId, bob)).toBeNull();
  expect(memberReads()).toBe(1);
});

test('a listing that stops early (the doctor reads one member) forgets nobody', async () => {
  const { guildId, staff, alice, access, cache, memberReads, dispatch } = setup();
  dispatch(cache.session(), 'GUILD_CREATE', { id: guildId });
  sandbox.addMember(guildId, { username: 'zed' });
  await cache.rolesOf(guildId, alice);
  for await (const _page of access.directory.listMembers(guildId, { pageSize: 1 })) break;
  expect(await cache.rolesOf(guildId, alice)).toEqual([staff]);
  expect(memberReads()).toBe(1);
});

test('past its entry limit the cache keeps what it knows and reads the others every time', async () => {
  const { guildId, staff, alice, access, memberReads } = setup();
  const cache = createMemberRoleCache({ directory: access.directory, maxEntries: 1 });
  cache.session().dispatch({ t: 'GUILD_CREATE', d: { id: guildId } });
  const bob = sandbox.addMember(guildId, { username: 'bob' }).userId;
  await cache.rolesOf(guildId, alice);
  await cache.rolesOf(guildId, bob);
  await cache.rolesOf(guildId, bob);
  expect(await cache.rolesOf(guildId, alice)).toEqual([staff]);
  expect(memberReads()).toBe(3);
  expect(cache.stats().entries).toBe(1);
});

test('a member behind Membership Screening is pending until GUILD_MEMBER_UPDATE says they passed, which is reported once', async () => {
  const { guildId, gold, cache, memberReads, dispatch } = setup();
  const passed: string[] = [];
  const feed = cache.session({ screeningPassed: (g, u) => passed.push(`${g}:${u}`) });
  dispatch(feed, 'GUILD_CREATE', { id: guildId });
  const dana = '200000000000000011';
  const eli = '200000000000000012';

  dispatch(feed, 'GUILD_MEMBER_ADD', { guild_id: guildId, user: { id: dana }, roles: [], pending: true });
  expect(await cache.rolesOf(guildId, dana)).toBe('pending');
  expect(cache.peek(guildId, dana)).toBe('pending');
  // Our own accepted request does not make a pending member's entry up.
  cache.roleChanged(guildId, dana, gold, 'add');
  expect(cache.peek(guildId, dana)).toBe('pending');
  // Another update while still pending (a nickname) passes nothing.
  dispatch(feed, 'GUILD_MEMBER_UPDATE', { guild_id: guildId, user: { id: dana }, roles: [], pending: true });
  expect(passed).toEqual([]);

  dispatch(feed, 'GUILD_MEMBER_UPDATE', { guild_id: guildId, user: { id: dana }, roles: [], pending: false });
  expect(await cache.rolesOf(guildId, dana)).toEqual([]);
  expect(passed).toEqual([`${guildId}:${dana}`]);
  // Every later update of a member who was never pending here (or passed already) reports nothing.
  dispatch(feed, 'GUILD_MEMBER_UPDATE', { guild_id: guildId, user: { id: dana }, roles: [gold] });
  dispatch(feed, 'GUILD_MEMBER_UPDATE', { guild_id: guildId, user: { id: eli }, roles: [] });
  expect(passed).toEqual([`${guildId}:${dana}`]);
  expect(memberReads()).toBe(0);
});

test('a pending member read over REST or listed is pending; a complete listing that no longer lists them forgets them', async () => {
  const { guildId, staff, alice, access, cache, dispatch } = setup();
  sandbox.setScreening(guildId, true);
  const fay = sandbox.addMember(guildId, { username: 'fay' }).userId;
  expect(await cache.rolesOf(guildId, fay)).toBe('pending');

  dispatch(cache.session(), 'GUILD_CREATE', { id: guildId });
  const gus = sandbox.addMember(guildId, { username: 'gus' }).userId;
  for await (const page of access.directory.listMembers(guildId, { pageSize: 2 })) void page;
  expect(cache.peek(guildId, fay)).toBe('pending');
  expect(cache.peek(guildId, gus)).toBe('pending');
  // Alice joined before screening was turned on: a member as before.
  expect(cache.peek(guildId, alice)).toEqual([staff]);

  sandbox.removeMember(guildId, gus);
  for await (const page of access.directory.listMembers(guildId)) void page;
  expect(cache.peek(guildId, gus)).toBeUndefined();
  expect(cache.peek(guildId, fay)).toBe('pending');
});
