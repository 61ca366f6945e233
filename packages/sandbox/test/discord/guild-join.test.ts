import { Events, GatewayIntentBits } from 'discord.js';
import type { Client, GuildMember } from 'discord.js';
import { Permission, createDiscordSandbox } from '@tierlink/sandbox/discord';
import type { DiscordSandbox } from '@tierlink/sandbox/discord';
import { readyClient } from './clients';
import { call, codeOf } from './http';

/** What a join page's bot needs: Create Instant Invite, and Manage Roles to hand out roles. */
const JOIN_PERMISSIONS = Permission.CreateInstantInvite | Permission.ManageRoles;

describe('Add Guild Member through the real discord.js client', () => {
  let sandbox: DiscordSandbox;
  let client: Client;
  let guildId: string;
  let goldId: string;

  beforeAll(async () => {
    sandbox = await createDiscordSandbox();
    ({ guildId } = sandbox.createGuild({ name: 'Creators', botPermissions: JOIN_PERMISSIONS, botRolePosition: 5 }));
    goldId = sandbox.createRole(guildId, { name: 'Gold' }).id;
    client = await readyClient(sandbox, [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers]);
  });

  afterAll(async () => {
    await client.destroy();
    await sandbox.close();
  });

  it('adds a user with their roles (201), then answers 204 without applying roles; GUILD_MEMBER_ADD both times', async () => {
    const dana = sandbox.createUser({ username: 'dana' }).id;
    const { accessToken } = sandbox.issueUserTokens(dana, ['identify', 'guilds.join']);
    const guild = client.guilds.cache.get(guildId);
    if (!guild) throw new Error('the guild is not cached');
    const announced = new Promise<GuildMember>((resolve) => client.once(Events.GuildMemberAdd, resolve));
    const member = await guild.members.add(dana, { accessToken, roles: [goldId] });
    expect(member?.roles.cache.has(goldId)).toBe(true);
    expect((await announced).id).toBe(dana);
    expect(sandbox.memberRoles(guildId, dana)).toEqual([goldId]);
    expect(sandbox.roleEvents().filter((e) => e.userId === dana)).toMatchObject([{ op: 'add', via: 'join', roleId: goldId }]);
    expect(sandbox.requests({ route: 'PUT /guilds/:g/members/:u' }).map((r) => r.status)).toEqual([201]);

    const silver = sandbox.createRole(guildId, { name: 'Silver' }).id;
    const again = new Promise<GuildMember>((resolve) => client.once(Events.GuildMemberAdd, resolve));
    await guild.members.add(dana, { accessToken, roles: [silver], force: true, fetchWhenExisting: false });
    expect((await again).id).toBe(dana);
    expect(sandbox.requests({ route: 'PUT /guilds/:g/members/:u' }).map((r) => r.status)).toEqual([201, 204]);
    expect(sandbox.memberRoles(guildId, dana)).toEqual([goldId]);
  });
});

