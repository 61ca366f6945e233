import { type E2E, startE2E } from '../support/e2e';
import { EVERYONE, MANAGE_ROLES, runCommand } from '../support/e2e-admin';

/**
 * Attack: a moderator with Manage Roles points the mod-log or an announcement at a private channel
 * he cannot see (the admins' channel), so that Tierlink posts into it, or uses the answers to learn
 * that it exists. Refusal: choosing a channel needs the person to see it (View Channel, from the
 * channel's overwrites and their own roles), as Discord would require of them by hand.
 */

const VIEW = 1n << 10n;
const SEND = 1n << 11n;
const EMBED = 1n << 14n;
const channelOption = (name: string, channelId: string) => ({ name, type: 7, value: channelId });

let e: E2E;
let moderator: string;
let admins: string;
let open: string;

beforeAll(async () => {
  e = await startE2E({ connected: true });
  const bot = e.discord.guild(e.guildId).botRoleId;
  const botPosition = () => e.discord.guild(e.guildId).roles.find((r) => r.id === bot)!.position;
  const staff = e.discord.createRole(e.guildId, { name: 'Admin Team', position: botPosition() }).id;
  moderator = e.discord.addMember(e.guildId, {
    username: 'mod',
    roleIds: [e.discord.createRole(e.guildId, { name: 'Moderator', permissions: MANAGE_ROLES | VIEW | SEND, position: botPosition() }).id],
  }).userId;
  // Hidden from @everyone, open to the admin team and to the bot.
  admins = e.discord.createChannel(e.guildId, {
    name: 'admins-only',
    overwrites: [
      { id: e.guildId, type: 'role', deny: VIEW },
      { id: staff, type: 'role', allow: VIEW | SEND },
      { id: bot, type: 'role', allow: VIEW | SEND | EMBED },
    ],
  }).id;
  open = e.discord.createChannel(e.guildId, { name: 'mod-log', overwrites: [{ id: bot, type: 'role', allow: VIEW | SEND | EMBED }] }).id;
}, 60_000);
afterAll(() => e?.stop());

const asModerator = (options: Array<Record<string, unknown>>) =>
  runCommand(e, { userId: moderator, name: 'settings', options, memberPermissions: EVERYONE | MANAGE_ROLES }).reply();
const channels = () => e.tierlink.services.repos.guilds.channels(e.guildId);

test('a moderator cannot point Tierlink at a channel he cannot see; one he can see is fine', async () => {
  for (const option of ['mod_log_channel', 'announce_patrons_channel', 'announce_posts_channel']) {
    const reply = await asModerator([channelOption(option, admins)]);
    expect(reply.content).toMatch(/^Nothing was changed:\n• The .+ cannot be used: you cannot see that channel\./);
    // Nothing about the channel itself is said back.
    expect(reply.content).not.toContain('admins-only');
  }
  expect(await channels()).toMatchObject({ modLogChannelId: null, announcePatronsChannelId: null, announcePostsChannelId: null });

  const fine = await asModerator([channelOption('mod_log_channel', open)]);
  expect(fine.content).toMatch(/^\*\*Settings saved\*\*/);
  expect((await channels()).modLogChannelId).toBe(open);
});

test('the owner, who sees every channel, may choose it', async () => {
  const reply = await runCommand(e, {
    userId: e.ownerId,
    name: 'settings',
    options: [channelOption('mod_log_channel', admins)],
    memberPermissions: MANAGE_ROLES,
  }).reply();
  expect(reply.content).toMatch(/^\*\*Settings saved\*\*/);
  expect((await channels()).modLogChannelId).toBe(admins);
});
