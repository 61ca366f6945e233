import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/edges/outbound/store/database';
import { type E2E, startE2E } from '../support/e2e';
import { MANAGE_ROLES, activePatron, runCommand, webhookWithoutPosts } from '../support/e2e-admin';
import { WEBHOOK_TRIGGERS } from '../../src/app/webhooks/registration';

/**
 * The channels Tierlink posts in, end to end through the stand-ins: setting them with /settings
 * (authority and the bot's permissions in the channel), the new-posts announcement from the
 * webhook and the poll, the welcome of a new patron, and the mod-log of a sync within the channel's
 * rate limit.
 */

const VIEW = 1n << 10n;
const SEND = 1n << 11n;
const EMBED = 1n << 14n;

let e: E2E;
let botRoleId: string;
let modLog: string;
let patrons: string;
let posts: string;
let readOnly: string;

const channelOption = (name: string, channelId: string) => ({ name, type: 7, value: channelId });
const settings = (options: Array<Record<string, unknown>>, userId = e.ownerId, memberPermissions: bigint | null = MANAGE_ROLES) =>
  runCommand(e, { userId, name: 'settings', options, memberPermissions }).reply();
const channelFor = (name: string, allow: bigint) =>
  e.discord.createChannel(e.guildId, { name, overwrites: [{ id: botRoleId, type: 'role', allow }] }).id;

beforeAll(async () => {
  e = await startE2E({ connected: true });
  botRoleId = e.discord.guild(e.guildId).botRoleId;
  modLog = channelFor('mod-log', VIEW | SEND | EMBED);
  patrons = channelFor('new-patrons', VIEW | SEND);
  posts = channelFor('new-posts', VIEW | SEND | EMBED);
  readOnly = channelFor('read-only', VIEW);
}, 60_000);
afterAll(() => e?.stop());

test('a member without Manage Roles at server level cannot set the channels, whatever the channel-level bits say', async () => {
  const mod = e.discord.addMember(e.guildId, { username: 'mod' }).userId;
  // The channel-level bits claim Manage Roles; the command reads the member's roles and refuses.
  const reply = await settings([channelOption('mod_log_channel', modLog)], mod, MANAGE_ROLES);
  expect(reply.content).toContain('You need the **Manage Roles** permission to use /settings');
  // The settings service checks again (the dashboard and any other caller go through it).
  const outcome = await e.tierlink.services.admin.settings.apply({ guildId: e.guildId, userId: mod }, {}, { modLog });
  expect(outcome).toEqual({
    kind: 'not_allowed',
    problems: [expect.stringContaining('You need the Manage Roles permission in this server to choose the channels Tierlink posts in')],
    // The refusal's words for another language: its English, and the facts another language says it from.
    said: [
      {
        text: expect.stringContaining('You need the Manage Roles permission in this server to choose the channels'),
        facts: { code: 'channels_need_manage_roles' },
      },
    ],
  });
  expect((await e.tierlink.services.repos.guilds.channels(e.guildId)).modLogChannelId).toBeNull();
});

test('a channel the bot cannot post in is refused, saying what to allow', async () => {
  const reply = await settings([channelOption('announce_posts_channel', readOnly)]);
  expect(reply.content).toContain('Nothing was changed');
  expect(reply.content).toContain('Tierlink cannot post in #read-only: it lacks Send Messages, Embed Links there.');
  expect(reply.content).toContain('allow Send Messages, Embed Links for the Tierlink role');
  // The welcome needs no embeds: Send Messages is the one missing there.
  const welcome = await settings([channelOption('announce_patrons_channel', readOnly)]);
  expect(welcome.content).toContain('it lacks Send Messages there.');
  expect(await e.tierlink.services.repos.guilds.channels(e.guildId)).toMatchObject({
    announcePostsChannelId: null,
    announcePatronsChannelId: null,
  });
});

