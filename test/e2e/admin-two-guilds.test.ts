import { PermissionFlagsBits } from 'discord.js';
import { type E2E, startE2E } from '../support/e2e';
import {
  MANAGE_ROLES,
  activePatron,
  autocompleteIn,
  connectIn,
  roleOption,
  runCommand,
  stringOption,
  tierOption,
  waitForGuildKnown,
} from '../support/e2e-admin';

/**
 * One campaign serving two servers, each with its own mapping and settings. No DISCORD_GUILD_ID:
 * commands are registered globally, so the second server, which invites the bot after start, has
 * them too.
 */
let e: E2E;
const second = { guildId: '', ownerId: '100000000000000098', members: '', backers: '' };
let ada: string;

const inSecond = (name: string, options: Array<Record<string, unknown>> = []) =>
  runCommand(e, { guildId: second.guildId, userId: second.ownerId, name, options, memberPermissions: MANAGE_ROLES });
const inFirst = (name: string, options: Array<Record<string, unknown>> = []) =>
  runCommand(e, { userId: e.ownerId, name, options, memberPermissions: MANAGE_ROLES });

beforeAll(async () => {
  e = await startE2E({ env: { DISCORD_GUILD_ID: '' } });
  ({ guildId: second.guildId } = e.discord.createGuild({
    name: 'Second Club',
    ownerId: second.ownerId,
    botPermissions: PermissionFlagsBits.ManageRoles | PermissionFlagsBits.CreateInstantInvite,
  }));
  second.members = e.discord.createRole(second.guildId, { name: 'Gold Members' }).id;
  second.backers = e.discord.createRole(second.guildId, { name: 'Backers' }).id;
  await waitForGuildKnown(e, second.guildId);
}, 60_000);
afterAll(() => e?.stop());

test('without DISCORD_GUILD_ID the commands are registered globally', () => {
  expect(e.discord.commands().map((c) => c.name)).toEqual(expect.arrayContaining(['link', 'connect', 'map', 'comp', 'allow-role']));
  expect(e.discord.commands()).toHaveLength(14);
  expect(e.discord.commandPutCount()).toBe(1);
  expect(e.discord.commands(e.guildId)).toEqual([]);
  expect(e.discord.commands(second.guildId)).toEqual([]);
});

test('the same campaign connects to both servers, with one webhook', async () => {
  expect((await e.connect()).status).toBe(200);
  const page = await connectIn(e, second.guildId, second.ownerId);
  expect(page.status).toBe(200);
  const { repos } = e.tierlink.services;
  expect(await repos.guilds.campaignsOf(e.guildId)).toEqual([e.patreon.campaignId]);
  expect(await repos.guilds.campaignsOf(second.guildId)).toEqual([e.patreon.campaignId]);
  expect(await repos.guilds.guildsOf(e.patreon.campaignId)).toEqual([e.guildId, second.guildId].sort());
  expect(e.patreon.webhooks()).toHaveLength(1);
});

