import { type E2E, startE2E } from '../support/e2e';
import { MANAGE_ROLES, activePatron, pressButton, roleOption, runCommand, stringOption, tierOption } from '../support/e2e-admin';

/**
 * `/map`, `/unmap` and `/settings` show what a change would do to members' roles before they do it,
 * from the server's threshold of role changes up (10 unless set), and wait for Confirm.
 */
let e: E2E;
let gold: string[];
let silver: string;
let platinum: string;
let bonus: string;
let mod: string;

const hasRole = (userId: string, roleId: string) => e.discord.memberRoles(e.guildId, userId).includes(roleId);
const holders = (roleId: string) => gold.filter((u) => hasRole(u, roleId)).length;
const mapped = async () => (await e.tierlink.services.repos.mappings.of(e.guildId)).map((m) => m.roleId).sort();
const mapping = (name: 'map' | 'unmap', tier: string, roleId: string, userId = e.ownerId) =>
  runCommand(e, { userId, name, options: [tierOption(tier), roleOption('role', roleId)], memberPermissions: MANAGE_ROLES });

beforeAll(async () => {
  e = await startE2E({ connected: true });
  platinum = e.discord.createRole(e.guildId, { name: 'Platinum', position: 2 }).id;
  bonus = e.discord.createRole(e.guildId, { name: 'Silver bonus', position: 2 }).id;
  const link = async (name: string, tierId: string) => {
    const member = e.discord.addMember(e.guildId, { username: name });
    await e.link(member.userId, activePatron(e, name, [tierId]).id);
    return member.userId;
  };
  gold = [];
  for (const name of ['ada', 'bea', 'cy', 'dee']) gold.push(await link(name, e.tiers.gold));
  silver = await link('sam', e.tiers.silver);
  // A moderator who may manage roles below their own.
  mod = e.discord.addMember(e.guildId, { username: 'mod' }).userId;
  const mods = e.discord.createRole(e.guildId, { name: 'Mods', position: 5, permissions: MANAGE_ROLES }).id;
  e.discord.setMemberRolesByHand(e.guildId, mod, [mods]);
}, 90_000);
afterAll(() => e?.stop());

test('a change below the threshold (10 by default) applies at once', async () => {
  const reply = await mapping('map', 'Silver', bonus).until(/Updated|failed/);
  expect(reply.content).toMatch(/^\*\*Silver\*\* now grants \*\*Silver bonus\*\*\. Updated: 1 role change/);
  expect(reply.buttons).toEqual([]);
  expect(hasRole(silver, bonus)).toBe(true);
});

test('from the threshold up, /map shows what it would do and changes nothing until Confirm', async () => {
  await e.tierlink.services.repos.guilds.setPreviewThreshold(e.guildId, 3);
  const asked = mapping('map', 'Gold', platinum);
  const preview = await asked.reply();
  expect(preview.content).toBe(
    [
      `**Gold** would grant <@&${platinum}>. Nothing has changed yet.`,
      `• gives <@&${platinum}> to 4 members`,
      '• removes nothing',
      'For example: ada, bea, cy, dee.',
      'Press **Confirm** within 5 minutes to make the change; otherwise nothing changes.',
    ].join('\n'),
  );
  expect(preview.ephemeral).toBe(true);
  expect(preview.buttons.map((b) => b.label)).toEqual(['Confirm', 'Cancel']);
  expect(await mapped()).toEqual([bonus]);
  expect(holders(platinum)).toBe(0);

  // The reply is ephemeral, so Discord lets nobody else press it; the confirmation is bound to the
  // member all the same: their token used by another member (or in another server) is refused.
  expect(() => e.discord.pressButton({ interactionId: asked.interactionId, customId: preview.buttons[0]!.customId, userId: mod })).toThrow(
    /nobody else can press its buttons/,
  );
  const token = preview.buttons[0]!.customId.replace(/^change:y:/, '');
  const { confirmations } = e.tierlink.services.admin;
  expect(await confirmations.confirm({ guildId: e.guildId, userId: mod }, token)).toEqual({ kind: 'not_yours' });
  expect(await confirmations.cancel({ guildId: e.guildId, userId: mod }, token)).toBe('not_yours');
  expect(await confirmations.confirm({ guildId: 'another-server', userId: e.ownerId }, token)).toEqual({ kind: 'not_yours' });
  expect(await confirmations.confirm({ guildId: e.guildId, userId: e.ownerId }, 'a-made-up-token-000000')).toEqual({ kind: 'expired' });
  expect(await mapped()).toEqual([bonus]);

  const confirmed = await (await pressButton(e, asked, 'Confirm')).until(/Updated|failed/);
  expect(confirmed.content).toMatch(/^\*\*Gold\*\* now grants \*\*Platinum\*\*\. Updated: 4 role changes/);
  expect(confirmed.buttons).toEqual([]);
  expect((await mapped()).sort()).toEqual([bonus, platinum].sort());
  expect(holders(platinum)).toBe(4);
});

