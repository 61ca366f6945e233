import { type E2E, startE2E } from '../support/e2e';
import { EVERYONE, MANAGE_ROLES, activePatron, boolOption, roleOption, runCommand, tierOption } from '../support/e2e-admin';

/**
 * `/sync adopt:true` records roles members already hold as Tierlink's grants, so Tierlink takes
 * them away when the pledge ends. A moderator must not have the bot take away, later, a role he
 * could not take away himself: he needs authority over every tier role of the server.
 */

let e: E2E;
let mod: string;
let gail: string;
let paula: string;
const role = { moderator: '', senior: '' };

const asMod = (name: string, options: Array<Record<string, unknown>> = []) =>
  runCommand(e, { userId: mod, name, options, memberPermissions: EVERYONE | MANAGE_ROLES });
const asOwner = (name: string, options: Array<Record<string, unknown>> = []) =>
  runCommand(e, { userId: e.ownerId, name, options, memberPermissions: MANAGE_ROLES });
const ledgerRoles = async (userId: string) =>
  (await e.tierlink.services.repos.ledger.forUser(e.guildId, userId)).map((row) => row.roleId).sort();

beforeAll(async () => {
  e = await startE2E({ connected: true });
  const botPosition = () => e.discord.guild(e.guildId).roles.find((r) => r.id === e.discord.guild(e.guildId).botRoleId)!.position;
  role.moderator = e.discord.createRole(e.guildId, { name: 'Moderator', permissions: MANAGE_ROLES, position: botPosition() }).id;
  role.senior = e.discord.createRole(e.guildId, { name: 'Senior', permissions: 0n, position: botPosition() }).id;
  mod = e.discord.addMember(e.guildId, { username: 'mod', roleIds: [role.moderator] }).userId;
  // Both hold their tier roles by hand before they link: nothing of theirs is Tierlink's yet.
  gail = e.discord.addMember(e.guildId, { username: 'gail', roleIds: [e.roles.gold] }).userId;
  await e.link(gail, activePatron(e, 'Gail', [e.tiers.gold]).id);
  paula = e.discord.addMember(e.guildId, { username: 'paula', roleIds: [e.roles.silver, role.senior] }).userId;
  await e.link(paula, activePatron(e, 'Paula', [e.tiers.silver]).id);
}, 60_000);
afterAll(() => e?.stop());

test('with every tier role below him, a moderator may adopt', async () => {
  expect(await ledgerRoles(gail)).toEqual([]);
  const run = await asMod('sync', [boolOption('adopt', true)]).until(/Full sync|refused|may not/);
  expect(run.content).toMatch(/^Full sync: ok/);
  expect(await ledgerRoles(gail)).toEqual([e.roles.gold]);
}, 60_000);

test('once a tier grants a role above him, the moderator’s adopt is refused and adopts nothing; the owner’s adopts it', async () => {
  const silver = `${e.patreon.campaignId}:${e.tiers.silver}`;
  const mapped = await asOwner('map', [tierOption(silver), roleOption('role', role.senior)]).until(/Updated|failed/);
  expect(mapped.content).toMatch(/now grants \*\*Senior\*\*/);
  expect(await ledgerRoles(paula)).toEqual([e.roles.silver]);

  const refused = await asMod('sync', [boolOption('adopt', true)]).reply();
  expect(refused.content).toMatch(/^Adopting would make Tierlink take Senior away from members when their pledge ends/);
  expect(refused.content).toContain('Senior is at or above your highest role, Moderator');
  expect(await ledgerRoles(paula)).toEqual([e.roles.silver]);

  // A dry run changes nothing, so it stays open to him.
  const dry = await asMod('sync', [boolOption('dry_run', true), boolOption('adopt', true)]).reply();
  expect(dry.content).toContain('Would adopt: 1 role');

  const owner = await asOwner('sync', [boolOption('adopt', true)]).until(/Full sync|refused/);
  expect(owner.content).toMatch(/^Full sync: ok/);
  expect(await ledgerRoles(paula)).toEqual([e.roles.silver, role.senior].sort());
}, 60_000);
