import { PermissionFlagsBits } from 'discord.js';
import { DEFAULT_SETTINGS } from '../../src/core/planner/settings';
import { type E2E, startE2E } from '../support/e2e';
import { EVERYONE, MANAGE_ROLES, boolOption, intOption, runCommand, stringOption } from '../support/e2e-admin';

/**
 * Attack: a moderator with Manage Roles (trusted with roles, not with the server's rules) sets
 * `grace_days:0`, turns the mass-removal guard off, switches to highest mode or opens the join page
 * to everyone. Refusal: the server's rules need Manage Server, and weakening them needs the owner or
 * an Administrator; a manager may still tighten them.
 */

let e: E2E;
let moderator: string;
let manager: string;
const settings = () => e.tierlink.services.repos.guilds.settings(e.guildId);
const as = (userId: string, options: Array<Record<string, unknown>>) =>
  runCommand(e, { userId, name: 'settings', options, memberPermissions: EVERYONE | MANAGE_ROLES }).reply();

beforeAll(async () => {
  e = await startE2E({ connected: true });
  const botPosition = () => e.discord.guild(e.guildId).roles.find((r) => r.id === e.discord.guild(e.guildId).botRoleId)!.position;
  const below = (name: string, permissions: bigint) => e.discord.createRole(e.guildId, { name, permissions, position: botPosition() }).id;
  moderator = e.discord.addMember(e.guildId, { username: 'mod', roleIds: [below('Moderator', MANAGE_ROLES)] }).userId;
  manager = e.discord.addMember(e.guildId, {
    username: 'manager',
    roleIds: [below('Manager', MANAGE_ROLES | PermissionFlagsBits.ManageGuild)],
  }).userId;
}, 60_000);
afterAll(() => e?.stop());

test.each([
  ['grace_days:0', [intOption('grace_days', 0)], 'the grace period'],
  ['the mass-removal guard off', [intOption('removal_threshold_percent', 100)], 'the mass-removal guard'],
  ['highest mode', [stringOption('mode', 'highest')], 'the mode'],
  ['the join page open to everyone', [boolOption('join_non_patrons', true)], 'who may join through the join page'],
])('a moderator with Manage Roles only cannot set %s: it needs Manage Server', async (_name, options, what) => {
  const reply = await as(moderator, options);
  expect(reply.content).toBe(
    `Nothing was changed:\n• Changing ${what} needs the Manage Server permission: these are the server’s rules, not a role. **Fix:** Ask someone with Manage Server, the server owner or an administrator.`,
  );
  expect(await settings()).toEqual(expect.objectContaining(DEFAULT_SETTINGS));
});

test('a manager with Manage Server may tighten the rules, and may not weaken them', async () => {
  const tighter = await runCommand(e, {
    userId: manager,
    name: 'settings',
    options: [intOption('grace_days', 10), intOption('removal_threshold_percent', 5)],
    memberPermissions: EVERYONE | MANAGE_ROLES,
  }).until(/Settings saved/);
  expect(tighter.content).toMatch(/^\*\*Settings saved\*\*/);
  expect(await settings()).toMatchObject({ graceDays: 10, removalThresholdPercent: 5 });

  for (const [options, words] of [
    [[intOption('grace_days', 0)], 'Shortening the grace period from 10 to 0 days'],
    [[intOption('removal_threshold_min', 100_000)], 'Letting larger mass removals through the guard'],
    [[stringOption('mode', 'highest')], 'Switching to highest mode'],
    [[boolOption('join_non_patrons', true)], 'Opening the join page to people whose tier gives no role here'],
  ] as const) {
    const reply = await as(manager, [...options]);
    expect(reply.content).toContain(`Nothing was changed:\n• ${words}`);
    expect(reply.content).toContain('only the server owner or an administrator can do that.');
  }
  expect(await settings()).toMatchObject({ graceDays: 10, removalThresholdPercent: 5, mode: 'stack', joinNonPatrons: false });
});

test('the owner may weaken them', async () => {
  const owner = await runCommand(e, {
    userId: e.ownerId,
    name: 'settings',
    options: [intOption('grace_days', 0), boolOption('join_non_patrons', true)],
    memberPermissions: MANAGE_ROLES,
  }).until(/Settings saved/);
  expect(owner.content).toMatch(/^\*\*Settings saved\*\*/);
  expect(await settings()).toMatchObject({ graceDays: 0, joinNonPatrons: true });
});