describe('Add Guild Member refusals', () => {
  let sandbox: DiscordSandbox;
  let guildId: string;
  let botRoleId: string;
  let goldId: string;
  let eveId: string;
  let token: string;

  const join = (userId: string, body: Record<string, unknown>, auth?: string) =>
    call(sandbox, 'PUT', `/guilds/${guildId}/members/${userId}`, { body, ...(auth === undefined ? {} : { auth }) });

  beforeEach(async () => {
    sandbox = await createDiscordSandbox();
    ({ guildId, botRoleId } = sandbox.createGuild({ botPermissions: JOIN_PERMISSIONS, botRolePosition: 5 }));
    goldId = sandbox.createRole(guildId, { name: 'Gold' }).id;
    eveId = sandbox.createUser({ username: 'eve' }).id;
    token = sandbox.issueUserTokens(eveId, ['identify', 'guilds.join']).accessToken;
  });

  afterEach(async () => {
    await sandbox.close();
  });

  it('answers 50025 for every kind of unusable user token', async () => {
    const mallory = sandbox.createUser({ username: 'mallory' }).id;
    const noJoin = sandbox.issueUserTokens(eveId, ['identify']).accessToken;
    const otherApp = sandbox.issueUserTokens(eveId, ['guilds.join'], { applicationId: '1111111111111111111' }).accessToken;
    const revoked = sandbox.issueUserTokens(mallory, ['guilds.join']).accessToken;
    sandbox.revokeUserAuthorization(mallory);
    const expired = sandbox.issueUserTokens(eveId, ['guilds.join']).accessToken;
    sandbox.expireAccessToken(expired);
    const answers = [
      await join(eveId, { access_token: 'not-a-token' }),
      await join(eveId, { access_token: noJoin }),
      await join(eveId, { access_token: otherApp }),
      await join(mallory, { access_token: revoked }),
      await join(eveId, { access_token: expired }),
      // Eve's good token cannot add Mallory.
      await join(mallory, { access_token: token }),
    ];
    expect(answers.map((a) => [a.status, a.body])).toEqual(Array(6).fill([403, { message: 'Invalid OAuth2 access token', code: 50025 }]));
    expect(sandbox.guild(guildId).memberCount).toBe(2);
  });

  it('refuses banned users with 40007 and a full server with 30019', async () => {
    sandbox.banUser(guildId, eveId, { reason: 'spam' });
    const banned = await join(eveId, { access_token: token });
    expect([banned.status, banned.body]).toEqual([403, { message: 'The user is banned from this guild.', code: 40007 }]);
    const ban = await call(sandbox, 'GET', `/guilds/${guildId}/bans/${eveId}`);
    // The bot lacks Ban Members: the ban is not its to read.
    expect([ban.status, codeOf(ban)]).toEqual([403, 50013]);
    sandbox.updateRole(guildId, botRoleId, { permissions: JOIN_PERMISSIONS | Permission.BanMembers });
    const readable = await call(sandbox, 'GET', `/guilds/${guildId}/bans/${eveId}`);
    expect(readable.body).toMatchObject({ reason: 'spam', user: { id: eveId } });
    sandbox.unbanUser(guildId, eveId);
    const gone = await call(sandbox, 'GET', `/guilds/${guildId}/bans/${eveId}`);
    expect([gone.status, codeOf(gone)]).toEqual([404, 10026]);

    sandbox.setMaxMembers(guildId, 2);
    const full = await join(eveId, { access_token: token });
    expect([full.status, full.body]).toEqual([400, { message: 'Maximum number of server members reached', code: 30019 }]);
    sandbox.setMaxMembers(guildId, 3);
    expect((await join(eveId, { access_token: token })).status).toBe(201);
  });

  it('refuses a user already in 100 servers with 30001, and a Nitro user only past 200', async () => {
    for (let i = 0; i < 100; i++) sandbox.addMember(sandbox.createGuild({ name: `Other ${i}` }).guildId, { userId: eveId });
    const limited = await join(eveId, { access_token: token, roles: [goldId] });
    expect([limited.status, limited.body]).toEqual([400, { message: 'Maximum number of guilds reached (100)', code: 30001 }]);
    expect(sandbox.members(guildId).some((m) => m.userId === eveId)).toBe(false);
    // Leaving one server makes room.
    sandbox.removeMember(sandbox.guilds().find((g) => g.name === 'Other 0')!.id, eveId);
    expect((await join(eveId, { access_token: token })).status).toBe(201);

    const nitro = sandbox.createUser({ username: 'nitro', nitro: true }).id;
    const nitroToken = sandbox.issueUserTokens(nitro, ['guilds.join']).accessToken;
    const others = sandbox.guilds().filter((g) => g.name.startsWith('Other '));
    for (const g of others) sandbox.addMember(g.id, { userId: nitro });
    for (let i = 0; i < 200 - others.length; i++) sandbox.addMember(sandbox.createGuild({ name: `More ${i}` }).guildId, { userId: nitro });
    expect(codeOf(await join(nitro, { access_token: nitroToken }))).toBe(30001);
    sandbox.removeMember(others[0]!.id, nitro);
    expect((await join(nitro, { access_token: nitroToken })).status).toBe(201);
  });

  it("needs Create Instant Invite, and for roles Manage Roles with every role below the bot's highest and not managed", async () => {
    const above = sandbox.createRole(guildId, { name: 'Staff', position: 10 }).id;
    const managed = sandbox.createRole(guildId, { name: 'Booster', managed: true }).id;
    for (const roles of [[above], [managed], [guildId], [goldId, above]]) {
      const answer = await join(eveId, { access_token: token, roles });
      expect([answer.status, answer.body]).toEqual([403, { message: 'Missing Permissions', code: 50013 }]);
    }
    expect((await join(eveId, { access_token: token, roles: ['1234567890123456789'] })).status).toBe(404);
    sandbox.updateRole(guildId, botRoleId, { permissions: Permission.CreateInstantInvite });
    expect(codeOf(await join(eveId, { access_token: token, roles: [goldId] }))).toBe(50013);
    expect(codeOf(await join(eveId, { access_token: token, nick: 'Evie' }))).toBe(50013);
    sandbox.updateRole(guildId, botRoleId, { permissions: Permission.ManageRoles });
    expect(codeOf(await join(eveId, { access_token: token }))).toBe(50013);
    expect(sandbox.guild(guildId).memberCount).toBe(2);
    sandbox.updateRole(guildId, botRoleId, { permissions: Permission.CreateInstantInvite });
    const plain = await join(eveId, { access_token: token });
    expect(plain.status).toBe(201);
    expect(plain.body).toMatchObject({ user: { id: eveId }, roles: [] });
  });

  it('answers 10004 for an unknown guild, 50035 without access_token, 401 for a user token', async () => {
    const unknown = await call(sandbox, 'PUT', `/guilds/1234567890123456789/members/${eveId}`, { body: { access_token: token } });
    expect([unknown.status, codeOf(unknown)]).toEqual([404, 10004]);
    const missing = await join(eveId, { roles: [goldId] });
    expect([missing.status, missing.body]).toMatchObject([
      400,
      { code: 50035, errors: { access_token: { _errors: [{ code: 'BASE_TYPE_REQUIRED' }] } } },
    ]);
    const asUser = await join(eveId, { access_token: token }, `Bearer ${token}`);
    expect([asUser.status, codeOf(asUser)]).toEqual([401, 0]);
  });

  it('keeps bans and the member cap in the HTTP control API', async () => {
    const base = `${sandbox.baseUrl}/__sandbox/guilds/${guildId}`;
    expect((await fetch(`${base}/bans/${eveId}`, { method: 'PUT', body: JSON.stringify({ reason: 'raid' }) })).status).toBe(204);
    expect(await (await fetch(`${base}/bans`)).json()).toEqual([{ userId: eveId, reason: 'raid' }]);
    expect(codeOf(await join(eveId, { access_token: token }))).toBe(40007);
    expect((await fetch(`${base}/bans/${eveId}`, { method: 'DELETE' })).status).toBe(204);
    const patched = await fetch(base, { method: 'PATCH', body: JSON.stringify({ maxMembers: 2 }) });
    expect(((await patched.json()) as { maxMembers: number }).maxMembers).toBe(2);
    expect(codeOf(await join(eveId, { access_token: token }))).toBe(30019);
  });
});
