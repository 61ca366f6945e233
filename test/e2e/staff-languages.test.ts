import { PermissionFlagsBits } from 'discord.js';
import { sql } from 'drizzle-orm';
import { type Locale, translator } from '../../src/core/i18n';
import { priceText } from '../../src/core/i18n/price';
import { type E2E, startE2E } from '../support/e2e';
import { EVERYONE, MANAGE_ROLES, activePatron, boolOption, roleOption, runCommand, stringOption, userOption } from '../support/e2e-admin';
import { englishIn } from '../support/english-leaks';

/**
 * The staff commands answer in the member's language (`interaction.locale`), end to end through
 * the real discord.js client against the sandbox: `/tiers`, `/comp`, `/audit`, `/sync`,
 * `/allow-role`, `/connect`, and the router's refusal to a member without the permission. No
 * sentence of the English catalogue appears in another language's reply.
 */

let e: E2E;
beforeAll(async () => {
  e = await startE2E({ connected: true });
}, 60_000);
afterAll(() => e?.stop());

const ADMIN = PermissionFlagsBits.Administrator;
const LOCALES: Array<Exclude<Locale, 'en'>> = ['de', 'pt-BR'];

describe.each(LOCALES)('%s', (locale) => {
  const t = translator(locale);
  const run = (name: string, options: Parameters<typeof runCommand>[1] extends infer O ? Partial<O> : never = {}) =>
    runCommand(e, { userId: e.ownerId, name, locale, memberPermissions: MANAGE_ROLES, ...options }).reply();
  const noEnglish = (content: string) => expect(englishIn(content)).toEqual([]);

  test('the router refuses a member without the permission in their language, naming the permission as Discord does', async () => {
    const member = e.discord.addMember(e.guildId, { username: `member-${locale}` });
    const tiers = await run('tiers', { userId: member.userId, memberPermissions: EVERYONE });
    expect(tiers.content).toBe(t('router.missingPermission', { permission: t('perm.Manage Roles'), command: 'tiers' }));
    expect(tiers.content).toContain(locale === 'de' ? 'Rollen verwalten' : 'Gerenciar cargos');
    const connect = await run('connect', { userId: member.userId, memberPermissions: EVERYONE });
    expect(connect.content).toBe(t('connect.refusal'));
    const allow = await run('allow-role', {
      userId: member.userId,
      memberPermissions: EVERYONE,
      options: [roleOption('role', e.roles.gold)],
    });
    expect(allow.content).toBe(t('allow.refusal'));
    for (const reply of [tiers, connect, allow]) noEnglish(reply.content);
  });

  test('/tiers lists the tiers and where each role comes from', async () => {
    const tiers = await run('tiers');
    expect(tiers.content).toContain('**Gold** —');
    expect(tiers.content).toMatch(new RegExp(`${t('tiers.fromPatreon')}|${t('tiers.fromMap')}`));
    noEnglish(tiers.content);
  });

  test('/tiers writes prices as the campaign states them: a campaign in euros paid per creation', async () => {
    const { db } = e.db.database;
    await db.execute(
      sql`update campaigns set currency = 'EUR', pay_per = 'creation', pay_per_name = null where id = ${e.patreon.campaignId}`,
    );
    try {
      const tiers = await run('tiers');
      const gold = priceText({ amountCents: 1000, currency: 'EUR', cadence: 'creation', payPerName: null }, t);
      expect(gold).toContain('€');
      expect(gold).not.toBe(priceText({ amountCents: 1000, currency: 'EUR', cadence: 'creation', payPerName: null }));
      expect(tiers.content).toContain(`**Gold** — ${gold}`);
      expect(tiers.content).not.toContain('$');
    } finally {
      await db.execute(sql`update campaigns set currency = null, pay_per = null where id = ${e.patreon.campaignId}`);
    }
  });

  test('/comp grant, list and revoke, and /audit of the member', async () => {
    const member = e.discord.addMember(e.guildId, { username: `comped-${locale}` }).userId;
    const grant = await run('comp', {
      subcommand: 'grant',
      options: [
        userOption('member', member),
        stringOption('tier', 'Gold'),
        stringOption('until', '2026-12-31'),
        stringOption('reason', 'mod'),
      ],
    });
    const lines = grant.content.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^<@${member}> `));
    expect(lines[0]).toContain(locale === 'de' ? 'als Freistufe bis' : 'como nível cortesia até');
    expect(lines[1]).toBe(t('comp.rolesChanged', { changes: t('comp.given', { count: 1 }) }));
    expect(e.discord.memberRoles(e.guildId, member)).toContain(e.roles.gold);

    const list = await run('comp', { subcommand: 'list', options: [userOption('member', member)] });
    expect(list.content.split('\n')[0]).toBe(t('comp.listHeading', { count: 1 }));

    const revoke = await run('comp', { subcommand: 'revoke', options: [userOption('member', member), stringOption('tier', 'Gold')] });
    expect(revoke.content.split('\n')[0]).toBe(t('comp.revoked', { who: `<@${member}>`, tier: 'Gold' }));
    const none = await run('comp', { subcommand: 'list', options: [userOption('member', member)] });
    expect(none.content).toBe(t('comp.noneFor', { who: `<@${member}>` }));

    const audit = await run('audit', { options: [userOption('member', member)] });
    const auditLines = audit.content.split('\n');
    expect(auditLines[0]).toBe(t('audit.heading', { who: `<@${member}>` }));
    expect(auditLines[1]).toContain(t('audit.remove', { role: `<@&${e.roles.gold}>` }));
    expect(auditLines[1]).toContain(t('trigger.comp'));
    expect(auditLines[2]).toContain(t('audit.add', { role: `<@&${e.roles.gold}>` }));
    for (const reply of [grant, list, revoke, none]) noEnglish(reply.content);
    // The reasons too: said from the codes the audit log recorded with them.
    noEnglish(audit.content);
  });

  test('/sync dry run: the summary in the member’s language', async () => {
    const patron = activePatron(e, `Sync ${locale}`, [e.tiers.silver]);
    const member = e.discord.addMember(e.guildId, { username: `sync-${locale}` }).userId;
    await e.link(member, patron.id);
    const sync = await run('sync', { options: [boolOption('dry_run', true)] });
    const lines = sync.content.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^${t('sync.titleDry').replace(/[()]/g, '\\$&')}: `));
    expect(sync.content).toContain(t('sync.wouldChange', { adds: 0, removes: 0, blocked: 0 }).split(':')[0]);
    // The changes' reasons too, said from their codes.
    noEnglish(sync.content);
  });

  test('/status says why a role is not given in the member’s language, from the planner’s fields', async () => {
    const silver = activePatron(e, `Silber ${locale}`, [e.tiers.silver]);
    const member = e.discord.addMember(e.guildId, { username: `silver-${locale}` }).userId;
    await e.link(member, silver.id);
    const active = await run('status', { userId: member, memberPermissions: EVERYONE });
    expect(active.content).toContain(t('note.notYourTier', { tier: 'Gold' }));
    noEnglish(active.content);

    e.patreon.setMembership(silver.id, e.patreon.campaignId, { patronStatus: 'former_patron', tierIds: [] }, { trigger: 'members:update' });
    await e.discord.waitForMemberRole(e.guildId, member, e.roles.silver, { present: false });
    const former = await run('status', { userId: member, memberPermissions: EVERYONE });
    expect(former.content).toContain(t('note.standing', { tier: 'Gold', standing: t('standing.former') }));
    noEnglish(former.content);
  });

  test('/doctor names its checks and says their details in the member’s language', async () => {
    const doctor = await run('doctor', { memberPermissions: ADMIN });
    for (const name of ['Role positions', 'Discord gateway', 'Manage Roles permission'] as const)
      expect(doctor.content).toContain(`**${t(`doctor.check.${name}`)}**: `);
    expect(doctor.content).toMatch(new RegExp(`\\*\\*${t('doctor.checkConnection', { label: '.+' }).replace(/[()]/g, '\\$&')}\\*\\*`));
    expect(doctor.content).toContain(`✅ **${t('doctor.check.Manage Roles permission')}**: ${t('doctorSays.manageOk')}`);
    expect(doctor.content).toContain(`: ${t('doctorSays.tokenWorks')}`);
    noEnglish(doctor.content);
  });

  test('/doctor says a failing check and its fix in the member’s language, with no English sentence', async () => {
    const botRole = e.discord.guild(e.guildId).botRoleId;
    const before = BigInt(e.discord.guild(e.guildId).roles.find((r) => r.id === botRole)!.permissions);
    e.discord.updateRole(e.guildId, botRole, { permissions: PermissionFlagsBits.CreateInstantInvite });
    try {
      const doctor = await run('doctor', { memberPermissions: ADMIN });
      expect(doctor.content).toContain(
        `❌ **${t('doctor.check.Manage Roles permission')}**: ${t('doctorSays.manageMissing')}\n   ${t('doctor.fix', { fix: t('doctorSays.manageFix') })}`,
      );
      expect(doctor.content).toContain(locale === 'de' ? '„Rollen verwalten“' : '"Gerenciar cargos"');
      expect(doctor.content).not.toContain('lacks the Manage Roles permission');
      expect(doctor.content).not.toContain('turn on Manage Roles');
      noEnglish(doctor.content);
    } finally {
      e.discord.updateRole(e.guildId, botRole, { permissions: before });
    }
  });

  test('/doctor says a role’s own problem, a role held back, a deleted role and what Discord answered in the member’s language', async () => {
    const botRole = e.discord.guild(e.guildId).botRoleId;
    const silver = e.discord.guild(e.guildId).roles.find((r) => r.id === e.roles.silver)!;
    // A /map row whose role was deleted while Tierlink was not looking.
    const gone = { campaignId: e.patreon.campaignId, tierId: e.tiers.gold, roleId: '999999999999999999' };
    const { mappings } = e.tierlink.services.repos;
    await mappings.add(e.guildId, gone, e.ownerId);
    e.discord.updateRole(e.guildId, e.roles.gold, { position: 20 });
    e.discord.updateRole(e.guildId, e.roles.silver, { permissions: BigInt(silver.permissions) | PermissionFlagsBits.BanMembers });
    e.discord.setMembersIntentEnabled(false);
    try {
      const doctor = (await run('doctor', { memberPermissions: ADMIN })).content;
      expect(doctor).toContain(
        `❌ **${t('doctor.checkRole', { role: 'Gold' })}**: ${t('refusal.aboveBot', { role: 'Gold', bot: e.discord.guild(e.guildId).roles.find((r) => r.id === botRole)!.name })}`,
      );
      const ban = t('perm.Ban Members');
      expect(doctor).toContain(`❌ **${t('doctor.checkRole', { role: 'Silver' })}**: `);
      expect(doctor).toContain(ban);
      expect(doctor).toContain(
        `❌ **${t('doctor.checkRole', { role: gone.roleId })}**: ${t('doctorSays.roleGone', { what: t('doctorSays.useMapped', { tier: 'Gold' }) })}`,
      );
      expect(doctor).toContain(
        `❌ **${t('doctor.check.Server Members Intent')}**: ${t('doctorSays.discordAnswered', { said: t('doctorSays.discord.members_intent_disabled'), code: '50001' })}`,
      );
      noEnglish(doctor);
    } finally {
      e.discord.setMembersIntentEnabled(true);
      e.discord.updateRole(e.guildId, e.roles.gold, { position: 2 });
      e.discord.updateRole(e.guildId, e.roles.silver, { permissions: BigInt(silver.permissions) });
      await mappings.remove(e.guildId, gone);
    }
  });

  test('/map and /comp refused for a role at or above the member’s highest role: the refusal and its fix in their language', async () => {
    const mod = e.discord.addMember(e.guildId, { username: `mod-${locale}` }).userId;
    const modRole = e.discord.createRole(e.guildId, { name: `Mods ${locale}`, position: 1, permissions: MANAGE_ROLES }).id;
    e.discord.setMemberRolesByHand(e.guildId, mod, [modRole]);
    const refused = await run('map', { userId: mod, options: [stringOption('tier', 'Gold'), roleOption('role', e.roles.gold)] });
    expect(refused.content).toBe(
      t('map.notAllowed', {
        message: t('refusal.atOrAbove', { role: 'Gold', highest: `Mods ${locale}` }),
        fix: t('refusal.atOrAboveFix', { role: 'Gold' }),
      }),
    );
    expect(refused.content).not.toContain('highest role');
    noEnglish(refused.content);
    const dan = e.discord.addMember(e.guildId, { username: `dan-${locale}` }).userId;
    const comp = await run('comp', {
      userId: mod,
      subcommand: 'grant',
      options: [
        userOption('member', dan),
        stringOption('tier', 'Gold'),
        stringOption('until', '2026-12-31'),
        stringOption('reason', 'friend'),
      ],
    });
    expect(comp.content).toBe(
      `${t('comp.notGiven', { message: t('refusal.atOrAbove', { role: 'Gold', highest: `Mods ${locale}` }) })}\n${t('comp.whatToDo', { fix: t('refusal.atOrAboveFix', { role: 'Gold' }) })}`,
    );
    noEnglish(comp.content);
  });

  test('/allow-role on a role without a powerful permission, and /connect’s link', async () => {
    const role = e.discord.createRole(e.guildId, { name: `Fans ${locale}`, permissions: 0n });
    const allow = await run('allow-role', { memberPermissions: ADMIN, options: [roleOption('role', role.id)] });
    expect(allow.content).toBe(t('allow.notDangerous', { role: `Fans ${locale}` }));
    const connect = await run('connect', { memberPermissions: ADMIN });
    expect(connect.content).toBe(`${t('connect.intro')}\n${t('connect.once', { minutes: 15 })}`);
    expect((connect.raw?.components as Array<{ components: Array<{ label: string }> }>)[0]!.components[0]!.label).toBe(t('connect.button'));
    for (const reply of [allow, connect]) noEnglish(reply.content);
  });
});

test('English stays as it was: the refusal, /comp and /sync', async () => {
  const member = e.discord.addMember(e.guildId, { username: 'member-en' });
  const tiers = await runCommand(e, { userId: member.userId, name: 'tiers', memberPermissions: EVERYONE }).reply();
  expect(tiers.content).toBe(
    'You need the **Manage Roles** permission to use /tiers. Tierlink reads it from your roles in this server (or server ownership, or Administrator); a permission given on one channel does not count.',
  );
  const sync = await runCommand(e, {
    userId: e.ownerId,
    name: 'sync',
    memberPermissions: MANAGE_ROLES,
    options: [boolOption('dry_run', true)],
  }).reply();
  expect(sync.content).toMatch(/^Full sync, dry run \(nothing was changed\): ok in /);
});
