import { type E2E, startE2E } from '../support/e2e';
import { MANAGE_ROLES, runCommand, settingsChannel } from '../support/e2e-admin';

/**
 * Welcomes that respect privacy, end to end through both stand-ins: a welcome names only a member
 * who is linked and in the server, by their Discord mention (pinging no one) or their name in the
 * server as the server chose; never a Patreon name; never a patron who keeps their pledges private
 * on Patreon (`hide_pledges`) or who turned announcements off with `/privacy`.
 */

const VIEW = 1n << 10n;
const SEND = 1n << 11n;

let e: E2E;
let channel: string;

beforeAll(async () => {
  e = await startE2E({ connected: true });
  const chosen = await settingsChannel(e, 'announce_patrons_channel', 'new-patrons', VIEW | SEND);
  channel = chosen.channelId;
  expect(chosen.reply.content).not.toContain('Nothing was changed');
}, 60_000);
afterAll(() => e?.stop());

/** A Patreon user linked to a new member of the server, who then pledges; the welcome posted for them. */
async function pledge(o: {
  fullName: string;
  username: string;
  hidePledges?: boolean;
  linked?: boolean;
  inServer?: boolean;
  before?: (userId: string) => Promise<void>;
}) {
  // Past the channel's window (Discord's 5 messages per 5 s): each welcome posts at once.
  e.clock.advance(10_000);
  const patron = e.patreon.createUser({ fullName: o.fullName, hidePledges: o.hidePledges ?? false });
  const userId = e.discord.addMember(e.guildId, { username: o.username }).userId;
  if (o.linked !== false) await e.link(userId, patron.id);
  if (o.inServer === false) e.discord.removeMember(e.guildId, userId);
  await o.before?.(userId);
  const before = e.discord.messages(channel).length;
  e.patreon.setMembership(
    patron.id,
    e.patreon.campaignId,
    { patronStatus: 'active_patron', tierIds: [e.tiers.silver], lastChargeDate: e.clock.now(), lastChargeStatus: 'Paid' },
    { trigger: ['members:create', 'members:pledge:create'] },
  );
  await e.patreon.flushDeliveries();
  for (let i = 0; i < 300 && e.discord.messages(channel).length === before; i++) {
    await e.tierlink.services.channels.round();
    await new Promise((r) => setTimeout(r, 50));
  }
  const posted = e.discord.messages(channel).slice(before);
  expect(posted).toHaveLength(1);
  return { userId, message: posted[0]! };
}

const NAMELESS = '🎉 Welcome to our newest patron (Silver)! Thank you for your support.';

test('a linked patron in the server is welcomed by their mention, which pings no one', async () => {
  const { userId, message } = await pledge({ fullName: 'Rosa Real-Name', username: 'rosa' });
  expect(message.content).toBe(`🎉 Welcome <@${userId}>, our newest patron (Silver)! Thank you for your support.`);
  expect(message.mentions).toEqual({ users: [], roles: [], everyone: false });
  expect(message.content).not.toContain('Rosa');
}, 60_000);

test('a patron who has not linked is welcomed without a name: their Patreon name is never posted', async () => {
  const { message } = await pledge({ fullName: 'Una Linked-Not', username: 'una', linked: false });
  expect(message.content).toBe(NAMELESS);
}, 60_000);

test('a patron who keeps their pledges private on Patreon (hide_pledges) is never named', async () => {
  const { message, userId } = await pledge({ fullName: 'Hana Hidden', username: 'hana', hidePledges: true });
  expect(message.content).toBe(NAMELESS);
  expect(message.content).not.toContain(userId);
}, 60_000);

test('a patron who turned announcements off with /privacy is never named', async () => {
  const { message, userId } = await pledge({
    fullName: 'Otto Optout',
    username: 'otto',
    before: async (user) => {
      const reply = await runCommand(e, {
        userId: user,
        name: 'privacy',
        options: [{ name: 'announcements', type: 5, value: false }],
      }).reply();
      expect(reply.content).toContain('Announcements: **off**');
    },
  });
  expect(message.content).toBe(NAMELESS);
  expect(message.content).not.toContain(userId);
  // /privacy alone shows the choice, for themselves only.
  const shown = await runCommand(e, { userId, name: 'privacy' }).reply();
  expect(shown.content).toContain('Announcements: **off**');
  expect(shown.content).toContain('Direct messages: **on**');
}, 60_000);

test('a linked patron who is not in the server is not named', async () => {
  const { message } = await pledge({ fullName: 'Ike Away', username: 'ike', inServer: false });
  expect(message.content).toBe(NAMELESS);
}, 60_000);

test('a server that welcomes by display name names the member by their name in the server, never the Patreon one', async () => {
  await e.tierlink.services.repos.guilds.setWelcomeNames(e.guildId, 'display_name');
  const { message } = await pledge({ fullName: 'Dora Patreonname', username: 'dora_discord' });
  expect(message.content).toBe('🎉 Welcome **dora\\_discord**, our newest patron (Silver)! Thank you for your support.');
  await e.tierlink.services.repos.guilds.setWelcomeNames(e.guildId, 'none');
  const none = await pledge({ fullName: 'Nell None', username: 'nell' });
  expect(none.message.content).toBe(NAMELESS);
}, 60_000);

test('/settings welcome_names sets the policy (Manage Server only) and /settings shows it', async () => {
  const welcomeNames = (userId: string, value: string, memberPermissions: bigint | null = MANAGE_ROLES) =>
    runCommand(e, { userId, name: 'settings', options: [{ name: 'welcome_names', type: 3, value }], memberPermissions }).reply();
  const mods = e.discord.createRole(e.guildId, { name: 'Mods', permissions: MANAGE_ROLES }).id;
  const mod = e.discord.addMember(e.guildId, { username: 'mod', roleIds: [mods] }).userId;
  const refused = await welcomeNames(mod, 'display_name', null);
  expect(refused.content).toContain('Changing how welcomes name new patrons needs the Manage Server permission');
  expect(await e.tierlink.services.repos.guilds.welcomeNames(e.guildId)).toBe('none');

  const saved = await welcomeNames(e.ownerId, 'display_name');
  expect(saved.content).toContain('**Settings saved**');
  expect(saved.content).toContain('• **How welcomes name new patrons**: their name in this server');
  expect(await e.tierlink.services.repos.guilds.welcomeNames(e.guildId)).toBe('display_name');
  const { message } = await pledge({ fullName: 'Vera Patreonname', username: 'vera_here' });
  expect(message.content).toBe('🎉 Welcome **vera\\_here**, our newest patron (Silver)! Thank you for your support.');

  // Back to the default, in German: the reply follows the member's language.
  const german = await runCommand(e, {
    userId: e.ownerId,
    name: 'settings',
    options: [{ name: 'welcome_names', type: 3, value: 'mention' }],
    memberPermissions: MANAGE_ROLES,
    locale: 'de',
  }).reply();
  expect(german.content).toContain('• **Wie Willkommensgrüße neue Mitglieder nennen**: ihre Discord-Erwähnung, die niemanden anpingt');
  expect(await e.tierlink.services.repos.guilds.welcomeNames(e.guildId)).toBe('mention');
}, 60_000);
