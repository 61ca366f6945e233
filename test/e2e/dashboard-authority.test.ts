import { Permission } from '@tierlink/sandbox/discord';
import { signIn } from '../support/dashboard-client';
import { type E2E, pageText, startE2E } from '../support/e2e';
import { MANAGE_ROLES, roleOption, runCommand, tierOption } from '../support/e2e-admin';

/**
 * The authority rule on the dashboard as in the command: nobody has Tierlink grant a role at or
 * above their own highest role. The rule lives in the mapping service (the actor is the signed-in
 * user); the page shows the service's refusal and saves nothing.
 */

let e: E2E;
let moderator: string;
let senior: string;
beforeAll(async () => {
  e = await startE2E({ connected: true });
  const moderators = e.discord.createRole(e.guildId, { name: 'Moderators', position: 1, permissions: Permission.ManageRoles }).id;
  senior = e.discord.createRole(e.guildId, { name: 'Senior Patrons', position: 2 }).id;
  moderator = e.discord.addMember(e.guildId, { username: 'mod', roleIds: [moderators] }).userId;
  const roles = e.discord.guild(e.guildId).roles;
  const position = (id: string) => roles.find((r) => r.id === id)!.position;
  const bot = e.discord.guild(e.guildId).botRoleId;
  // Senior Patrons: above the moderator's highest role, below the bot's (so only the editor's rank refuses it).
  if (!(position(moderators) < position(senior) && position(senior) < position(bot))) throw new Error('unexpected role order');
}, 60_000);
afterAll(() => e?.stop());

test('a role above the editor’s highest role is refused on the page, as /map refuses it', async () => {
  const { browser } = await signIn(e, moderator);
  const tiers = await browser.get(`/dashboard/${e.guildId}/tiers`);
  expect(tiers.status).toBe(200);
  const answer = await browser.post(`/dashboard/${e.guildId}/tiers/map`, { tier: 'Gold', role: senior }, { csrfFrom: tiers.html });
  const page = pageText((await browser.follow(answer)).html);
  expect(page).toContain('Nothing was changed:');
  expect(page).not.toContain('now gives');
  expect(await e.tierlink.services.repos.mappings.of(e.guildId)).toEqual([]);

  const command = await runCommand(e, {
    userId: moderator,
    name: 'map',
    options: [tierOption('Gold'), roleOption('role', senior)],
    memberPermissions: MANAGE_ROLES,
  }).reply();
  expect(command.content).not.toContain('now grants');
  expect(await e.tierlink.services.repos.mappings.of(e.guildId)).toEqual([]);
});
