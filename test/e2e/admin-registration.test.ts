import { PermissionFlagsBits } from 'discord.js';
import { COMMANDS } from '../../src/edges/inbound/bot/commands';
import { registerCommands } from '../../src/edges/inbound/bot/register-commands';
import { createTierlink } from '../../src/main';
import { createLogger } from '../../src/edges/outbound/observability/logger';
import { type E2E, MemoryLog, startE2E } from '../support/e2e';
import { EVERYONE, MANAGE_GUILD, MANAGE_ROLES, roleOption, runCommand, stringOption, tierOption } from '../support/e2e-admin';

let e: E2E;
beforeAll(async () => {
  e = await startE2E({ connected: true });
}, 60_000);
afterAll(() => e?.stop());

const ADMIN_COMMANDS = ['tiers', 'map', 'unmap', 'settings', 'sync', 'doctor', 'audit', 'comp'];

test('commands are registered on DISCORD_GUILD_ID at start, each admin command with the permission it needs', () => {
  const registered = e.discord.commands(e.guildId);
  expect(registered.map((c) => c.name).sort()).toEqual([
    'allow-role',
    'audit',
    'comp',
    'connect',
    'doctor',
    'link',
    'map',
    'privacy',
    'settings',
    'status',
    'sync',
    'tiers',
    'unlink',
    'unmap',
  ]);
  expect(e.discord.commands()).toEqual([]);
  expect(e.discord.commandPutCount(e.guildId)).toBe(1);
  expect(e.discord.commandPutCount()).toBe(0);

  const permissionOf = (name: string) => registered.find((c) => c.name === name)!.default_member_permissions;
  // Connecting a campaign decides which roles its patrons get: the owner or an administrator.
  expect(permissionOf('connect')).toBe(String(PermissionFlagsBits.Administrator));
  expect(permissionOf('allow-role')).toBe(String(PermissionFlagsBits.Administrator));
  for (const name of ADMIN_COMMANDS) expect([name, permissionOf(name)]).toEqual([name, String(PermissionFlagsBits.ManageRoles)]);
  for (const name of ['link', 'unlink', 'status']) expect([name, permissionOf(name)]).toEqual([name, null]);
});

test('a member without Manage Roles is refused every admin command at run time, and nothing changes', async () => {
  const member = e.discord.addMember(e.guildId, { username: 'mallory' });
  const options: Record<string, Array<Record<string, unknown>>> = {
    map: [tierOption('Gold'), roleOption('role', e.roles.staff)],
    unmap: [tierOption('Gold'), roleOption('role', e.roles.gold)],
    settings: [{ name: 'grace_days', type: 4, value: 0 }],
  };
  for (const name of ADMIN_COMMANDS) {
    // Server admins can open a command to everyone in Integrations settings, overriding
    // default_member_permissions: the run-time check is what stops them then.
    const reply = await runCommand(e, { userId: member.userId, name, options: options[name] ?? [], memberPermissions: EVERYONE }).reply();
    expect(reply.content).toMatch(
      new RegExp(`^You need the \\*\\*Manage Roles\\*\\* permission to use /${name}\\. Tierlink reads it from your roles in this server`),
    );
    expect(reply.ephemeral).toBe(true);
  }
  expect(await e.tierlink.services.repos.mappings.of(e.guildId)).toEqual([]);
  expect((await e.tierlink.services.repos.guilds.settings(e.guildId)).graceDays).toBe(7);

  const connect = await runCommand(e, { userId: member.userId, name: 'connect', memberPermissions: MANAGE_ROLES }).reply();
  expect(connect.content).toMatch(/^Only the server owner or an administrator can connect a Patreon campaign/);
  expect(connect.urls).toEqual([]);

  // Nor does autocomplete hand out the campaign's tiers.
  expect(await e.autocomplete(member.userId, 'map', [tierOption('')], 'tier', EVERYONE)).toEqual([]);
});

