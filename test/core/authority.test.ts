import {
  type ActorFacts,
  type AuthorityRefusalCode,
  DANGEROUS_PERMISSIONS,
  Permission,
  authorityOf,
  checkRoleAuthority,
  dangerousPermissionsOf,
  hasPermission,
  heldBack,
} from '../../src/core/authority';
import { guildRoles } from '../../src/core/guild-roles';
import type { HierarchyRole } from '../../src/core/role-hierarchy';

const GUILD = '200000000000000000';
const OWNER = '200000000000000900';
const MOD = '200000000000000901';
const role = (id: string, name: string, position: number, permissions = 0n): HierarchyRole => ({
  id,
  name,
  position,
  permissions: String(permissions),
  managed: false,
});

const everyone = role(GUILD, '@everyone', 0, 1n << 10n);
const bronze = role('200000000000000001', 'Bronze', 1);
const kickHelper = role('200000000000000002', 'Kick Helper', 2, Permission.KickMembers);
const pinger = role('200000000000000003', 'Announcer', 3, Permission.MentionEveryone);
const moderator = role('200000000000000004', 'Moderator', 4, Permission.ManageRoles);
const senior = role('200000000000000005', 'Senior', 5);
const headAdmin = role('200000000000000006', 'Head Admin', 6, Permission.Administrator);
const bot = { ...role('200000000000000007', 'Tierlink', 7, Permission.ManageRoles), managed: true };
// Same position as Moderator: a newer (larger) id ranks below it, an older one above.
const twinBelow = role('200000000000000008', 'Twin Below', 4);
const twinAbove = role('100000000000000008', 'Twin Above', 4);
const roles = [everyone, bronze, kickHelper, pinger, moderator, senior, headAdmin, bot, twinBelow, twinAbove];

const facts = (overrides: Partial<ActorFacts> = {}): ActorFacts => ({
  guildId: GUILD,
  userId: MOD,
  ownerId: OWNER,
  memberRoleIds: [moderator.id],
  roles,
  ...overrides,
});

describe('authorityOf: guild-level permissions', () => {
  it('ORs @everyone with the member’s roles, and finds the highest role', () => {
    const a = authorityOf(facts({ memberRoleIds: [bronze.id, moderator.id] }));
    expect(a.isOwner).toBe(false);
    expect(a.isAdministrator).toBe(false);
    expect(a.permissions).toBe((1n << 10n) | Permission.ManageRoles);
    expect(a.highest?.id).toBe(moderator.id);
  });

  it('a member with no role has @everyone’s permissions and @everyone as highest role', () => {
    const a = authorityOf(facts({ memberRoleIds: [] }));
    expect(a.permissions).toBe(1n << 10n);
    expect(a.highest?.id).toBe(GUILD);
    expect(hasPermission(a, Permission.ManageRoles)).toBe(false);
  });

  it('the owner has every permission, with or without roles', () => {
    const a = authorityOf(facts({ userId: OWNER, memberRoleIds: [] }));
    expect(a.isOwner).toBe(true);
    for (const { bit } of DANGEROUS_PERMISSIONS) expect(hasPermission(a, bit)).toBe(true);
  });

  it('Administrator from any role means every permission', () => {
    const a = authorityOf(facts({ memberRoleIds: [headAdmin.id] }));
    expect(a.isAdministrator).toBe(true);
    expect(hasPermission(a, Permission.ManageGuild)).toBe(true);
  });

  it('Administrator granted to @everyone makes everyone an administrator', () => {
    const roles2 = roles.map((r) => (r.id === GUILD ? { ...r, permissions: String(Permission.Administrator) } : r));
    expect(authorityOf(facts({ roles: roles2, memberRoleIds: [] })).isAdministrator).toBe(true);
  });

  it('role ids the guild does not have add nothing', () => {
    const a = authorityOf(facts({ memberRoleIds: ['999'] }));
    expect(hasPermission(a, Permission.ManageRoles)).toBe(false);
  });
});

describe('dangerousPermissionsOf', () => {
  it.each([
    [Permission.Administrator, ['Administrator']],
    [Permission.ManageGuild, ['Manage Server']],
    [Permission.ManageRoles, ['Manage Roles']],
    [Permission.ManageChannels, ['Manage Channels']],
    [Permission.KickMembers, ['Kick Members']],
    [Permission.BanMembers, ['Ban Members']],
    [Permission.ManageWebhooks, ['Manage Webhooks']],
    [Permission.ModerateMembers, ['Moderate Members']],
    [Permission.MentionEveryone, ['Mention @everyone, @here, and All Roles']],
    [(1n << 10n) | (1n << 11n) | (1n << 27n), []],
    [Permission.KickMembers | Permission.BanMembers, ['Kick Members', 'Ban Members']],
  ])('%s → %j', (bits, names) => {
    expect(dangerousPermissionsOf(String(bits))).toEqual(names);
  });
});

