import { REST } from '@discordjs/rest';
import { Routes } from 'discord.js';
import { createManualClock } from '@tierlink/sandbox';
import { DISCORD_RATE_LIMITS, createDiscordSandbox } from '@tierlink/sandbox/discord';
import type { DiscordSandbox } from '@tierlink/sandbox/discord';
import { call } from './http';

describe('Discord rate limits in the stand-in', () => {
  const rateClock = createManualClock(new Date('2026-11-01T12:00:00Z'));
  let sandbox: DiscordSandbox;
  let guildId: string;
  let goldId: string;
  let members: string[];

  beforeEach(async () => {
    sandbox = await createDiscordSandbox({ rateLimits: DISCORD_RATE_LIMITS, rateLimitClock: rateClock });
    ({ guildId } = sandbox.createGuild());
    goldId = sandbox.createRole(guildId, { name: 'Gold' }).id;
    members = Array.from({ length: 12 }, (_, i) => sandbox.addMember(guildId, { username: `m${i}` }).userId);
  });

  afterEach(async () => {
    await sandbox.close();
  });

  const grant = (userId: string, guild = guildId, role = goldId) =>
    call(sandbox, 'PUT', `/guilds/${guild}/members/${userId}/roles/${role}`);

  it('limits member-role writes to 10 per fixed window per guild, with the bucket headers', async () => {
    const answers = [];
    for (const userId of members.slice(0, 11)) answers.push(await grant(userId));
    expect(answers.map((a) => a.status)).toEqual([...Array<number>(10).fill(204), 429]);
    expect(answers.map((a) => a.headers.get('x-ratelimit-remaining'))).toEqual(['9', '8', '7', '6', '5', '4', '3', '2', '1', '0', '0']);
    const first = answers[0]?.headers;
    expect(first?.get('x-ratelimit-limit')).toBe('10');
    expect(first?.get('x-ratelimit-reset-after')).toBe('10.000');
    expect(first?.get('x-ratelimit-reset')).toBe(((rateClock.now().getTime() + 10_000) / 1000).toFixed(3));
    const bucket = first?.get('x-ratelimit-bucket');
    expect(bucket).toMatch(/^[0-9a-f]{32}$/);

    const limited = answers[10];
    expect(limited?.headers.get('retry-after')).toBe('10');
    expect(limited?.headers.get('x-ratelimit-scope')).toBe('user');
    expect(limited?.headers.get('x-ratelimit-global')).toBeNull();
    expect(limited?.body).toEqual({ message: 'You are being rate limited.', retry_after: 10, global: false });

    // DELETE shares the bucket; another guild has its own.
    const removal = await call(sandbox, 'DELETE', `/guilds/${guildId}/members/${members[0] ?? ''}/roles/${goldId}`);
    expect([removal.status, removal.headers.get('x-ratelimit-bucket')]).toEqual([429, bucket]);
    const other = sandbox.createGuild().guildId;
    const otherRole = sandbox.createRole(other, { name: 'Gold' }).id;
    const elsewhere = sandbox.addMember(other).userId;
    expect((await grant(elsewhere, other, otherRole)).status).toBe(204);

    // A fixed window: nothing frees up until it closes, then all ten at once.
    rateClock.advance(9_999);
    expect((await grant(members[11] ?? '')).status).toBe(429);
    rateClock.advance(1);
    expect((await grant(members[11] ?? '')).headers.get('x-ratelimit-remaining')).toBe('9');
    expect(sandbox.rateLimitHits()).toEqual([
      { route: 'PUT /guilds/:g/members/:u/roles/:r', scope: 'user', count: 2 },
      { route: 'DELETE /guilds/:g/members/:u/roles/:r', scope: 'user', count: 1 },
    ]);
  });

  it('shares the global 50 requests per second among every client of the bot token, and not with user tokens', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 30; i += 1) statuses.push((await call(sandbox, 'GET', `/guilds/${guildId}`)).status);
    // A second process with the same token draws on the same window.
    for (let i = 0; i < 25; i += 1) statuses.push((await call(sandbox, 'GET', '/users/@me')).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(50);
    expect(statuses.slice(50)).toEqual([429, 429, 429, 429, 429]);

    const global = await call(sandbox, 'GET', `/guilds/${guildId}/roles`);
    expect(global.headers.get('x-ratelimit-global')).toBe('true');
    expect(global.headers.get('x-ratelimit-scope')).toBe('global');
    expect(global.headers.get('retry-after')).toBe('1');
    expect(global.headers.get('x-ratelimit-bucket')).toBeNull();
    expect(global.body).toEqual({ message: 'You are being rate limited.', retry_after: 1, global: true });

    // A user's token is another individual with its own window.
    const user = sandbox.createUser().id;
    const { accessToken } = sandbox.issueUserTokens(user, ['identify']);
    expect((await call(sandbox, 'GET', '/users/@me', { auth: `Bearer ${accessToken}` })).status).toBe(200);
    expect(sandbox.rateLimitHits()).toEqual([
      { route: 'GET /users/@me', scope: 'global', count: 5 },
      { route: 'GET /guilds/:g/roles', scope: 'global', count: 1 },
    ]);
    rateClock.advance(1_000);
    expect((await call(sandbox, 'GET', `/guilds/${guildId}`)).status).toBe(200);
  });
});

describe('@discordjs/rest against the member-role bucket', () => {
  it('paces itself by the headers: every grant lands, no 429', async () => {
    const sandbox = await createDiscordSandbox();
    try {
      sandbox.setRateLimit({ route: 'member-role', limit: 10, windowMs: 250, raised: 'a window of 250 ms keeps the test short' });
      const { guildId } = sandbox.createGuild();
      const gold = sandbox.createRole(guildId, { name: 'Gold' }).id;
      const rest = new REST({ api: sandbox.apiBaseUrl }).setToken(sandbox.botToken);
      const users = Array.from({ length: 25 }, () => sandbox.addMember(guildId).userId);
      await Promise.all(users.map((u) => rest.put(Routes.guildMemberRole(guildId, u, gold))));
      expect(users.every((u) => sandbox.memberRoles(guildId, u).includes(gold))).toBe(true);
      expect(sandbox.rateLimitHits()).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });
});

describe("the stand-in's limits are Discord's unless a raise says why", () => {
  it('starts with the member-role bucket at 10 per 10 s, and refuses a raise without a reason', async () => {
    const sandbox = await createDiscordSandbox();
    try {
      const { guildId } = sandbox.createGuild();
      const gold = sandbox.createRole(guildId, { name: 'Gold' }).id;
      const users = Array.from({ length: 11 }, () => sandbox.addMember(guildId).userId);
      const statuses = [];
      for (const u of users) statuses.push((await call(sandbox, 'PUT', `/guilds/${guildId}/members/${u}/roles/${gold}`)).status);
      expect(statuses).toEqual([...Array<number>(10).fill(204), 429]);
      expect(() => sandbox.setRateLimit({ route: 'member-role', limit: 100, windowMs: 10_000 })).toThrow('say why');
      expect(() => sandbox.setRateLimit({ route: 'global', limit: 51, windowMs: 1_000 })).toThrow('say why');
      // At or below Discord's own limits no reason is needed.
      sandbox.setRateLimit({ route: 'member-role', limit: 5, windowMs: 10_000 });
    } finally {
      await sandbox.close();
    }
    await expect(createDiscordSandbox({ rateLimits: { global: { limit: 1_000, windowMs: 1_000 } } })).rejects.toThrow('say why');
  });
});