test('Manage Roles and Administrator from the member’s roles are enough for the commands that ask for them; Manage Server does not connect', async () => {
  const role = (name: string, permissions: bigint) => e.discord.createRole(e.guildId, { name, permissions }).id;
  const moderator = e.discord.addMember(e.guildId, { username: 'mod', roleIds: [role('Moderators', MANAGE_ROLES)] });
  const tiers = await runCommand(e, { userId: moderator.userId, name: 'tiers', memberPermissions: EVERYONE }).reply();
  expect(tiers.content).toContain('**Gold** — $10');
  const manager = e.discord.addMember(e.guildId, { username: 'manager', roleIds: [role('Managers', MANAGE_GUILD)] });
  const connect = await runCommand(e, { userId: manager.userId, name: 'connect', memberPermissions: EVERYONE }).reply();
  expect(connect.urls).toEqual([]);
  const admin = e.discord.addMember(e.guildId, { username: 'admin', roleIds: [role('Admins', PermissionFlagsBits.Administrator)] });
  const connectAsAdmin = await runCommand(e, { userId: admin.userId, name: 'connect', memberPermissions: EVERYONE }).reply();
  expect(connectAsAdmin.urls).toHaveLength(1);
  const asAdmin = await runCommand(e, { userId: admin.userId, name: 'doctor', memberPermissions: EVERYONE }).reply();
  expect(asAdmin.content).not.toContain('You need');
  expect(asAdmin.content).toContain('Manage Roles permission');
  expect((await e.autocomplete(moderator.userId, 'unmap', [tierOption('sil')], 'tier', MANAGE_ROLES)).map((c) => c.name)).toEqual([
    'Silver — $5 a month',
  ]);
});

test('the patron commands need no permission', async () => {
  const patron = e.discord.addMember(e.guildId, { username: 'pat' });
  const link = await runCommand(e, { userId: patron.userId, name: 'link', memberPermissions: EVERYONE }).reply();
  expect(link.urls).toHaveLength(1);
  const status = await runCommand(e, { userId: patron.userId, name: 'status', memberPermissions: EVERYONE }).reply();
  expect(status.content).not.toContain('You need');
});

test('a restart with the same commands skips the registration; changed definitions are registered again', async () => {
  await e.tierlink.stop();
  const log = new MemoryLog();
  const again = await createTierlink({
    config: e.config,
    logger: createLogger({ level: 'debug', destination: log }),
    clock: e.clock,
    database: e.db.database,
    discordWaitGuildTimeoutMs: 500,
    patreonRetry: { baseDelayMs: 5, maxDelayMs: 50 },
    pollMs: 200,
  });
  try {
    await again.start();
    expect(e.discord.commandPutCount(e.guildId)).toBe(1);
    expect(log.text()).toContain('slash commands unchanged; registration skipped');

    // The restarted service answers the registered commands.
    const reply = await runCommand(e, {
      userId: e.ownerId,
      name: 'settings',
      options: [stringOption('mode', 'highest')],
      memberPermissions: MANAGE_ROLES,
    }).until(/Updated|failed/);
    expect(reply.content).toContain('**Mode**: highest');

    const deps = {
      rest: again.services.rest.rest,
      applicationId: e.config.discord.applicationId,
      guildId: e.guildId,
      appState: again.services.repos.appState,
      logger: createLogger({ level: 'silent' }),
    };
    const renamed = COMMANDS.map((c) => (c.data.name === 'doctor' ? { ...c, data: { ...c.data, description: 'Check the setup' } } : c));
    expect(await registerCommands({ ...deps, commands: renamed })).toBe('registered');
    expect(e.discord.commandPutCount(e.guildId)).toBe(2);
    expect(e.discord.commands(e.guildId).find((c) => c.name === 'doctor')?.description).toBe('Check the setup');
    expect(await registerCommands({ ...deps, commands: renamed })).toBe('unchanged');
    expect(e.discord.commandPutCount(e.guildId)).toBe(2);
  } finally {
    await again.stop();
  }
});