describe('checkRoleAuthority', () => {
  type Row = [string, Partial<ActorFacts>, HierarchyRole, AuthorityRefusalCode | 'ok'];
  it.each<Row>([
    ['a moderator, a plain role below him', {}, bronze, 'ok'],
    ['a moderator, a role at the same position with a newer id (ranks below)', {}, twinBelow, 'ok'],
    ['a moderator, a role at the same position with an older id (ranks above)', {}, twinAbove, 'at_or_above'],
    ['a moderator, his own highest role', {}, moderator, 'at_or_above'],
    ['a moderator, a plain role above him', {}, senior, 'at_or_above'],
    ['a moderator, an Administrator role above him', {}, headAdmin, 'at_or_above'],
    ['a moderator, a role with Kick Members below him', {}, kickHelper, 'dangerous'],
    ['a moderator, a role with Mention Everyone below him', {}, pinger, 'dangerous'],
    ['a member without Manage Roles, a plain role', { memberRoleIds: [senior.id] }, bronze, 'missing_permission'],
    ['a member with no role at all', { memberRoleIds: [] }, bronze, 'missing_permission'],
    ['the owner, an Administrator role', { userId: OWNER, memberRoleIds: [] }, headAdmin, 'ok'],
    ['the owner, a role above every role he has', { userId: OWNER, memberRoleIds: [bronze.id] }, senior, 'ok'],
    [
      'an Administrator, a role above his highest (Discord does not let Administrator pass the hierarchy)',
      { memberRoleIds: [headAdmin.id] },
      bot,
      'at_or_above',
    ],
    ['an Administrator, his own highest role', { memberRoleIds: [headAdmin.id] }, headAdmin, 'at_or_above'],
    ['an Administrator, a plain role below him', { memberRoleIds: [headAdmin.id] }, senior, 'ok'],
    ['an Administrator, a dangerous role', { memberRoleIds: [headAdmin.id] }, kickHelper, 'ok'],
    [
      'Manage Roles from @everyone, a role below nothing he holds',
      { memberRoleIds: [], roles: roles.map((r) => (r.id === GUILD ? { ...r, permissions: String(Permission.ManageRoles) } : r)) },
      bronze,
      'at_or_above',
    ],
    ['Manage Roles from a lower role, the highest role decides', { memberRoleIds: [moderator.id, senior.id] }, twinAbove, 'ok'],
  ])('%s', (_label, overrides, target, expected) => {
    const result = checkRoleAuthority(authorityOf(facts(overrides)), target);
    expect(result.ok ? 'ok' : result.error.code).toBe(expected);
  });

  it('says what Discord’s rule is and who can do it instead', () => {
    const above = checkRoleAuthority(authorityOf(facts()), headAdmin);
    expect(above).toEqual({
      ok: false,
      error: {
        code: 'at_or_above',
        roleId: headAdmin.id,
        roleName: 'Head Admin',
        message:
          'Head Admin is at or above your highest role, Moderator. Discord lets you give or take away only roles below your own ' +
          'highest role, and Tierlink keeps the same rule.',
        fix: 'Ask someone whose highest role is above Head Admin, or the server owner, to do this.',
        highestName: 'Moderator',
      },
    });
    const dangerous = checkRoleAuthority(authorityOf(facts()), kickHelper);
    expect(!dangerous.ok && dangerous.error.message).toBe(
      'Kick Helper has the Kick Members permission. Only the server owner or an administrator can have Tierlink give or take ' +
        'away a role with that kind of power: everyone Tierlink gives it to would have it.',
    );
    expect(!dangerous.ok && dangerous.error.fix).toBe(
      'Ask the server owner or someone with Administrator to do this, or remove that permission from Kick Helper first.',
    );
    const none = checkRoleAuthority(
      authorityOf(
        facts({ memberRoleIds: [], roles: roles.map((r) => (r.id === GUILD ? { ...r, permissions: String(Permission.ManageRoles) } : r)) }),
      ),
      bronze,
    );
    expect(!none.ok && none.error.message).toMatch(/^Bronze is above you: you have no role in this server\./);
  });
});

describe('heldBack: a role with dangerous permissions is granted only as far as the owner or an administrator allowed it', () => {
  const kick = Permission.KickMembers;
  const ban = Permission.BanMembers;
  const named = (permissions: bigint) => ({ name: 'Helpers', permissions: String(permissions) });

  test('a role without a dangerous permission is never held back, allowed or not', () => {
    expect(heldBack(named(1n << 10n), undefined)).toBeNull();
    expect(heldBack(named(0n), 0n)).toBeNull();
  });

  test('a dangerous role nobody allowed is held back, naming its permissions and the way to allow it', () => {
    expect(heldBack(named(kick | ban | (1n << 10n)), undefined)).toEqual({
      message:
        'Helpers is held back: it has the Kick Members and Ban Members permissions, and the server owner or an administrator has not allowed Tierlink to give it.',
      fix: 'The server owner or an administrator can allow it with /allow-role role:@Helpers, or remove those permissions from Helpers.',
      permissions: ['Kick Members', 'Ban Members'],
      gained: false,
    });
  });

  test('an allowance covers the permissions allowed, and no permission the role gains later', () => {
    expect(heldBack(named(kick), kick)).toBeNull();
    expect(heldBack(named(kick), kick | ban)).toBeNull();
    const gained = heldBack(named(kick | ban), kick);
    expect(gained).toMatchObject({ permissions: ['Ban Members'], gained: true });
    expect(gained!.message).toBe(
      'Helpers is held back: it gained the Ban Members permission since the server owner or an administrator allowed it, so Tierlink no longer gives it.',
    );
    // An allowance recorded with no dangerous bit (nothing to allow then) covers nothing.
    expect(heldBack(named(Permission.Administrator), 0n)).toMatchObject({ permissions: ['Administrator'], gained: true });
  });

  test('guildRoles judges every role with the allowances given, and with none when none are given', () => {
    const roles = [
      role(GUILD, '@everyone', 0),
      role('1', 'Admins', 3, Permission.Administrator),
      role('2', 'Plain', 2),
      role('3', 'Bot', 9, Permission.ManageRoles),
    ];
    const snapshot = { roles, botRoleIds: ['3'] };
    expect(guildRoles(GUILD, snapshot).get('1')!.heldBack).toMatchObject({ permissions: ['Administrator'], gained: false });
    expect(guildRoles(GUILD, snapshot).get('2')!.heldBack).toBeNull();
    expect(guildRoles(GUILD, snapshot, new Map([['1', Permission.Administrator]])).get('1')!.heldBack).toBeNull();
  });
});