test('Cancel changes nothing, and a preview expires after 5 minutes', async () => {
  const asked = mapping('unmap', 'Gold', platinum);
  const preview = await asked.reply();
  expect(preview.content).toContain(`**Gold** would stop granting <@&${platinum}>. Nothing has changed yet.`);
  expect(preview.content).toContain(`• removes <@&${platinum}> from 4 members`);
  expect(preview.content).toContain('• gives no role');
  const cancelled = await (await pressButton(e, asked, 'Cancel')).reply();
  expect(cancelled.content).toBe('Cancelled: nothing was changed.');
  expect(cancelled.buttons).toEqual([]);
  expect(await mapped()).toContain(platinum);

  const later = mapping('unmap', 'Gold', platinum);
  await later.reply();
  e.clock.advance(5 * 60_000 + 1_000);
  const expired = await (await pressButton(e, later, 'Confirm')).reply();
  expect(expired.content).toMatch(/^This preview expired or was already used \(it lasts 5 minutes\); nothing was changed\./);
  expect(await mapped()).toContain(platinum);
  expect(holders(platinum)).toBe(4);
});

test('when roles moved since the preview, Confirm shows the new preview instead of applying', async () => {
  const asked = mapping('unmap', 'Gold', platinum);
  expect((await asked.reply()).content).toContain('from 4 members');
  // A fifth Gold patron links in the meantime and gets Platinum.
  const eve = e.discord.addMember(e.guildId, { username: 'eve' }).userId;
  await e.link(eve, activePatron(e, 'eve', [e.tiers.gold]).id);
  await e.discord.waitForMemberRole(e.guildId, eve, platinum, { present: true });
  gold.push(eve);

  const again = await pressButton(e, asked, 'Confirm');
  const shown = await again.reply();
  expect(shown.content).toMatch(/^Roles or settings changed since the preview you confirmed, so nothing was applied\./);
  expect(shown.content).toContain(`• removes <@&${platinum}> from 5 members`);
  expect(await mapped()).toContain(platinum);
  expect(holders(platinum)).toBe(5);

  const done = await (await pressButton(e, again, 'Confirm')).until(/Updated|failed/);
  expect(done.content).toMatch(/^\*\*Gold\*\* no longer grants \*\*Platinum\*\* through \/map\. Updated: 5 role changes/);
  expect(await mapped()).toEqual([bonus]);
  expect(holders(platinum)).toBe(0);
});

test('Confirm checks the member’s authority again: a role now above their highest is refused', async () => {
  const asked = runCommand(e, {
    userId: mod,
    name: 'map',
    options: [tierOption('Gold'), roleOption('role', platinum)],
    memberPermissions: null,
  });
  expect((await asked.reply()).content).toContain(`**Gold** would grant <@&${platinum}>.`);
  // Platinum is moved above the moderator's own highest role before they confirm.
  e.discord.updateRole(e.guildId, platinum, { position: 8 });
  const refused = await (await pressButton(e, asked, 'Confirm')).reply();
  expect(refused.content).toMatch(/^Nothing was mapped: /);
  expect(await mapped()).toEqual([bonus]);
  expect(holders(platinum)).toBe(0);
  e.discord.updateRole(e.guildId, platinum, { position: 2 });
});

