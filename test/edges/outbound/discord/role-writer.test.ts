import { createManualClock } from '@tierlink/sandbox';
import { createRest } from '../../../../src/edges/outbound/discord/create-rest';
import { createGuildDirectory } from '../../../../src/edges/outbound/discord/guild-directory';
import { MAX_AUDIT_REASON, createRoleWriter } from '../../../../src/edges/outbound/discord/role-writer';
import { createDiscordSandbox } from '@tierlink/sandbox/discord';
import type { DiscordSandbox } from '@tierlink/sandbox/discord';

const MEMBER_ROLE = '/guilds/:g/members/:u/roles/:r';

describe('role writer against the Discord sandbox', () => {
  let sandbox: DiscordSandbox;
  const clock = createManualClock();

  beforeAll(async () => {
    sandbox = await createDiscordSandbox({
      rateLimits: { global: { limit: 1_000, windowMs: 1_000 } },
      raisedLimits:
        "every test builds its own REST client, as a process of its own would, on one bot token: each would be a stranger to the others' second of Discord's 50 a second; the checks are about the requests, not their pace",
    });
  });

  afterAll(async () => {
    await sandbox.close();
  });

  function setup() {
    const { guildId, botRoleId } = sandbox.createGuild({ name: 'Creators' });
    const gold = sandbox.createRole(guildId, { name: 'Gold' }).id;
    const staff = sandbox.createRole(guildId, { name: 'Staff', position: 10 }).id;
    const booster = sandbox.createRole(guildId, { name: 'Server Booster', managed: true }).id;
    const alice = sandbox.addMember(guildId, { username: 'alice' }).userId;
    const handle = createRest({ apiBaseUrl: sandbox.apiBaseUrl, token: sandbox.botToken });
    const directory = createGuildDirectory({ rest: handle.rest });
    const writer = createRoleWriter({ rest: handle.rest, directory, clock, cacheTtlMs: 60_000 });
    sandbox.resetRequests();
    sandbox.clearRoleEvents();
    return { guildId, botRoleId, gold, staff, booster, alice, writer, handle };
  }

  const writes = (): string[] =>
    sandbox
      .requests()
      .filter((r) => r.route.endsWith(MEMBER_ROLE) || r.route.startsWith('PATCH'))
      .map((r) => `${r.route} ${r.status}`);

  it('adds and removes one role through PUT / DELETE with the audit reason, and never PATCHes', async () => {
    const { guildId, gold, alice, writer } = setup();
    sandbox.setMemberRolesByHand(guildId, alice, [sandbox.createRole(guildId, { name: 'Moderator-given' }).id]);
    await expect(writer.addRole(guildId, alice, gold, 'Patreon sync: tier Gold')).resolves.toEqual({ ok: true, value: undefined });
    expect(sandbox.memberRoles(guildId, alice)).toContain(gold);
    await expect(writer.removeRole(guildId, alice, gold, 'Patreon sync: pledge ended')).resolves.toEqual({ ok: true, value: undefined });
    expect(writes()).toEqual([`PUT ${MEMBER_ROLE} 204`, `DELETE ${MEMBER_ROLE} 204`]);
    expect(sandbox.roleEvents().filter((e) => e.via !== 'hand')).toEqual([
      expect.objectContaining({ op: 'add', via: 'rest', roleId: gold, reason: 'Patreon sync: tier Gold' }),
      expect.objectContaining({ op: 'remove', via: 'rest', roleId: gold, reason: 'Patreon sync: pledge ended' }),
    ]);
    // The role a moderator gave by hand is untouched: no whole-list PATCH ever happened.
    expect(sandbox.memberRoles(guildId, alice)).toHaveLength(1);
    expect(sandbox.roleEvents().some((e) => e.via === 'patch')).toBe(false);
  });

  it('refuses roles above the bot, managed roles and @everyone without sending a write', async () => {
    const { guildId, staff, booster, alice, writer } = setup();
    const above = await writer.addRole(guildId, alice, staff, 'sync');
    expect(above).toEqual({
      ok: false,
      error: expect.objectContaining({
        code: 'above_bot',
        roleName: 'Staff',
        requestSent: false,
        fix: 'Move the Tierlink role above Staff in Server Settings → Roles.',
      }),
    });
    expect((await writer.addRole(guildId, alice, booster, 'sync')).ok ? null : 'managed').toBe('managed');
    const everyone = await writer.removeRole(guildId, alice, guildId, 'sync');
    expect(everyone.ok ? null : everyone.error.code).toBe('everyone');
    expect(writes()).toEqual([]);
    // Reads only: the bot's id, then roles and the bot's own member, once for all three checks.
    expect(
      sandbox
        .requests()
        .map((r) => r.route)
        .sort(),
    ).toEqual(['GET /guilds/:g/members/:u', 'GET /guilds/:g/roles', 'GET /users/@me']);
    expect(sandbox.invalidRequestCount()).toBe(0);
  });

  it('refuses without a write when the bot lacks Manage Roles', async () => {
    const { guildId, botRoleId, gold, alice, writer } = setup();
    sandbox.updateRole(guildId, botRoleId, { permissions: 0n });
    const result = await writer.addRole(guildId, alice, gold, 'sync');
    expect(result.ok ? null : [result.error.code, result.error.requestSent]).toEqual(['missing_manage_roles', false]);
    expect(writes()).toEqual([]);
  });

  it('maps 10007 to unknown_member', async () => {
    const { guildId, gold, writer } = setup();
    const result = await writer.addRole(guildId, '100000000000000001', gold, 'sync');
    expect(result).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'unknown_member', discordCode: 10007, requestSent: true }),
    });
  });

  it('maps 10011 to unknown_role when the role vanished after the cache was filled, then refuses without a write', async () => {
    const { guildId, gold, alice, writer } = setup();
    await writer.addRole(guildId, alice, gold, 'warm the cache');
    sandbox.deleteRole(guildId, gold);
    sandbox.resetRequests();
    const stale = await writer.removeRole(guildId, alice, gold, 'sync');
    expect(stale).toEqual({ ok: false, error: expect.objectContaining({ code: 'unknown_role', discordCode: 10011, requestSent: true }) });
    const again = await writer.removeRole(guildId, alice, gold, 'sync');
    expect(again).toEqual({ ok: false, error: expect.objectContaining({ code: 'unknown_role', requestSent: false }) });
    expect(writes()).toEqual([`DELETE ${MEMBER_ROLE} 404`]);
  });

  it('maps 50013 to missing_permissions when the role moved above the bot after the cache was filled', async () => {
    const { guildId, gold, alice, writer } = setup();
    await writer.addRole(guildId, alice, gold, 'warm the cache');
    sandbox.updateRole(guildId, gold, { position: 50 });
    sandbox.resetRequests();
    const stale = await writer.removeRole(guildId, alice, gold, 'sync');
    expect(stale).toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'missing_permissions', discordCode: 50013, requestSent: true }),
    });
    const again = await writer.removeRole(guildId, alice, gold, 'sync');
    expect(again.ok ? null : [again.error.code, again.error.requestSent]).toEqual(['above_bot', false]);
    expect(writes()).toEqual([`DELETE ${MEMBER_ROLE} 403`]);
  });

  it('looks once more before calling a newly created role unknown, then trusts the cache', async () => {
    const { guildId, alice, writer } = setup();
    await writer.addRole(guildId, alice, sandbox.createRole(guildId, { name: 'Warm' }).id, 'warm');
    const silver = sandbox.createRole(guildId, { name: 'Silver' }).id;
    await expect(writer.addRole(guildId, alice, silver, 'sync')).resolves.toMatchObject({ ok: true });
    sandbox.resetRequests();
    const ghost = '100000000000000002';
    expect((await writer.addRole(guildId, alice, ghost, 'sync')).ok).toBe(false);
    expect((await writer.addRole(guildId, alice, ghost, 'sync')).ok).toBe(false);
    // One reload (two reads) for the first miss, none for the second.
    expect(
      sandbox
        .requests()
        .map((r) => r.route)
        .sort(),
    ).toEqual(['GET /guilds/:g/members/:u', 'GET /guilds/:g/roles']);
  });

  it('refreshes the cache after its TTL', async () => {
    const { guildId, gold, staff, alice, writer, botRoleId } = setup();
    expect((await writer.addRole(guildId, alice, staff, 'sync')).ok).toBe(false);
    sandbox.updateRole(guildId, botRoleId, { position: 100 });
    expect((await writer.addRole(guildId, alice, staff, 'sync')).ok).toBe(false);
    clock.advance(60_001);
    expect((await writer.addRole(guildId, alice, staff, 'sync')).ok).toBe(true);
    expect((await writer.addRole(guildId, alice, gold, 'sync')).ok).toBe(true);
  });

  it('truncates the audit reason to 512 characters', async () => {
    const { guildId, gold, alice, writer } = setup();
    await expect(writer.addRole(guildId, alice, gold, `tier ${'é'.repeat(600)}`)).resolves.toMatchObject({ ok: true });
    const reason = sandbox.roleEvents()[0]?.reason ?? '';
    expect([...reason]).toHaveLength(MAX_AUDIT_REASON);
    expect(reason.startsWith('tier éé')).toBe(true);
  });

  it('returns a typed failure when the bot is no longer in the guild', async () => {
    const { guildId, gold, alice, writer } = setup();
    sandbox.removeMember(guildId, sandbox.botUserId);
    const result = await writer.addRole(guildId, alice, gold, 'sync');
    expect(result.ok ? null : [result.error.code, result.error.requestSent]).toEqual(['missing_access', false]);
  });

  it('throws errors it does not know', async () => {
    const { guildId, gold, alice, writer } = setup();
    await writer.addRole(guildId, alice, gold, 'warm');
    sandbox.injectFault({ method: 'DELETE', route: 'member-role', status: 400, code: 50028, message: 'Invalid Role' });
    await expect(writer.removeRole(guildId, alice, gold, 'sync')).rejects.toMatchObject({ code: 50028, status: 400 });
  });
});
