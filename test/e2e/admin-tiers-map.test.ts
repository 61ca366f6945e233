import { MINUTE } from '../../src/shared/clock';
import { type E2E, startE2E } from '../support/e2e';
import { MANAGE_ROLES, activePatron, roleOption, runCommand, tierOption } from '../support/e2e-admin';

let e: E2E;
/** Ada: Gold patron, linked. Bob: Silver patron, linked. Carl: Gold patron, linked, and holds Staff by hand. */
let ada: string;
let bob: string;
let carl: string;

const mapping = (name: 'map' | 'unmap', tier: string, roleId: string) =>
  runCommand(e, { userId: e.ownerId, name, options: [tierOption(tier), roleOption('role', roleId)], memberPermissions: MANAGE_ROLES });
const tiers = async () => (await runCommand(e, { userId: e.ownerId, name: 'tiers', memberPermissions: MANAGE_ROLES }).reply()).content;
const tierLines = (content: string, title: string) => {
  const lines = content.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`**${title}**`));
  const end = lines.findIndex((l, i) => i > start && l.startsWith('**'));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
};

beforeAll(async () => {
  e = await startE2E({ connected: true });
  const link = async (name: string, tierId: string) => {
    const member = e.discord.addMember(e.guildId, { username: name.toLowerCase() });
    await e.link(member.userId, activePatron(e, name, [tierId]).id);
    return member.userId;
  };
  ada = await link('Ada', e.tiers.gold);
  bob = await link('Bob', e.tiers.silver);
  carl = await link('Carl', e.tiers.gold);
  e.discord.setMemberRolesByHand(e.guildId, carl, [...e.discord.memberRoles(e.guildId, carl), e.roles.staff]);
}, 60_000);
afterAll(() => e?.stop());

test('/tiers lists each tier with its price and the roles it grants, marked chat_role_ids', async () => {
  const content = await tiers();
  expect(content.split('\n')[0]).toBe('**Casey Creator**');
  expect(tierLines(content, 'Bronze')).toBe(
    `**Bronze** — $3 a month · 0 patrons\n  • <@&${e.roles.bronze}> (from the tier’s Discord role on Patreon)`,
  );
  expect(tierLines(content, 'Silver')).toMatch(
    /^\*\*Silver\*\* — \$5 a month · \d+ patrons?\n {2}• <@&\d+> \(from the tier’s Discord role on Patreon\)$/,
  );
  expect(tierLines(content, 'Gold')).toContain(`<@&${e.roles.gold}> (from the tier’s Discord role on Patreon)`);
  expect(content).not.toContain('⚠️');
});

test('autocomplete offers the stored tiers matching what is typed, cheapest first', async () => {
  const all = await e.autocomplete(e.ownerId, 'map', [tierOption(''), roleOption('role', e.roles.staff)], 'tier', MANAGE_ROLES);
  expect(all.map((c) => c.name)).toEqual(['Bronze — $3 a month', 'Silver — $5 a month', 'Gold — $10 a month']);
  expect(all.map((c) => c.value)).toEqual([e.tiers.bronze, e.tiers.silver, e.tiers.gold].map((t) => `${e.patreon.campaignId}:${t}`));
  expect(await e.autocomplete(e.ownerId, 'map', [tierOption('GO')], 'tier', MANAGE_ROLES)).toEqual([
    { name: 'Gold — $10 a month', value: `${e.patreon.campaignId}:${e.tiers.gold}` },
  ]);
  expect(await e.autocomplete(e.ownerId, 'unmap', [tierOption('diamond')], 'tier', MANAGE_ROLES)).toEqual([]);
});

test('/map refuses a role above the bot, with the fix, and maps nothing', async () => {
  const reply = await mapping('map', `${e.patreon.campaignId}:${e.tiers.gold}`, e.roles.vip).reply();
  expect(reply.content).toBe(
    "Nothing was mapped: I can’t manage that role. VIP is at or above Tierlink, the bot's highest role, so Discord refuses to assign it.\n" +
      '**Fix:** Move the Tierlink role above VIP in Server Settings → Roles.',
  );
  expect(reply.ephemeral).toBe(true);
  expect(await e.tierlink.services.repos.mappings.of(e.guildId)).toEqual([]);
  expect(e.discord.memberRoles(e.guildId, ada)).not.toContain(e.roles.vip);
});

test('/map refuses a managed role and @everyone, each with its fix', async () => {
  const botRole = e.discord.guild(e.guildId).botRoleId;
  const managed = await mapping('map', 'Gold', botRole).reply();
  expect(managed.content).toContain('Tierlink is managed by an integration');
  expect(managed.content).toContain('**Fix:** Create an ordinary role for the tier and map the tier to it instead of Tierlink.');
  const everyone = await mapping('map', 'Gold', e.guildId).reply();
  expect(everyone.content).toContain('@everyone belongs to every member');
  expect(await e.tierlink.services.repos.mappings.of(e.guildId)).toEqual([]);
});