test('each server maps the tiers to its own roles and keeps its own settings', async () => {
  // The first server: the tiers' own roles, plus Staff for Gold.
  expect((await inFirst('map', [tierOption('Gold'), roleOption('role', e.roles.staff)]).until(/Updated/)).content).toContain(
    '**Gold** now grants **Staff**.',
  );
  // The second server: its own roles, and only the highest tier's.
  const choices = await autocompleteIn(e, {
    guildId: second.guildId,
    userId: second.ownerId,
    name: 'map',
    options: [tierOption('g')],
    focused: 'tier',
  });
  expect(choices).toEqual([{ name: 'Gold — $10 a month', value: `${e.patreon.campaignId}:${e.tiers.gold}` }]);
  await inSecond('map', [tierOption(choices[0]!.value), roleOption('role', second.members)]).until(/Updated/);
  await inSecond('map', [tierOption('Bronze'), roleOption('role', second.backers)]).until(/Updated/);
  await inSecond('settings', [stringOption('mode', 'highest')]).until(/Updated|failed/);

  const { repos } = e.tierlink.services;
  expect((await repos.mappings.of(e.guildId)).map((m) => m.roleId)).toEqual([e.roles.staff]);
  expect((await repos.mappings.of(second.guildId)).map((m) => m.roleId)).toEqual([second.members, second.backers]);
  expect((await repos.guilds.settings(e.guildId)).mode).toBe('stack');
  expect((await repos.guilds.settings(second.guildId)).mode).toBe('highest');

  // A role of the other server is not one this server can map or unmap.
  expect((await inFirst('unmap', [tierOption('Gold'), roleOption('role', e.roles.gold)]).reply()).content).toContain(
    'Gold’s Discord role on Patreon',
  );

  // Each server lists its own roles; the tiers' chat_role_ids belong to the first server and are not a problem in the second.
  const tiers = (await inSecond('tiers').reply()).content;
  expect(tiers).toContain(`<@&${second.members}> (from /map)`);
  expect(tiers).toContain(`<@&${second.backers}> (from /map)`);
  expect(tiers).toContain('(its Discord roles on Patreon are roles of **Fan Club**, not of this server)');
  expect(tiers).toContain('**Silver** — $5 a month · 0 patrons\n  • no role in this server — map one with /map tier:Silver');
  expect(tiers).not.toContain('⚠️');
  expect(tiers).not.toContain(e.roles.gold);
  const firstTiers = (await inFirst('tiers').reply()).content;
  expect(firstTiers).not.toContain(second.members);
  expect(firstTiers).toContain(`<@&${e.roles.staff}> (from /map)`);

  expect((await inSecond('doctor').reply()).content.split('\n')[0]).toBe('**All good.** Everything Tierlink needs is in place.');
  expect((await inFirst('doctor').reply()).content.split('\n')[0]).toBe('**All good.** Everything Tierlink needs is in place.');
});

test('a patron in both servers gets each server’s roles from one /link, and a pledge change moves both', async () => {
  const member = e.discord.addMember(e.guildId, { username: 'ada' });
  ada = member.userId;
  e.discord.addMember(second.guildId, { userId: ada });
  const patron = activePatron(e, 'Ada', [e.tiers.bronze, e.tiers.gold]);
  await e.link(ada, patron.id);
  expect(e.discord.memberRoles(e.guildId, ada).sort()).toEqual([e.roles.bronze, e.roles.gold, e.roles.staff].sort());
  expect(e.discord.memberRoles(second.guildId, ada)).toEqual([second.members]);

  // Down to Bronze, told by the webhook.
  e.patreon.setMembership(patron.id, e.patreon.campaignId, {
    patronStatus: 'active_patron',
    tierIds: [e.tiers.bronze],
    lastChargeDate: e.clock.now(),
    lastChargeStatus: 'Paid',
  });
  await e.discord.waitForMemberRole(second.guildId, ada, second.backers, { present: true });
  await e.discord.waitForMemberRole(second.guildId, ada, second.members, { present: false });
  await e.discord.waitForMemberRole(e.guildId, ada, e.roles.gold, { present: false });
  await e.discord.waitForMemberRole(e.guildId, ada, e.roles.staff, { present: false });
  expect(e.discord.memberRoles(e.guildId, ada)).toEqual([e.roles.bronze]);
  expect(e.discord.memberRoles(second.guildId, ada)).toEqual([second.backers]);
});

test('a mapping change in one server reconciles that server only', async () => {
  const unmap = await inSecond('unmap', [tierOption('Bronze'), roleOption('role', second.backers)]).until(/Updated/);
  expect(unmap.content).toMatch(/Updated: 1 role change across 1 member\.$/);
  expect(e.discord.memberRoles(second.guildId, ada)).toEqual([]);
  expect(e.discord.memberRoles(e.guildId, ada)).toEqual([e.roles.bronze]);
});
