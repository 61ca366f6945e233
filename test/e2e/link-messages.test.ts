import { type E2E, startE2E } from '../support/e2e';
import { MANAGE_ROLES, activePatron, boolOption, runCommand } from '../support/e2e-admin';

/**
 * The direct message to a patron whose membership was just linked: off unless the server turns it on
 * (it needs Manage Server), off for a patron who turned messages off with `/privacy`, sent once per
 * server and Patreon account, and a closed DM (Discord's 50007) is noted, not retried, and never
 * holds up the roles. It goes through the same path as the other messages to patrons.
 */
let e: E2E;
const settled = () => e.tierlink.services.patronMessages.settled();
const records = (userId: string) => e.tierlink.services.repos.directMessages.ofMember(e.guildId, userId);
const linkedDms = (userId: string) => e.discord.directMessages(userId).filter((m) => m.content.includes('is now linked in'));

beforeAll(async () => {
  e = await startE2E({ connected: true });
}, 60_000);
afterAll(() => e?.stop());

async function linkNew(name: string, tierIds = [e.tiers.silver]) {
  const userId = e.discord.addMember(e.guildId, { username: name }).userId;
  const patron = activePatron(e, name, tierIds);
  await e.link(userId, patron.id);
  await settled();
  return { userId, patronId: patron.id };
}

test('off by default: a new link sends no message', async () => {
  const { userId } = await linkNew('quiet');
  expect(e.discord.memberRoles(e.guildId, userId)).toContain(e.roles.silver);
  expect(linkedDms(userId)).toEqual([]);
  expect(await records(userId)).toEqual([]);
});

test('turning it on needs Manage Server; then a new patron gets one message, and a relink none', async () => {
  const mod = e.discord.addMember(e.guildId, { username: 'mod' }).userId;
  const refused = await e.tierlink.services.admin.settings.apply({ guildId: e.guildId, userId: mod }, { linkMessages: true });
  expect(refused.kind).toBe('not_allowed');
  expect(await e.tierlink.services.repos.guilds.linkMessages(e.guildId)).toBe(false);
  const saved = await e.tierlink.services.admin.settings.apply({ guildId: e.guildId, userId: e.ownerId }, { linkMessages: true });
  expect(saved.kind).toBe('changed');
  expect((await runCommand(e, { userId: e.ownerId, name: 'settings', memberPermissions: MANAGE_ROLES }).reply()).content).toContain(
    '• **Message to a newly linked patron** (a direct message when a patron links here): on',
  );

  const { userId, patronId } = await linkNew('newbie');
  const dms = linkedDms(userId);
  expect(dms).toHaveLength(1);
  expect(dms[0]!.content).toMatch(/^Your Patreon membership is now linked in \*\*.+\*\*: Tierlink gives you the roles of your tier there/);
  expect(dms[0]!.content).toContain('/privacy direct_messages:False');
  expect(dms[0]!.mentions).toEqual({ users: [], roles: [], everyone: false });
  expect(await records(userId)).toEqual([{ kind: 'linked', subject: patronId, status: 'sent', lastError: null }]);

  // Linking the same account again tells nothing new.
  await e.link(userId, patronId);
  await settled();
  expect(linkedDms(userId)).toHaveLength(1);
});

test('a patron who turned messages off with /privacy gets none; nor does someone who is no patron', async () => {
  const userId = e.discord.addMember(e.guildId, { username: 'private' }).userId;
  const privacy = await runCommand(e, { userId, name: 'privacy', options: [boolOption('direct_messages', false)] }).reply();
  expect(privacy.ephemeral).toBe(true);
  await e.link(userId, activePatron(e, 'private', [e.tiers.gold]).id);
  await settled();
  expect(e.discord.memberRoles(e.guildId, userId)).toContain(e.roles.gold);
  expect(linkedDms(userId)).toEqual([]);

  const follower = e.discord.addMember(e.guildId, { username: 'follower' }).userId;
  const fan = e.patreon.createUser({ fullName: 'Fan' });
  e.patreon.setMembership(fan.id, e.patreon.campaignId, { patronStatus: null, isFollower: true, tierIds: [] }, { deliver: false });
  await e.link(follower, fan.id);
  await settled();
  expect(linkedDms(follower)).toEqual([]);
});

test('closed DMs are noted and not retried, and the roles are given all the same', async () => {
  const userId = e.discord.addMember(e.guildId, { username: 'closed' }).userId;
  e.discord.setDirectMessagesClosed(userId, true);
  const patron = activePatron(e, 'closed', [e.tiers.bronze]);
  await e.link(userId, patron.id);
  await settled();
  expect(e.discord.memberRoles(e.guildId, userId)).toContain(e.roles.bronze);
  expect(await records(userId)).toEqual([
    { kind: 'linked', subject: patron.id, status: 'refused', lastError: expect.stringContaining('Cannot send messages to this user') },
  ]);
  e.discord.setDirectMessagesClosed(userId, false);
  await e.link(userId, patron.id);
  await settled();
  expect(e.discord.directMessages(userId)).toEqual([]);
});