test('/map reconciles the tier’s patrons in the background and reports how many roles changed', async () => {
  const map = mapping('map', `${e.patreon.campaignId}:${e.tiers.gold}`, e.roles.staff);
  const done = await map.until(/Updated/);
  expect(map.contents()[0]).toBe('**Gold** now grants **Staff**. Updating members’ roles…');
  // Ada gets Staff; Carl already held it by hand; Bob is Silver.
  expect(done.content).toBe('**Gold** now grants **Staff**. Updated: 1 role change across 3 members.');
  expect(e.discord.memberRoles(e.guildId, ada)).toEqual(expect.arrayContaining([e.roles.gold, e.roles.staff]));
  expect(e.discord.memberRoles(e.guildId, bob)).not.toContain(e.roles.staff);

  expect(tierLines(await tiers(), 'Gold')).toContain(`<@&${e.roles.staff}> (from /map)`);

  const again = await mapping('map', 'gold', e.roles.staff).reply();
  expect(again.content).toBe('**Gold** already grants **Staff**.');
});

test('/unmap removes the mapping and the roles Tierlink granted for it, never a role given by hand', async () => {
  const unmap = mapping('unmap', `${e.patreon.campaignId}:${e.tiers.gold}`, e.roles.staff);
  const done = await unmap.until(/Updated/);
  expect(done.content).toBe('**Gold** no longer grants **Staff** through /map. Updated: 1 role change across 3 members.');
  expect(e.discord.memberRoles(e.guildId, ada)).toEqual([e.roles.gold]);
  expect(e.discord.memberRoles(e.guildId, carl)).toEqual(expect.arrayContaining([e.roles.gold, e.roles.staff]));
  expect(tierLines(await tiers(), 'Gold')).not.toContain('/map');

  const nothing = await mapping('unmap', 'Gold', e.roles.staff).reply();
  expect(nothing.content).toBe('**Gold** does not map to **Staff** through /map, so there was nothing to remove.');
  const own = await mapping('unmap', 'Gold', e.roles.gold).reply();
  expect(own.content).toContain('Gold’s Discord role on Patreon');
  expect(e.discord.memberRoles(e.guildId, ada)).toEqual([e.roles.gold]);
});

test('a tier that is not the server’s is refused', async () => {
  const reply = await mapping('map', 'Diamond', e.roles.staff).reply();
  expect(reply.content).toBe('That tier is not one of this server’s campaigns. Pick one from the list (run /tiers to see them).');
});

test('/tiers warns about a role above the bot and a mapped role deleted while Tierlink was offline, each with its fix', async () => {
  e.discord.updateRole(e.guildId, e.roles.silver, { position: 30 });
  // A role deleted while the bot was offline: no event came, so its /map row is still there.
  // (Deleted while online, the row goes at once: test/e2e/role-deleted.test.ts.)
  const extra = '1573306918502400068';
  await e.tierlink.services.repos.mappings.add(
    e.guildId,
    { campaignId: e.patreon.campaignId, tierId: e.tiers.gold, roleId: extra },
    e.ownerId,
  );

  const content = await tiers();
  expect(tierLines(content, 'Silver')).toContain(
    `<@&${e.roles.silver}> (from the tier’s Discord role on Patreon) ⚠️ Silver is at or above Tierlink, the bot's highest role, so Discord refuses to assign it. → Move the Tierlink role above Silver in Server Settings → Roles.`,
  );
  expect(tierLines(content, 'Gold')).toContain(
    `role ${extra} (from /map) ⚠️ role ${extra} does not exist in this server → It was deleted: map the tier to another role with /map tier:Gold`,
  );

  // Following the fix: mapping another role forgets the deleted one.
  await mapping('map', 'Gold', e.roles.staff).until(/Updated/);
  const after = await tiers();
  expect(after).not.toContain(extra);
  expect(await e.tierlink.services.repos.mappings.of(e.guildId)).toEqual([
    { campaignId: e.patreon.campaignId, tierId: e.tiers.gold, roleId: e.roles.staff },
  ]);

  e.discord.updateRole(e.guildId, e.roles.silver, { position: 2 });
  expect(tierLines(await tiers(), 'Silver')).not.toContain('⚠️');
});

test('stored tiers are read again when older than 10 minutes: new tiers, prices and patron counts', async () => {
  const platinum = e.patreon.createTier(e.patreon.campaignId, { title: 'Platinum', amountCents: 2500 });
  e.patreon.updateTier(e.tiers.bronze, { amountCents: 400 });

  e.clock.advance(9 * MINUTE);
  expect(await e.autocomplete(e.ownerId, 'map', [tierOption('plat')], 'tier', MANAGE_ROLES)).toEqual([]);
  expect(await tiers()).not.toContain('Platinum');

  e.clock.advance(2 * MINUTE);
  const content = await tiers();
  expect(tierLines(content, 'Platinum')).toBe(
    '**Platinum** — $25 a month · 0 patrons\n  • no role in this server — map one with /map tier:Platinum',
  );
  expect(tierLines(content, 'Bronze')).toMatch(/^\*\*Bronze\*\* — \$4 a month · 0 patrons/);
  expect(tierLines(content, 'Gold')).toMatch(/^\*\*Gold\*\* — \$10 a month · 2 patrons/);
  expect(await e.autocomplete(e.ownerId, 'map', [tierOption('plat')], 'tier', MANAGE_ROLES)).toEqual([
    { name: 'Platinum — $25 a month', value: `${e.patreon.campaignId}:${platinum.id}` },
  ]);
});
