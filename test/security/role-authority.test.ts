import { PermissionFlagsBits } from 'discord.js';
import { MINUTE } from '../../src/shared/clock';
import { type E2E, startE2E } from '../support/e2e';
import { EVERYONE, MANAGE_ROLES, activePatron, boolOption, pressButton, roleOption, runCommand, tierOption } from '../support/e2e-admin';

/**
 * Role laundering: a moderator with Manage Roles must not get, through Tierlink, what
 * Discord refuses him directly: giving or taking away a role at or above his own highest role, or a
 * role with staff powers. The whole service runs against the stand-ins; every command goes through
 * the real discord.js client, and the moderator's authority comes from his roles in the guild.
 */

let e: E2E;
/** Moderator: Manage Roles, above the tier roles, below Senior and Head Admin. */
let mod: string;
/** Roles made for the attack, all below the bot's role. */
const role = { moderator: '', senior: '', headAdmin: '', kickHelper: '', helpers: '', patrons: '' };
/** A Gold patron (linked); a staff member holding Head Admin by hand; a member holding Gold by hand. */
let gina: string;
let sam: string;
let hank: string;

const gold = () => `${e.patreon.campaignId}:${e.tiers.gold}`;
const silver = () => `${e.patreon.campaignId}:${e.tiers.silver}`;
const asMod = (name: string, options: Array<Record<string, unknown>> = []) =>
  runCommand(e, { userId: mod, name, options, memberPermissions: EVERYONE | MANAGE_ROLES });
const asOwner = (name: string, options: Array<Record<string, unknown>> = []) =>
  runCommand(e, { userId: e.ownerId, name, options, memberPermissions: MANAGE_ROLES });
const map = (tier: string, roleId: string) => [tierOption(tier), roleOption('role', roleId)];
const roles = (userId: string) => e.discord.memberRoles(e.guildId, userId);
const settings = () => e.tierlink.services.repos.guilds.settings(e.guildId);

beforeAll(async () => {
  e = await startE2E({ connected: true });
  const botPosition = () => e.discord.guild(e.guildId).roles.find((r) => r.id === e.discord.guild(e.guildId).botRoleId)!.position;
  // Each insert takes the bot's place and pushes the bot up: each role lands above the one before.
  const below = (name: string, permissions = 0n) => e.discord.createRole(e.guildId, { name, permissions, position: botPosition() }).id;
  role.kickHelper = below('Kick Helper', PermissionFlagsBits.KickMembers);
  role.helpers = below('Helpers');
  role.patrons = below('Patrons');
  role.moderator = below('Moderator', MANAGE_ROLES);
  role.senior = below('Senior');
  role.headAdmin = below('Head Admin', PermissionFlagsBits.Administrator);
  mod = e.discord.addMember(e.guildId, { username: 'mod', roleIds: [role.moderator] }).userId;
  gina = e.discord.addMember(e.guildId, { username: 'gina' }).userId;
  await e.link(gina, activePatron(e, 'Gina', [e.tiers.gold]).id);
  sam = e.discord.addMember(e.guildId, { username: 'sam', roleIds: [role.headAdmin] }).userId;
  hank = e.discord.addMember(e.guildId, { username: 'hank', roleIds: [e.roles.gold] }).userId;
}, 60_000);
afterAll(() => e?.stop());

test('the roles are where the attack needs them: Head Admin and Senior above the moderator, the tier roles below him', () => {
  const position = (id: string) => e.discord.guild(e.guildId).roles.find((r) => r.id === id)!.position;
  expect(position(role.headAdmin)).toBeGreaterThan(position(role.senior));
  expect(position(role.senior)).toBeGreaterThan(position(role.moderator));
  for (const below of [role.patrons, role.helpers, role.kickHelper, e.roles.gold, e.roles.silver]) {
    expect(position(role.moderator)).toBeGreaterThan(position(below));
  }
  expect(position(e.discord.guild(e.guildId).botRoleId)).toBeGreaterThan(position(role.headAdmin));
});

test('a moderator cannot make the bot grant a role above him (Administrator or plain), nor one with a dangerous permission', async () => {
  const admin = await asMod('map', map(gold(), role.headAdmin)).reply();
  expect(admin.content).toBe(
    'Nothing was mapped: Head Admin is at or above your highest role, Moderator. Discord lets you give or take away only ' +
      'roles below your own highest role, and Tierlink keeps the same rule.\n' +
      '**What to do:** Ask someone whose highest role is above Head Admin, or the server owner, to do this.',
  );
  expect(admin.ephemeral).toBe(true);
  expect((await asMod('map', map(gold(), role.senior)).reply()).content).toMatch(
    /^Nothing was mapped: Senior is at or above your highest role/,
  );
  const kick = await asMod('map', map(gold(), role.kickHelper)).reply();
  expect(kick.content).toMatch(
    /^Nothing was mapped: Kick Helper has the Kick Members permission\. Only the server owner or an administrator/,
  );
  expect(await e.tierlink.services.repos.mappings.of(e.guildId)).toEqual([]);
  expect(roles(gina)).not.toContain(role.headAdmin);

  // What Discord lets him do by hand, he may have Tierlink do.
  const fine = await asMod('map', map(gold(), role.patrons)).until(/Updated|failed/);
  expect(fine.content).toMatch(/^\*\*Gold\*\* now grants \*\*Patrons\*\*\. Updated: 1 role change/);
  expect(roles(gina)).toContain(role.patrons);
});