test('the owner sets the three channels; /settings shows them and where new posts come from', async () => {
  const reply = await settings([
    channelOption('mod_log_channel', modLog),
    channelOption('announce_patrons_channel', patrons),
    channelOption('announce_posts_channel', posts),
  ]);
  expect(reply.content).toContain('Settings saved');
  expect(reply.content).toContain(`<#${modLog}>`);
  expect(reply.content).toContain(`<#${patrons}>`);
  expect(reply.content).toContain(`<#${posts}>`);
  expect(reply.content).toContain('New posts: new posts arrive with the campaign’s webhook.');
  // The same note in the member's language, said from where the posts come from.
  const german = await runCommand(e, {
    userId: e.ownerId,
    name: 'settings',
    options: [channelOption('announce_posts_channel', posts)],
    memberPermissions: MANAGE_ROLES,
    locale: 'de',
  }).reply();
  expect(german.content).toContain('• Neue Beiträge: Sie kommen mit dem Webhook der Kampagne.');
  expect(german.content).not.toContain('New posts');
  const webhook = e.patreon.webhooks()[0]!;
  expect(webhook.triggers).toEqual(expect.arrayContaining([...WEBHOOK_TRIGGERS]));
});

test('a posts:publish delivery posts one message; a replay of it and the poll post nothing more', async () => {
  const { id: postId } = e.patreon.publishPost(e.patreon.campaignId, { title: 'Chapter 12', tierIds: [e.tiers.gold, e.tiers.silver] });
  const message = await e.discord.waitForMessage(posts, { timeoutMs: 15_000 });
  const embed = message.embeds[0] as { title: string; url: string; fields: Array<{ name: string; value: string }> };
  expect(embed.title).toBe('Chapter 12');
  expect(embed.url).toBe(`${e.patreon.url}/posts/${postId}`);
  expect(embed.fields).toEqual([{ name: 'Who can see it', value: 'Gold, Silver' }]);
  expect(message.allowedMentions).toEqual({ parse: [] });

  const reads = () => e.patreon.requests().filter((r) => r.path === `/api/oauth2/v2/posts/${postId}`).length;
  const stored = async () =>
    (
      await queryRows<{ n: number }>(e.db.database.db, sql`select count(*)::int as n from webhook_inbox where trigger = 'posts:publish'`)
    )[0]!.n;
  expect(reads()).toBe(1);
  expect(await stored()).toBe(1);

  // The same delivery again, byte for byte: a replay, acknowledged and dropped (no row stored, no read).
  const delivered = e.patreon.deliveries().find((d) => d.trigger === 'posts:publish')!;
  const replay = await e.patreon.redeliver(delivered.id);
  expect(replay).toMatchObject({ ok: true, status: 200 });
  expect(await stored()).toBe(1);
  await e.tierlink.services.channels.round();
  expect(reads()).toBe(1);
  // The webhook stops carrying posts (a hand change on the service): the poll takes over and sees the post again.
  await webhookWithoutPosts(e);
  expect((await e.tierlink.services.channels.announcements.postSource(e.patreon.campaignId)).kind).toBe('poll');
  e.patreon.publishPost(e.patreon.campaignId, { title: 'Chapter 13', isPublic: true });
  const polled = await e.discord.waitForMessage(posts, {
    where: (m) => (m.embeds[0] as { title?: string } | undefined)?.title === 'Chapter 13',
    timeoutMs: 15_000,
  });
  expect((polled.embeds[0] as { fields: Array<{ value: string }> }).fields[0]!.value).toBe('Everyone (public post)');
  await e.tierlink.services.channels.round();
  const titles = e.discord.messages(posts).map((m) => (m.embeds[0] as { title: string }).title);
  expect(titles).toEqual(['Chapter 12', 'Chapter 13']);
  const rows = await e.tierlink.services.repos.channelOutbox.announcementsOf(e.guildId);
  expect(rows.filter((r) => r.kind === 'post').map((r) => r.subject)).toEqual([`post:${postId}`, expect.stringMatching(/^post:/)]);
}, 60_000);

