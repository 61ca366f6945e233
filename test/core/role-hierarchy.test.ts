import type { HierarchyRole, RoleProblemCode } from '../../src/core/role-hierarchy';
import {
  ADMINISTRATOR,
  MANAGE_ROLES,
  botHighestRole,
  checkRoleAssignable,
  compareRolePositions,
  highestRoleOf,
} from '../../src/core/role-hierarchy';

const GUILD = '100000000000000000';
const role = (id: string, name: string, position: number, extra: Partial<HierarchyRole> = {}): HierarchyRole => ({
  id,
  name,
  position,
  permissions: '0',
  managed: false,
  ...extra,
});

const everyone = role(GUILD, '@everyone', 0);
const bronze = role('100000000000000001', 'Bronze', 1);
const gold = role('100000000000000002', 'Gold', 2);
const bot = role('100000000000000003', 'Tierlink', 3, { managed: true, permissions: String(MANAGE_ROLES) });
const staff = role('100000000000000004', 'Staff', 4);
const booster = role('100000000000000005', 'Server Booster', 1, { managed: true });
// Same position as the bot role but a newer (larger) id: Discord ranks it below the bot role.
const twinBelow = role('100000000000000006', 'Twin', 3);
// Same position with an older (smaller) id ranks above.
const twinAbove = role('99999999999999999', 'Older Twin', 3);
const roles = [everyone, bronze, gold, bot, staff, booster, twinBelow, twinAbove];

describe('checkRoleAssignable', () => {
  it.each<[string, Partial<{ roles: HierarchyRole[]; botRoleIds: string[]; botIsOwner: boolean }>, string, RoleProblemCode | 'ok']>([
    ['a role below the bot', {}, gold.id, 'ok'],
    ['the lowest role', {}, bronze.id, 'ok'],
    ['@everyone', {}, GUILD, 'everyone'],
    ['a managed role below the bot', {}, booster.id, 'managed'],
    ["the bot's own role", {}, bot.id, 'managed'],
    ['a role above the bot', {}, staff.id, 'above_bot'],
    ['a role at the same position with an older id', {}, twinAbove.id, 'above_bot'],
    ['a role at the same position with a newer id', {}, twinBelow.id, 'ok'],
    ['a role that does not exist', {}, '100000000000000099', 'unknown_role'],
    [
      'any role without Manage Roles',
      { roles: roles.map((r) => (r.id === bot.id ? { ...r, permissions: '0' } : r)) },
      gold.id,
      'missing_manage_roles',
    ],
    [
      'with Administrator instead of Manage Roles',
      { roles: roles.map((r) => (r.id === bot.id ? { ...r, permissions: String(ADMINISTRATOR) } : r)) },
      gold.id,
      'ok',
    ],
    [
      'with Manage Roles granted to @everyone',
      {
        roles: roles.map((r) =>
          r.id === bot.id ? { ...r, permissions: '0' } : r.id === GUILD ? { ...r, permissions: String(MANAGE_ROLES) } : r,
        ),
      },
      gold.id,
      'ok',
    ],
    ['a role above the bot when the bot has a second, higher role', { botRoleIds: [bot.id, staff.id] }, gold.id, 'ok'],
    ['a role above the bot when the bot owns the guild', { botIsOwner: true }, staff.id, 'ok'],
    ['anything when the bot has no role at all', { botRoleIds: [] }, bronze.id, 'missing_manage_roles'],
  ])('%s', (_name, overrides, roleId, expected) => {
    const result = checkRoleAssignable({
      guildId: GUILD,
      roles: overrides.roles ?? roles,
      botRoleIds: overrides.botRoleIds ?? [bot.id],
      roleId,
      botIsOwner: overrides.botIsOwner,
    });
    expect(result.ok ? 'ok' : result.error.code).toBe(expected);
  });

  it('tells the creator which role to move above which', () => {
    const result = checkRoleAssignable({ guildId: GUILD, roles, botRoleIds: [bot.id], roleId: staff.id });
    expect(result).toEqual({
      ok: false,
      error: {
        code: 'above_bot',
        roleId: staff.id,
        roleName: 'Staff',
        botRoleName: 'Tierlink',
        message: expect.stringContaining('Staff') as unknown as string,
        fix: 'Move the Tierlink role above Staff in Server Settings → Roles.',
      },
    });
  });

  it('names the role and the permission in the Manage Roles fix', () => {
    const noPerms = roles.map((r) => (r.id === bot.id ? { ...r, permissions: '0' } : r));
    const result = checkRoleAssignable({ guildId: GUILD, roles: noPerms, botRoleIds: [bot.id], roleId: gold.id });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.fix).toMatch(/Manage Roles.*Tierlink/);
  });
});

describe('role ordering', () => {
  it('ranks by position, then older ids above newer ones', () => {
    expect(compareRolePositions(staff, gold)).toBeGreaterThan(0);
    expect(compareRolePositions(twinAbove, bot)).toBeGreaterThan(0);
    expect(compareRolePositions(twinBelow, bot)).toBeLessThan(0);
    expect(compareRolePositions(gold, gold)).toBe(0);
  });

  it("finds the bot's highest role, @everyone when it has none", () => {
    expect(botHighestRole(GUILD, roles, [bronze.id, staff.id, gold.id])?.id).toBe(staff.id);
    expect(botHighestRole(GUILD, roles, [])?.id).toBe(GUILD);
  });
});

describe('highestRoleOf', () => {
  const roles = [
    role(GUILD, '@everyone', 0),
    role('200000000000000002', 'Low', 1),
    role('200000000000000001', 'Old', 5),
    role('200000000000000003', 'New', 5),
  ];

  test('the highest of the member’s roles, ties going to the older id as in Discord', () => {
    expect(highestRoleOf(GUILD, roles, ['200000000000000002', '200000000000000003', '200000000000000001'])?.name).toBe('Old');
    expect(highestRoleOf(GUILD, roles, ['200000000000000002', '200000000000000003'])?.name).toBe('New');
  });

  test('@everyone for a member with no role, and roles the guild no longer has are ignored', () => {
    expect(highestRoleOf(GUILD, roles, [])?.name).toBe('@everyone');
    expect(highestRoleOf(GUILD, roles, ['299999999999999999'])?.name).toBe('@everyone');
  });
});