test('the owner can map the Administrator role; the moderator then cannot unmap it', async () => {
  const owner = await asOwner('map', map(gold(), role.headAdmin)).until(/Updated|failed/);
  expect(owner.content).toMatch(/^\*\*Gold\*\* now grants \*\*Head Admin\*\*\./);
  expect(roles(gina)).toContain(role.headAdmin);

  const unmap = await asMod('unmap', map(gold(), role.headAdmin)).reply();
  expect(unmap.content).toMatch(/^Nothing was unmapped: Head Admin is at or above your highest role, Moderator\./);
  expect((await e.tierlink.services.repos.mappings.of(e.guildId)).map((m) => m.roleId).sort()).toEqual(
    [role.headAdmin, role.patrons].sort(),
  );
  expect(roles(gina)).toContain(role.headAdmin);
});

test('a moderator cannot set that role as the former-patron or follower role, nor clear it once the owner set it', async () => {
  for (const option of ['former_role', 'follower_role']) {
    const reply = await asMod('settings', [roleOption(option, role.headAdmin)]).reply();
    expect(reply.content).toMatch(
      /^Nothing was changed:\n• The (former-patron|follower) role cannot be used: Head Admin is at or above your highest role/,
    );
  }
  const dangerous = await asMod('settings', [roleOption('follower_role', role.kickHelper)]).reply();
  expect(dangerous.content).toContain('The follower role cannot be used: Kick Helper has the Kick Members permission.');
  expect(await settings()).toMatchObject({ formerPatronRoleId: null, followerRoleId: null });

  await asOwner('settings', [roleOption('former_role', role.senior)]).until(/Updated|failed|Settings saved/);
  expect((await settings()).formerPatronRoleId).toBe(role.senior);
  const clear = await asMod('settings', [boolOption('clear_former_role', true)]).reply();
  expect(clear.content).toMatch(
    /^Nothing was changed:\n• The current former-patron role cannot be changed: Senior is at or above your highest role/,
  );
  const swap = await asMod('settings', [roleOption('former_role', role.helpers)]).reply();
  expect(swap.content).toContain('The current former-patron role cannot be changed: Senior');
  expect((await settings()).formerPatronRoleId).toBe(role.senior);
  await asOwner('settings', [boolOption('clear_former_role', true)]).until(/Updated|failed|Settings saved/);
});

test('a channel-level overwrite gives no authority: "Manage Permissions" on one channel is not Manage Roles', async () => {
  const member = e.discord.addMember(e.guildId, { username: 'chan' }).userId;
  const channel = e.discord.createChannel(e.guildId, {
    name: 'mod-corner',
    overwrites: [{ id: member, type: 'member', allow: MANAGE_ROLES | PermissionFlagsBits.ViewChannel }],
  });
  // Discord computes the channel's permissions with the overwrite: the interaction carries Manage Roles.
  const there = runCommand(e, {
    userId: member,
    name: 'map',
    options: map(gold(), role.helpers),
    memberPermissions: null,
    channelId: channel.id,
  });
  const reply = await there.reply();
  expect(reply.content).toMatch(
    /^You need the \*\*Manage Roles\*\* permission to use \/map\. Tierlink reads it from your roles in this server/,
  );
  const claimed = await runCommand(e, {
    userId: member,
    name: 'settings',
    options: [boolOption('strict', true)],
    memberPermissions: EVERYONE | MANAGE_ROLES | PermissionFlagsBits.Administrator,
  }).reply();
  expect(claimed.content).toMatch(/^You need the \*\*Manage Roles\*\* permission to use \/settings\./);
  expect(await e.autocomplete(member, 'map', [tierOption('')], 'tier', MANAGE_ROLES | PermissionFlagsBits.Administrator)).toEqual([]);
  expect((await e.tierlink.services.repos.mappings.of(e.guildId)).map((m) => m.roleId)).not.toContain(role.helpers);
  expect((await settings()).strict).toBe(false);
});

test('strict mode cannot strip a role the moderator could not take away himself', async () => {
  await asOwner('map', map(silver(), role.senior)).until(/Updated|failed/);
  const refused = await asMod('settings', [boolOption('strict', true)]).reply();
  expect(refused.content).toMatch(
    /^Nothing was changed:\n• Strict mode would remove Senior from members: Senior is at or above your highest role, Moderator\./,
  );
  expect(refused.buttons).toEqual([]);
  expect((await settings()).strict).toBe(false);
  await asOwner('unmap', map(silver(), role.senior)).until(/Updated|failed/);
});