test('a new pledge posts one welcome, naming nobody when the patron has not linked (never their Patreon name)', async () => {
  const user = e.patreon.createUser({ fullName: 'Nia *New*' });
  e.patreon.setMembership(
    user.id,
    e.patreon.campaignId,
    { patronStatus: 'active_patron', tierIds: [e.tiers.silver], lastChargeDate: e.clock.now(), lastChargeStatus: 'Paid' },
    { trigger: ['members:create', 'members:pledge:create'] },
  );
  const welcome = await e.discord.waitForMessage(patrons, { timeoutMs: 15_000 });
  expect(welcome.content).toBe('🎉 Welcome to our newest patron (Silver)! Thank you for your support.');
  expect(welcome.mentions).toEqual({ users: [], roles: [], everyone: false });
  // Another delivery for the same pledge, and another round: still one welcome.
  e.patreon.setMembership(user.id, e.patreon.campaignId, { note: 'hello' }, { trigger: 'members:update' });
  await e.patreon.flushDeliveries();
  await e.tierlink.services.channels.round();
  await e.tierlink.services.channels.round();
  expect(e.discord.messages(patrons)).toHaveLength(1);
}, 60_000);

test('the mod-log posts a sync’s changes in batches, within the channel’s limit, pinging no one', async () => {
  // One message per 5 s in the channel: every batch after the first waits for the window.
  e.discord.setRateLimit({ route: 'channel-messages', limit: 1, windowMs: 5_000 });
  const before = e.discord.messages(modLog).length;
  const members: string[] = [];
  for (const name of ['ola', 'pia', 'quin']) {
    const userId = e.discord.addMember(e.guildId, { username: name }).userId;
    const patron = activePatron(e, name, [e.tiers.bronze]);
    // Linked without a role change of their own: the patrons start as former patrons.
    e.patreon.setMembership(patron.id, e.patreon.campaignId, { patronStatus: 'former_patron', tierIds: [] }, { deliver: false });
    await e.link(userId, patron.id);
    e.patreon.setMembership(
      patron.id,
      e.patreon.campaignId,
      { patronStatus: 'active_patron', tierIds: [e.tiers.bronze] },
      { deliver: false },
    );
    members.push(userId);
  }
  const sync = await runCommand(e, { userId: e.ownerId, name: 'sync', options: [], memberPermissions: MANAGE_ROLES }).until(
    /Synced|sync/i,
    20_000,
  );
  expect(sync.content).not.toContain('failed');
  const first = await e.discord.waitForMessage(modLog, {
    where: (m) => members.every((id) => String((m.embeds[0] as { description?: string }).description).includes(`<@${id}>`)),
    timeoutMs: 20_000,
  });
  const description = (first.embeds[0] as { description: string }).description;
  for (const id of members) expect(description).toContain(`<@${id}> · sync: +<@&${e.roles.bronze}>`);
  expect(first.mentions).toEqual({ users: [], roles: [], everyone: false });
  expect(first.allowedMentions).toEqual({ parse: [] });

  // A later change is a second batch: it waits for the channel's window, then comes.
  e.patreon.setMembership((await e.tierlink.services.repos.links.byDiscordUser(members[0]!, 'patreon'))!.externalId, e.patreon.campaignId, {
    patronStatus: 'former_patron',
    tierIds: [],
  });
  await e.discord.waitForMemberRole(e.guildId, members[0]!, e.roles.bronze, { present: false });
  e.clock.advance(5_000);
  const second = await e.discord.waitForMessage(modLog, {
    where: (m) =>
      String((m.embeds[0] as { description?: string }).description).includes(`<@${members[0]}> · webhook: −<@&${e.roles.bronze}>`),
    timeoutMs: 20_000,
  });
  expect(second.id).not.toBe(first.id);
  expect(e.discord.messages(modLog).length).toBeGreaterThan(before + 1);
  expect(e.discord.rateLimitHits()).toEqual([]);
}, 90_000);
