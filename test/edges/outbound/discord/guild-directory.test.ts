import { createRest } from '../../../../src/edges/outbound/discord/create-rest';
import { DiscordProblemError } from '../../../../src/edges/outbound/discord/discord-problem';
import { createGuildDirectory } from '../../../../src/edges/outbound/discord/guild-directory';
import { createDiscordSandbox } from '@tierlink/sandbox/discord';
import type { DiscordSandbox } from '@tierlink/sandbox/discord';

describe('guild directory against the Discord sandbox', () => {
  let sandbox: DiscordSandbox;

  beforeAll(async () => {
    sandbox = await createDiscordSandbox();
  });

  afterAll(async () => {
    await sandbox.close();
  });

  function directory() {
    const handle = createRest({ apiBaseUrl: sandbox.apiBaseUrl, token: sandbox.botToken });
    return { directory: createGuildDirectory({ rest: handle.rest }), handle };
  }

  it('lists 2,500 members in three pages of at most 1000, in ascending id order', async () => {
    const { guildId } = sandbox.createGuild();
    sandbox.generateGuild({ guildId, members: 2_498, seed: 3 });
    const { directory: dir, handle } = directory();
    sandbox.resetRequests();
    const sizes: number[] = [];
    const ids: string[] = [];
    for await (const page of dir.listMembers(guildId)) {
      sizes.push(page.length);
      ids.push(...page.map((m) => m.userId));
    }
    expect(sizes).toEqual([1000, 1000, 500]);
    expect(new Set(ids).size).toBe(2_500);
    expect(ids).toEqual([...ids].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1)));
    const lists = sandbox.requests({ route: 'GET /guilds/:g/members' });
    expect(lists).toHaveLength(3);
    expect(lists[1]?.path).toBe(`/guilds/${guildId}/members`);
    expect(handle.stats().byRoute['GET /guilds/:id/members']).toBe(3);
  });

  it('asks once more after a full last page and stops on the empty one', async () => {
    const { guildId } = sandbox.createGuild();
    sandbox.generateGuild({ guildId, members: 8, seed: 4 });
    const { directory: dir } = directory();
    sandbox.resetRequests();
    const sizes: number[] = [];
    for await (const page of dir.listMembers(guildId, { pageSize: 5 })) sizes.push(page.length);
    expect(sizes).toEqual([5, 5]);
    expect(sandbox.requests({ route: 'GET /guilds/:g/members' })).toHaveLength(3);
  });

  it('explains a 50001 on the member list as the Server Members Intent being off', async () => {
    const { guildId } = sandbox.createGuild();
    sandbox.setMembersIntentEnabled(false);
    try {
      const { directory: dir } = directory();
      const pages = async (): Promise<void> => {
        for await (const page of dir.listMembers(guildId)) void page;
      };
      const error = await pages().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(DiscordProblemError);
      expect((error as DiscordProblemError).problem).toMatchObject({ code: 'members_intent_disabled', discordCode: 50001, status: 403 });
      expect(error).toMatchObject({ kind: 'members_intent_disabled', code: 'members_intent_disabled', status: 403, discordCode: 50001 });
      expect((error as Error).name).toBe('DiscordProblemError[50001]');
      const { fix } = (error as DiscordProblemError).problem;
      expect(fix).toContain('Server Members Intent');
      expect(fix).toMatch(/Developer Portal → .*Bot/);
    } finally {
      sandbox.setMembersIntentEnabled(true);
    }
  });

  it('reads roles, the bot member, and members (null for a non-member)', async () => {
    const { guildId, botRoleId } = sandbox.createGuild();
    const gold = sandbox.createRole(guildId, { name: 'Gold', permissions: 0n });
    const { userId } = sandbox.addMember(guildId, { username: 'alice', roleIds: [gold.id] });
    const { directory: dir } = directory();
    const roles = await dir.listRoles(guildId);
    expect(roles.map((r) => [r.name, r.managed, r.botId])).toEqual([
      ['@everyone', false, null],
      ['Gold', false, null],
      ['Tierlink', true, sandbox.botUserId],
    ]);
    expect(await dir.getBotMember(guildId)).toMatchObject({ userId: sandbox.botUserId, bot: true, roleIds: [botRoleId] });
    expect(await dir.getMember(guildId, userId)).toMatchObject({ username: 'alice', roleIds: [gold.id] });
    expect(await dir.getMember(guildId, '100000000000000001')).toBeNull();
    // Someone behind the server's Membership Screening is read as pending.
    sandbox.setScreening(guildId, true);
    const newcomer = sandbox.addMember(guildId, { username: 'newcomer' }).userId;
    expect(await dir.getMember(guildId, newcomer)).toMatchObject({ roleIds: [], pending: true });
    expect(await dir.getMember(guildId, userId)).toMatchObject({ pending: false });
    await expect(dir.listRoles('100000000000000001')).rejects.toMatchObject({ code: 'unknown_guild' });
  });

  it('reads the guild’s owner, and a user by id (null for an unknown user)', async () => {
    const { guildId } = sandbox.createGuild({ name: 'Owned', ownerId: '100000000000000777' });
    const user = sandbox.createUser({ username: 'ada', globalName: 'Ada L.' });
    const { directory: dir } = directory();
    expect(await dir.getGuild(guildId)).toEqual({ id: guildId, name: 'Owned', ownerId: '100000000000000777', screening: false });
    // Membership Screening on: the guild's features say so.
    sandbox.setScreening(guildId, true);
    expect(await dir.getGuild(guildId)).toMatchObject({ screening: true });
    expect(await dir.getUser(user.id)).toEqual({ userId: user.id, username: 'ada', globalName: 'Ada L.' });
    expect(await dir.getUser('100000000000000002')).toBeNull();
    await expect(dir.getGuild('100000000000000001')).rejects.toMatchObject({ code: 'unknown_guild' });
  });

  it('reads the guild owner and searches members by username or nickname', async () => {
    const owner = sandbox.createUser({ username: 'owner' }).id;
    const { guildId } = sandbox.createGuild({ name: 'Search Club', ownerId: owner });
    const mira = sandbox.addMember(guildId, { username: 'mira', nick: 'Captain' }).userId;
    sandbox.addMember(guildId, { username: 'miles' });
    const { directory: dir } = directory();
    expect(await dir.getGuild(guildId)).toEqual({ id: guildId, name: 'Search Club', ownerId: owner, screening: false });
    expect((await dir.searchMembers(guildId, 'mi', 10)).map((m) => m.username).sort()).toEqual(['miles', 'mira']);
    expect(await dir.searchMembers(guildId, 'capt', 10)).toEqual([expect.objectContaining({ userId: mira, nick: 'Captain' })]);
    await expect(dir.searchMembers(guildId, 'mi', 0)).rejects.toThrow(RangeError);
    await expect(dir.getGuild('100000000000000001')).rejects.toMatchObject({ code: 'unknown_guild' });
  });
});