test('/settings changes that move roles are shown first too, and apply on Confirm', async () => {
  const fay = e.discord.addMember(e.guildId, { username: 'fay' }).userId;
  await e.link(fay, activePatron(e, 'fay', [e.tiers.silver, e.tiers.gold]).id);
  await e.discord.waitForMemberRole(e.guildId, fay, bonus, { present: true });
  await e.tierlink.services.repos.guilds.setPreviewThreshold(e.guildId, 2);
  const settings = (mode: string) =>
    runCommand(e, { userId: e.ownerId, name: 'settings', options: [stringOption('mode', mode)], memberPermissions: MANAGE_ROLES });

  const asked = settings('highest');
  const preview = await asked.reply();
  expect(preview.content).toBe(
    [
      '**These settings would change members’ roles.** Nothing has changed yet.',
      '• gives no role',
      `• removes <@&${e.roles.silver}> from 1 member`,
      `• removes <@&${bonus}> from 1 member`,
      'For example: fay.',
      'Press **Confirm** within 5 minutes to make the change; otherwise nothing changes.',
    ].join('\n'),
  );
  expect((await e.tierlink.services.repos.guilds.settings(e.guildId)).mode).toBe('stack');
  expect(hasRole(fay, e.roles.silver)).toBe(true);

  const saved = await (await pressButton(e, asked, 'Confirm')).until(/Updated|failed/);
  expect(saved.content).toContain('**Settings saved**');
  expect(saved.content).toContain('• **Mode**: highest');
  expect(saved.buttons).toEqual([]);
  expect((await e.tierlink.services.repos.guilds.settings(e.guildId)).mode).toBe('highest');
  expect(hasRole(fay, e.roles.silver)).toBe(false);
  expect(hasRole(fay, bonus)).toBe(false);
  expect(hasRole(fay, e.roles.gold)).toBe(true);

  // A change below the threshold (one role change) is saved at once.
  await e.tierlink.services.repos.guilds.setPreviewThreshold(e.guildId, 3);
  const back = await settings('stack').until(/Updated|failed/);
  expect(back.content).toContain('**Settings saved**');
  expect(hasRole(fay, e.roles.silver)).toBe(true);
});

test('the threshold is shown by /settings, and a preview is in the member’s language', async () => {
  expect((await runCommand(e, { userId: e.ownerId, name: 'settings', memberPermissions: MANAGE_ROLES }).reply()).content).toContain(
    '• **Ask first**: /map, /unmap and /settings show what they would do, and wait for **Confirm**, when they change 3 roles or more',
  );
  const german = runCommand(e, {
    userId: e.ownerId,
    name: 'map',
    options: [tierOption('Gold'), roleOption('role', platinum)],
    memberPermissions: MANAGE_ROLES,
    locale: 'de',
  });
  const reply = await german.reply();
  expect(reply.content).toContain(`**Gold** würde <@&${platinum}> vergeben. Noch hat sich nichts geändert.`);
  expect(reply.content).toContain(`• vergibt <@&${platinum}> an 6 Mitglieder`);
  expect(reply.buttons.map((b) => b.label)).toEqual(['Bestätigen', 'Abbrechen']);
  await (await pressButton(e, german, 'Abbrechen')).reply();
  expect(await mapped()).toEqual([bonus]);
});

test('a role by tenure or amount set with /settings is shown first too, and given on Confirm', async () => {
  await e.tierlink.services.repos.guilds.setPreviewThreshold(e.guildId, 1);
  const big = e.discord.createRole(e.guildId, { name: 'Big Supporter', position: 2 }).id;
  const asked = runCommand(e, {
    userId: e.ownerId,
    name: 'settings',
    options: [roleOption('rule_role', big), stringOption('rule_at_least', '10')],
    memberPermissions: MANAGE_ROLES,
  });
  const preview = await asked.reply();
  expect(preview.content).toContain('**These settings would change members’ roles.** Nothing has changed yet.');
  expect(preview.content).toMatch(new RegExp(`• gives <@&${big}> to \\d+ members`));
  expect(await e.tierlink.services.repos.ruleRoles.of(e.guildId)).toEqual([]);
  expect(holders(big)).toBe(0);
  const done = await (await pressButton(e, asked, 'Confirm')).until(/Updated|failed/);
  expect(done.content).toContain(`<@&${big}> for anyone entitled to 10.00 or more a month, whatever the tier`);
  expect(holders(big)).toBe(gold.length);
});
