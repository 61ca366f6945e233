import { Permission } from '@tierlink/sandbox/discord';
import { type Locale, translator } from '../../src/core/i18n';
import { type DashboardBrowser, signIn } from '../support/dashboard-client';
import { type E2E, pageText, startE2E } from '../support/e2e';
import { EVERYONE, MANAGE_ROLES, activePatron, boolOption, runCommand, userOption } from '../support/e2e-admin';
import { englishIn } from '../support/english-leaks';

/**
 * Why a role changes, in the reader's language, end to end: a Silver patron holds Gold, which the
 * ledger says Tierlink granted for the Gold tier. `/status` says Gold is leaving, `/sync` lists the
 * removal, `/audit` and the dashboard's role-changes tables (the member's page, the Audit log) say
 * why it went: in German and Portuguese from the reason's code, in English as the planner wrote it.
 */

let e: E2E;
let member: string;
const readers = new Map<Locale, DashboardBrowser>();
const ENGLISH_WHY = 'no longer entitled to Gold (now: Silver)';

beforeAll(async () => {
  e = await startE2E({ connected: true });
  const patron = activePatron(e, 'Noor Haddad', [e.tiers.silver]);
  member = e.discord.addMember(e.guildId, { username: 'noor_h' }).userId;
  await e.link(member, patron.id);
  await e.discord.waitForMemberRole(e.guildId, member, e.roles.silver, { present: true });
  // Gold, given for the Gold tier when Noor pledged to it (the ledger's row), is no longer theirs.
  e.discord.setMemberRolesByHand(e.guildId, member, [...e.discord.memberRoles(e.guildId, member), e.roles.gold]);
  await e.tierlink.services.repos.ledger.write(
    e.guildId,
    [
      {
        discordUserId: member,
        roleId: e.roles.gold,
        campaignId: e.patreon.campaignId,
        tierId: e.tiers.gold,
        kind: 'tier',
        sources: ['patreon'],
        reason: 'Gold tier (active patron)',
        why: { code: 'tier', tier: 'Gold', standing: { kind: 'active', basis: 'pledge', graceEndsAt: null } },
      },
    ],
    [],
    new Date(e.clock.now().getTime() - 86_400_000),
  );
  const admins = e.discord.createRole(e.guildId, { name: 'Admins', permissions: Permission.Administrator }).id;
  for (const locale of ['de', 'pt-BR'] as const) {
    const reader = e.discord.addMember(e.guildId, { username: `reader-${locale}`, locale, roleIds: [admins] });
    readers.set(locale, (await signIn(e, reader.userId)).browser);
  }
}, 90_000);
afterAll(() => e?.stop());

const run = (name: string, locale: string, options: Partial<Parameters<typeof runCommand>[1]> = {}) =>
  runCommand(e, { userId: e.ownerId, name, locale, memberPermissions: MANAGE_ROLES, ...options }).reply();

describe('before the change', () => {
  test.each(['de', 'pt-BR'] as const)('%s: /status says why Gold is leaving, and /sync why it would go', async (locale) => {
    const t = translator(locale);
    const why = t('reason.tierChanged', { tier: 'Gold', tiers: 'Silver' });
    const status = await run('status', locale, { userId: member, memberPermissions: EVERYONE });
    expect(status.content).toContain(t('status.leavingHeading'));
    expect(status.content).toContain(`<@&${e.roles.gold}> — ${why}`);
    expect(status.content).not.toContain(ENGLISH_WHY);
    expect(englishIn(status.content)).toEqual([]);

    const sync = await run('sync', locale, { options: [boolOption('dry_run', true)] });
    const line = sync.content.split('\n').find((l) => l.includes('noor_h') && l.includes('Gold'));
    expect(line).toBe(`${t('sync.change.remove', { role: 'Gold', who: 'noor_h' })}: ${why}`);
    expect(englishIn(sync.content)).toEqual([]);
  });

  test('English: the planner’s sentence, word for word', async () => {
    const status = await run('status', 'en-US', { userId: member, memberPermissions: EVERYONE });
    expect(status.content).toContain(`<@&${e.roles.gold}> — ${ENGLISH_WHY}`);
  });
});

