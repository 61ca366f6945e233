import { Events, GatewayIntentBits } from 'discord.js';
import type { Client, Message, TextChannel } from 'discord.js';
import { Permission, createDiscordSandbox } from '@tierlink/sandbox/discord';
import type { DiscordSandbox } from '@tierlink/sandbox/discord';
import { readyClient } from './clients';
import { call, codeOf } from './http';

/** What a mod-log needs in its channel. */
const POSTING = Permission.ViewChannel | Permission.SendMessages | Permission.EmbedLinks | Permission.ManageRoles;

describe('messages through the real discord.js client', () => {
  let sandbox: DiscordSandbox;
  let client: Client;
  let guildId: string;
  let modLogId: string;

  beforeAll(async () => {
    sandbox = await createDiscordSandbox();
    ({ guildId } = sandbox.createGuild({ name: 'Creators', botPermissions: POSTING }));
    modLogId = sandbox.createChannel(guildId, { name: 'mod-log' }).id;
    client = await readyClient(sandbox, [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages]);
  });

  afterAll(async () => {
    await client.destroy();
    await sandbox.close();
  });

  it('sees the guild channels in GUILD_CREATE and records what the bot posts, with MESSAGE_CREATE', async () => {
    const channel = client.channels.cache.get(modLogId) as TextChannel | undefined;
    expect(channel?.name).toBe('mod-log');
    const created = new Promise<Message>((resolve) => client.once(Events.MessageCreate, resolve));
    const sent = await channel?.send({
      content: 'Gold granted',
      embeds: [{ title: 'Role change', fields: [{ name: 'Member', value: 'alice' }] }],
      allowedMentions: { parse: [] },
    });
    expect((await created).id).toBe(sent?.id);
    const [posted] = sandbox.messages(modLogId);
    expect(posted).toMatchObject({
      id: sent?.id,
      content: 'Gold granted',
      embeds: [{ title: 'Role change', type: 'rich' }],
      allowedMentions: { parse: [] },
      mentions: { users: [], roles: [], everyone: false },
    });
  });

  it("paces itself on the channel's bucket headers: no 429 while sending past the limit", async () => {
    sandbox.setRateLimit({ route: 'channel-messages', limit: 5, windowMs: 400, raised: 'a window of 400 ms keeps the test short' });
    const channel = client.channels.cache.get(modLogId) as TextChannel;
    for (let i = 0; i < 7; i += 1) await channel.send({ content: `line ${i}`, allowedMentions: { parse: [] } });
    const waited = await sandbox.waitForMessage(modLogId, { where: (m) => m.content === 'line 6' });
    expect(waited.content).toBe('line 6');
    expect(sandbox.rateLimitHits()).toEqual([]);
  });
});