test('strict mode shows what it would remove, waits for the moderator’s confirmation, and never strips the Administrator role', async () => {
  expect(roles(sam)).toEqual([role.headAdmin]);
  const asked = asMod('settings', [boolOption('strict', true)]);
  const preview = await asked.reply();
  expect(preview.content).toContain('Right now it would remove, from 1 member:\n• **Gold** from 1 member\nFor example: hank.');
  expect(preview.content).toContain('Never removed by strict mode, because they carry powerful permissions: **Head Admin**.');
  expect((await settings()).strict).toBe(false);
  expect(roles(hank)).toEqual([e.roles.gold]);

  const done = await (await pressButton(e, asked, 'Turn strict mode on')).until(/Updated|failed/);
  expect(done.content).toMatch(/^\*\*Strict mode is on\.\*\*\nUpdated: 1 role change/);
  expect(roles(hank)).toEqual([]);
  // Head Admin, mapped to Gold and held by hand by someone who is no patron: strict leaves it.
  expect(roles(sam)).toEqual([role.headAdmin]);
  await asOwner('settings', [boolOption('strict', false)]).until(/Updated|failed|Settings saved/);
});

test('the confirmation is bound to the person who asked and expires', async () => {
  const asked = asOwner('settings', [boolOption('strict', true)]);
  const button = (await asked.reply()).buttons[0]!;
  const token = button.customId.slice('strict-on:'.length);
  const service = e.tierlink.services.admin.settings;
  // Discord shows the ephemeral message to the owner only; the token itself is also worthless to anyone else.
  expect(await service.confirmStrict({ guildId: e.guildId, userId: mod }, token)).toEqual({ kind: 'not_yours' });
  expect(await service.confirmStrict({ guildId: e.guildId, userId: e.ownerId }, `${token}x`)).toEqual({ kind: 'not_yours' });

  e.clock.advance(5 * MINUTE + 1);
  const late = await (await pressButton(e, asked, 'Turn strict mode on')).reply();
  expect(late.content).toBe(
    'This confirmation expired (it lasts 5 minutes). Run /settings strict:true again to see what strict mode would remove now.',
  );
  expect(late.buttons).toEqual([]);
  expect((await settings()).strict).toBe(false);
});

test('an Administrator cannot have Tierlink give a role above his own highest role; below it, even a powerful role', async () => {
  const botPosition = e.discord.guild(e.guildId).roles.find((r) => r.id === e.discord.guild(e.guildId).botRoleId)!.position;
  // Council lands above Head Admin, still below the bot: Discord would assign it, were it asked.
  const council = e.discord.createRole(e.guildId, { name: 'Council', permissions: 0n, position: botPosition }).id;
  const asSam = (name: string, options: Array<Record<string, unknown>>) =>
    runCommand(e, { userId: sam, name, options, memberPermissions: EVERYONE | PermissionFlagsBits.Administrator });

  const refused = await asSam('map', map(silver(), council)).reply();
  expect(refused.content).toMatch(/^Nothing was mapped: Council is at or above your highest role, Head Admin\./);
  expect(refused.content).toContain('**What to do:** Ask someone whose highest role is above Council, or the server owner, to do this.');
  const former = await asSam('settings', [roleOption('former_role', council)]).reply();
  expect(former.content).toMatch(
    /^Nothing was changed:\n• The former-patron role cannot be used: Council is at or above your highest role/,
  );
  expect((await e.tierlink.services.repos.mappings.of(e.guildId)).map((m) => m.roleId)).not.toContain(council);
  expect((await settings()).formerPatronRoleId).toBeNull();

  // Nor may he allow a powerful role above him, which a campaign's tier could then hand out.
  const wardens = e.discord.createRole(e.guildId, {
    name: 'Wardens',
    permissions: PermissionFlagsBits.KickMembers,
    position: botPosition,
  }).id;
  const allow = await asSam('allow-role', [roleOption('role', wardens)]).reply();
  expect(allow.content).toContain('Wardens is at or above your highest role, Head Admin.');
  expect(await e.tierlink.services.repos.roleAllowances.of(e.guildId)).not.toContainEqual(expect.objectContaining({ roleId: wardens }));
  const byOwner = await asOwner('allow-role', [roleOption('role', wardens)]).until(/Updated|failed|allowed|Nothing/);
  expect(byOwner.content).not.toContain('at or above');

  const allowed = await asSam('map', map(silver(), role.kickHelper)).until(/Updated|failed|now grants/);
  expect(allowed.content).toMatch(/^\*\*Silver\*\* now grants \*\*Kick Helper\*\*\./);
  await asSam('unmap', map(silver(), role.kickHelper)).until(/Updated|failed|no longer grants|Nothing/);
  expect((await e.tierlink.services.repos.mappings.of(e.guildId)).map((m) => m.roleId)).not.toContain(role.kickHelper);
});
