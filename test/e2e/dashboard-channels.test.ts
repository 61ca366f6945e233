import { type DashboardBrowser, signIn } from '../support/dashboard-client';
import { type E2E, pageText, startE2E } from '../support/e2e';

/**
 * The Channels panel of the Tiers and roles page: the same settings service as `/settings`, so a
 * channel the bot cannot post in is refused with the fix, and a manager without Manage Roles
 * cannot change the channels.
 */

const VIEW = 1n << 10n;
const SEND = 1n << 11n;
const EMBED = 1n << 14n;
const MANAGE_GUILD = 1n << 5n;

let e: E2E;
let owner: DashboardBrowser;
let modLog: string;
let quiet: string;

beforeAll(async () => {
  e = await startE2E({ connected: true });
  const botRoleId = e.discord.guild(e.guildId).botRoleId;
  modLog = e.discord.createChannel(e.guildId, {
    name: 'mod-log',
    overwrites: [{ id: botRoleId, type: 'role', allow: VIEW | SEND | EMBED }],
  }).id;
  quiet = e.discord.createChannel(e.guildId, { name: 'quiet', overwrites: [{ id: botRoleId, type: 'role', allow: VIEW | SEND }] }).id;
  e.discord.createChannel(e.guildId, { name: 'Voice', type: 2 });
  ({ browser: owner } = await signIn(e, e.ownerId));
}, 60_000);
afterAll(() => e?.stop());

const path = (p = '') => `/dashboard/${e.guildId}${p}`;
const fields = (modLogChannel: string) => ({ mod_log_channel: modLogChannel, announce_patrons_channel: '', announce_posts_channel: '' });

test('the page offers the server’s text channels; a channel without Embed Links is refused with what to allow', async () => {
  const page = await owner.get(path('/tiers'));
  expect(page.html).toContain(`<option value="${modLog}">#mod-log</option>`);
  expect(page.html).not.toContain('#Voice');
  const refused = await owner.post(path('/channels'), fields(quiet), { csrfFrom: page.html });
  expect([refused.status, refused.location]).toEqual([303, path('/tiers')]);
  const text = pageText((await owner.follow(refused)).html);
  expect(text).toContain('Nothing was changed');
  expect(text).toContain('Tierlink cannot post in #quiet: it lacks Embed Links there.');
  expect((await e.tierlink.services.repos.guilds.channels(e.guildId)).modLogChannelId).toBeNull();
});

test('the owner sets the mod-log channel on the page, and turns it off again', async () => {
  const page = await owner.get(path('/tiers'));
  const saved = pageText((await owner.follow(await owner.post(path('/channels'), fields(modLog), { csrfFrom: page.html }))).html);
  expect(saved).toContain('Settings saved.');
  expect((await e.tierlink.services.repos.guilds.channels(e.guildId)).modLogChannelId).toBe(modLog);
  const again = await owner.get(path('/tiers'));
  expect(again.html).toContain(`<option value="${modLog}" selected>#mod-log</option>`);
  await owner.follow(await owner.post(path('/channels'), fields(''), { csrfFrom: again.html }));
  expect((await e.tierlink.services.repos.guilds.channels(e.guildId)).modLogChannelId).toBeNull();
});

test('a manager with Manage Server but not Manage Roles sees the channels and cannot change them', async () => {
  const managers = e.discord.createRole(e.guildId, { name: 'Managers', permissions: MANAGE_GUILD }).id;
  const mod = e.discord.addMember(e.guildId, { username: 'manager', roleIds: [managers] }).userId;
  const { browser } = await signIn(e, mod);
  const page = await browser.get(path('/tiers'));
  expect(page.status).toBe(200);
  expect(page.html).toMatch(/<select id="mod_log_channel" name="mod_log_channel"[^>]* disabled>/);
  const refused = pageText((await browser.follow(await browser.post(path('/channels'), fields(modLog), { csrfFrom: page.html }))).html);
  expect(refused).toContain('Changes need the Manage Roles permission in this server');
  expect((await e.tierlink.services.repos.guilds.channels(e.guildId)).modLogChannelId).toBeNull();
});