describe('held by the guard', () => {
  const guard = { removals: 1, grants: 2, percent: 1, min: 1 };
  beforeAll(async () => {
    const settings = await e.tierlink.services.repos.guilds.settings(e.guildId);
    await e.tierlink.services.repos.guilds.saveSettings(e.guildId, { ...settings, removalThresholdPercent: 1, removalThresholdMin: 1 });
    const report = await e.tierlink.services.runSync({ guildId: e.guildId, dryRun: false, force: false, trigger: 'manual' });
    expect('guilds' in report && report.guilds[0]?.held?.removals).toBe(1);
    await e.tierlink.services.repos.guilds.saveSettings(e.guildId, settings);
  }, 60_000);

  test.each(['de', 'pt-BR'] as const)('%s: the Syncs page says why removals were held, and why each would go', async (locale) => {
    const t = translator(locale);
    const percent = (value: number) => new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 }).format(value / 100);
    const page = await readers.get(locale)!.get(`/dashboard/${e.guildId}/syncs`);
    const text = pageText(page.html);
    expect(text).toContain(
      pageText(
        t('reason.held.threshold', {
          count: guard.removals,
          share: percent(50),
          grants: guard.grants,
          percent: percent(guard.percent),
          min: guard.min,
        }),
      ),
    );
    expect(text).toContain(t('reason.tierChanged', { tier: 'Gold', tiers: 'Silver' }));
    expect(text).not.toContain(ENGLISH_WHY);
    expect(englishIn(text)).toEqual([]);
  });
});

describe('after the change', () => {
  beforeAll(async () => {
    await e.tierlink.services.runSync({ guildId: e.guildId, dryRun: false, force: false, trigger: 'manual' });
    await e.discord.waitForMemberRole(e.guildId, member, e.roles.gold, { present: false });
  }, 60_000);

  test.each(['de', 'pt-BR'] as const)('%s: /audit says why Gold went, and why Silver was given', async (locale) => {
    const t = translator(locale);
    const audit = await run('audit', locale, { options: [userOption('member', member)] });
    const lines = audit.content.split('\n');
    const removed = lines.find((l) => l.includes(t('audit.remove', { role: `<@&${e.roles.gold}>` })));
    expect(removed).toMatch(new RegExp(` · ${t('reason.tierChanged', { tier: 'Gold', tiers: 'Silver' }).replace(/[()]/g, '\\$&')}$`));
    const added = lines.find((l) => l.includes(t('audit.add', { role: `<@&${e.roles.silver}>` })));
    expect(added).toContain(t('reason.tier', { tier: 'Silver', standing: t('standing.active') }));
    expect(audit.content).not.toContain(ENGLISH_WHY);
    expect(englishIn(audit.content)).toEqual([]);
  });

  test('English: /audit keeps the planner’s sentences', async () => {
    const audit = await run('audit', 'en-US', { options: [userOption('member', member)] });
    expect(audit.content).toContain(` · ${ENGLISH_WHY}`);
    expect(audit.content).toContain(' · Silver tier (active patron)');
  });

  test.each(['de', 'pt-BR'] as const)('%s: the dashboard’s role-changes tables say why', async (locale) => {
    const t = translator(locale);
    const why = t('reason.tierChanged', { tier: 'Gold', tiers: 'Silver' });
    for (const path of [`/members/${member}`, `/audit?member=${member}`]) {
      const page = await readers.get(locale)!.get(`/dashboard/${e.guildId}${path}`);
      expect(page.status).toBe(200);
      const text = pageText(page.html);
      expect(text).toContain(why);
      expect(text).toContain(t('reason.tier', { tier: 'Silver', standing: t('standing.active') }));
      expect(text).not.toContain(ENGLISH_WHY);
      expect(englishIn(text)).toEqual([]);
    }
  });
});