describe('POST /channels/{id}/messages', () => {
  let sandbox: DiscordSandbox;
  let guildId: string;
  let channelId: string;
  let botRoleId: string;

  const post = (body: unknown, channel = channelId) => call(sandbox, 'POST', `/channels/${channel}/messages`, { body });

  beforeEach(async () => {
    sandbox = await createDiscordSandbox();
    ({ guildId, botRoleId, channelId } = sandbox.createGuild({ botPermissions: POSTING }));
  });

  afterEach(async () => {
    await sandbox.close();
  });

  it('checks the channel and the bot: 10003, 50008, 50001 without View Channel, 50013 without Send Messages or Embed Links', async () => {
    expect(codeOf(await post({ content: 'x' }, '1234567890123456789'))).toBe(10003);
    const category = sandbox.createChannel(guildId, { name: 'Info', type: 4 }).id;
    expect(codeOf(await post({ content: 'x' }, category))).toBe(50008);
    const hidden = sandbox.createChannel(guildId, {
      name: 'staff',
      overwrites: [{ id: guildId, type: 'role', deny: Permission.ViewChannel }],
    });
    const noView = await post({ content: 'x' }, hidden.id);
    expect([noView.status, noView.body]).toEqual([403, { message: 'Missing Access', code: 50001 }]);
    // A role overwrite allowing the bot's role wins over @everyone's deny.
    sandbox.updateChannel(hidden.id, {
      overwrites: [
        { id: guildId, type: 'role', deny: Permission.ViewChannel },
        { id: botRoleId, type: 'role', allow: Permission.ViewChannel },
      ],
    });
    expect((await post({ content: 'x' }, hidden.id)).status).toBe(200);
    sandbox.updateChannel(hidden.id, { overwrites: [{ id: sandbox.botUserId, type: 'member', deny: Permission.SendMessages }] });
    const noSend = await post({ content: 'x' }, hidden.id);
    expect([noSend.status, noSend.body]).toEqual([403, { message: 'Missing Permissions', code: 50013 }]);

    sandbox.updateRole(guildId, botRoleId, { permissions: Permission.ViewChannel | Permission.SendMessages });
    expect(codeOf(await post({ embeds: [{ title: 'x' }] }))).toBe(50013);
    expect((await post({ content: 'plain text is fine' })).status).toBe(200);
    expect(sandbox.messages(hidden.id)).toHaveLength(1);
  });

  it('validates content, embeds and allowed_mentions with 50035, and an empty message with 50006', async () => {
    // Refused requests count against the channel's bucket too; this test sends a dozen.
    sandbox.setRateLimit({
      route: 'channel-messages',
      limit: 100,
      windowMs: 5_000,
      raised: 'these checks are about the body, not the pace',
    });
    const field = (n: number) => ({ name: 'n', value: 'v'.repeat(n) });
    const bad: Array<[unknown, string]> = [
      [{ content: 'x'.repeat(2001) }, 'BASE_TYPE_MAX_LENGTH'],
      [{ embeds: Array.from({ length: 11 }, () => ({ title: 'x' })) }, 'BASE_TYPE_MAX_LENGTH'],
      [{ embeds: [{ title: 't'.repeat(257) }] }, 'BASE_TYPE_MAX_LENGTH'],
      [{ embeds: [{ fields: [{ name: 'only a name' }] }] }, 'BASE_TYPE_REQUIRED'],
      [{ embeds: [{ description: 'd'.repeat(4096) }, { fields: [field(1024), field(1024)] }] }, 'MAX_EMBED_SIZE_EXCEEDED'],
      [
        { content: 'hi', allowed_mentions: { parse: ['users'], users: ['123456789012345678'] } },
        'MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE',
      ],
      [{ content: 'hi', allowed_mentions: { parse: ['channels'] } }, 'BASE_TYPE_CHOICES'],
      [{ content: 'hi', flags: 64 }, 'MESSAGE_FLAGS_INVALID'],
    ];
    for (const [body, code] of bad) {
      const answer = await post(body);
      expect([answer.status, codeOf(answer), JSON.stringify(answer.body).includes(code)]).toEqual([400, 50035, true]);
    }
    // Exactly at the limits is fine: 6000 characters over all embeds, trimmed.
    const atLimit = await post({
      embeds: [{ description: `  ${'d'.repeat(4096)}  ` }, { fields: [field(1024), { name: 'n', value: 'v'.repeat(878) }] }],
    });
    expect(atLimit.status).toBe(200);
    expect([codeOf(await post({})), codeOf(await post({ content: '' }))]).toEqual([50006, 50006]);
  });

  it("honours allowed_mentions and the bot's right to ping roles and everyone", async () => {
    const alice = sandbox.addMember(guildId, { username: 'alice' }).userId;
    const gold = sandbox.createRole(guildId, { name: 'Gold' }).id;
    const content = `<@${alice}> joined <@&${gold}>, tell @everyone`;
    const pinged = async (extra: Record<string, unknown>) => {
      const answer = await post({ content, ...extra });
      const body = answer.body as { id: string; mentions: Array<{ id: string }>; mention_roles: string[]; mention_everyone: boolean };
      const recorded = sandbox.messages(channelId).find((m) => m.id === body.id);
      expect(recorded?.mentions).toEqual({
        users: body.mentions.map((u) => u.id),
        roles: body.mention_roles,
        everyone: body.mention_everyone,
      });
      return recorded?.mentions;
    };
    // Default: parse everything, but the role is not mentionable and the bot lacks Mention Everyone.
    expect(await pinged({})).toEqual({ users: [alice], roles: [], everyone: false });
    expect(await pinged({ allowed_mentions: { parse: [] } })).toEqual({ users: [], roles: [], everyone: false });
    expect(await pinged({ allowed_mentions: { users: [alice] } })).toEqual({ users: [alice], roles: [], everyone: false });
    sandbox.updateRole(guildId, botRoleId, { permissions: POSTING | Permission.MentionEveryone });
    expect(await pinged({})).toEqual({ users: [alice], roles: [gold], everyone: true });
    expect(await pinged({ allowed_mentions: { parse: ['roles'] } })).toEqual({ users: [], roles: [gold], everyone: false });
    expect(sandbox.messages(channelId)[0]?.allowedMentions).toBeNull();
  });

  it('returns the first message again for a repeated nonce with enforce_nonce', async () => {
    const first = await post({ content: 'Welcome, new patron!', nonce: 'welcome-42', enforce_nonce: true });
    const again = await post({ content: 'Welcome, new patron!', nonce: 'welcome-42', enforce_nonce: true });
    expect((again.body as { id: string }).id).toBe((first.body as { id: string }).id);
    expect(sandbox.messages(channelId)).toHaveLength(1);
    expect(codeOf(await post({ content: 'x', nonce: 'n'.repeat(26) }))).toBe(50035);
  });

  it('limits each channel to 5 messages per 5 s by default, with the bucket headers and a counted 429', async () => {
    const other = sandbox.createChannel(guildId, { name: 'announcements', type: 5 }).id;
    const answers = [];
    for (let i = 0; i < 6; i += 1) answers.push(await post({ content: `m${i}` }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(answers[0]?.headers.get('x-ratelimit-limit')).toBe('5');
    expect(Number(answers[0]?.headers.get('x-ratelimit-reset-after'))).toBeGreaterThan(4);
    const limited = answers[5];
    expect(limited?.headers.get('x-ratelimit-scope')).toBe('user');
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited?.body).toMatchObject({ message: 'You are being rate limited.', global: false });
    expect((await post({ content: 'elsewhere' }, other)).status).toBe(200);
    expect(sandbox.rateLimitHits()).toEqual([{ route: 'POST /channels/:c/messages', scope: 'user', count: 1 }]);
  });

  it('keeps channels and posted messages in the HTTP control API', async () => {
    const base = `${sandbox.baseUrl}/__sandbox`;
    const created = await fetch(`${base}/guilds/${guildId}/channels`, {
      method: 'POST',
      body: JSON.stringify({ name: 'patrons', overwrites: [{ id: guildId, type: 'role', deny: String(Permission.SendMessages) }] }),
    });
    const channel = (await created.json()) as { id: string; overwrites: unknown[] };
    expect(channel.overwrites).toEqual([{ id: guildId, type: 'role', allow: '0', deny: String(Permission.SendMessages) }]);
    expect(codeOf(await post({ content: 'x' }, channel.id))).toBe(50013);
    await fetch(`${base}/channels/${channel.id}`, { method: 'PATCH', body: JSON.stringify({ overwrites: [] }) });
    expect((await post({ content: 'New patron: alice' }, channel.id)).status).toBe(200);
    const listed = (await (await fetch(`${base}/channels/${channel.id}/messages`)).json()) as Array<{ content: string }>;
    expect(listed.map((m) => m.content)).toEqual(['New patron: alice']);
    const channels = await call(sandbox, 'GET', `/guilds/${guildId}/channels`);
    expect((channels.body as Array<{ name: string }>).map((c) => c.name)).toEqual(['general', 'patrons']);
  });
});

describe('direct messages: POST /users/@me/channels, then POST /channels/{id}/messages', () => {
  let sandbox: DiscordSandbox;
  let guildId: string;

  beforeEach(async () => {
    sandbox = await createDiscordSandbox();
    ({ guildId } = sandbox.createGuild({ botPermissions: POSTING }));
  });

  afterEach(async () => {
    await sandbox.close();
  });

  const open = (recipientId: unknown) => call(sandbox, 'POST', '/users/@me/channels', { body: { recipient_id: recipientId } });

  it('opens one DM channel per user and keeps what the bot sends there', async () => {
    const { userId } = sandbox.addMember(guildId, { username: 'pat' });
    const first = await open(userId);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ type: 1, recipients: [{ id: userId }] });
    const channelId = (first.body as { id: string }).id;
    expect(((await open(userId)).body as { id: string }).id).toBe(channelId);
    const sent = await call(sandbox, 'POST', `/channels/${channelId}/messages`, {
      body: { content: 'hello', allowed_mentions: { parse: [] } },
    });
    expect(sent.status).toBe(200);
    expect(sandbox.directMessages(userId).map((m) => m.content)).toEqual(['hello']);
    expect(codeOf(await call(sandbox, 'POST', `/channels/${channelId}/messages`, { body: {} }))).toBe(50006);
  });

  it('answers 403 50007 to a user whose DMs are closed (the channel still opens), and 50033 to an unknown user', async () => {
    const { userId } = sandbox.addMember(guildId, { username: 'closed' });
    sandbox.setDirectMessagesClosed(userId, true);
    const channelId = ((await open(userId)).body as { id: string }).id;
    const refused = await call(sandbox, 'POST', `/channels/${channelId}/messages`, { body: { content: 'hello' } });
    expect([refused.status, refused.body]).toEqual([403, { message: 'Cannot send messages to this user', code: 50007 }]);
    expect(sandbox.directMessages(userId)).toEqual([]);
    expect(codeOf(await open('1234567890123456789'))).toBe(50033);
    expect(codeOf(await open(undefined))).toBe(50035);
  });
});
