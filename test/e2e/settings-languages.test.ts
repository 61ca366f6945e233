import { type Locale, translator } from '../../src/core/i18n';
import { STRICT_CONFIRMATION_MS } from '../../src/app/admin/settings-service';
import { type E2E, startE2E } from '../support/e2e';
import { MANAGE_ROLES, activePatron, boolOption, intOption, roleOption, runCommand, stringOption } from '../support/e2e-admin';
import { englishIn } from '../support/english-leaks';

/**
 * `/settings` answers in the member's language (`interaction.locale`) end to end, through the real
 * discord.js client against the sandbox: a value out of range refused, a role refused for someone
 * whose highest role is below it, `rule_role` and `clear_rule_role`, strict mode's preview, and the
 * "Updated: N role changes" line after a change. No sentence of the English catalogue is left.
 */

let e: E2E;
beforeAll(async () => {
  e = await startE2E({ connected: true });
}, 60_000);
afterAll(() => e?.stop());

const LOCALES: Array<Exclude<Locale, 'en'>> = ['de', 'pt-BR'];

describe.each(LOCALES)('%s', (locale) => {
  const t = translator(locale);
  const settings = (options: Array<Record<string, unknown>> = [], userId = e.ownerId) =>
    runCommand(e, { userId, name: 'settings', locale, memberPermissions: MANAGE_ROLES, options });
  const noEnglish = (content: string) => expect(englishIn(content)).toEqual([]);
  /** The translated "Updated: …" line, or the translated failure: the reply's last edit. */
  const applied = new RegExp(`^(${t('apply.done', { changes: '', members: '' }).split(':')[0]}:|${t('settings.updateFailed')})`, 'm');
  /** The "Updated: N role changes across M members" line in the reader's language, with the counts it says. */
  const updatedLine = (line: string) => {
    const [changes, members] = (line.match(/\d+/g) ?? []).map(Number);
    return t('apply.done', { changes: t('apply.changes', { count: changes! }), members: t('apply.members', { count: members! }) });
  };

  test('a value out of range is refused in the member’s language, naming the option they typed', async () => {
    const refused = await settings([intOption('grace_days', 61)]).reply();
    expect(refused.content).toBe(
      `${t('settings.nothingChanged')}\n• ${t('settingsSays.outOfRange', { option: 'grace_days', min: 0, max: 60, got: 61 })}`,
    );
    expect(refused.content).not.toContain('must be a whole number');
    noEnglish(refused.content);
    const percent = await settings([intOption('removal_threshold_percent', 0)]).reply();
    expect(percent.content).toBe(
      `${t('settings.nothingChanged')}\n• ${t('settingsSays.outOfRange', { option: 'removal_threshold_percent', min: 1, max: 100, got: 0 })}`,
    );
    noEnglish(percent.content);
  });

  test('a role at or above the member’s highest role is refused as a former-patron role, from the refusal’s facts', async () => {
    const mod = e.discord.addMember(e.guildId, { username: `settings-mod-${locale}` }).userId;
    const modRole = e.discord.createRole(e.guildId, { name: `Helpers ${locale}`, position: 1, permissions: MANAGE_ROLES }).id;
    e.discord.setMemberRolesByHand(e.guildId, mod, [modRole]);
    const refused = await settings([roleOption('former_role', e.roles.gold)], mod).reply();
    expect(refused.content).toBe(
      `${t('settings.nothingChanged')}\n• ${t('settingsSays.roleRefused', {
        label: t('settingsSays.former'),
        message: t('refusal.atOrAbove', { role: 'Gold', highest: `Helpers ${locale}` }),
        fix: t('refusal.atOrAboveFix', { role: 'Gold' }),
      })}`,
    );
    noEnglish(refused.content);
  });

  test('refusals that need Manage Server, a join page address and a channel refused: from their facts, no English left', async () => {
    const mod = e.discord.addMember(e.guildId, { username: `rules-mod-${locale}` }).userId;
    const modRole = e.discord.createRole(e.guildId, { name: `Moderators ${locale}`, position: 1, permissions: MANAGE_ROLES }).id;
    e.discord.setMemberRolesByHand(e.guildId, mod, [modRole]);
    const rules = await settings([intOption('grace_days', 3), boolOption('patron_messages', true)], mod).reply();
    expect(rules.content).toBe(
      [
        t('settings.nothingChanged'),
        `• ${t('settingsSays.rulesNeedManageServer', { what: t('settingsSays.policy.graceDays') })}`,
        `• ${t('settingsSays.messagesOn')}`,
      ].join('\n'),
    );
    noEnglish(rules.content);

    const slug = await settings([stringOption('join_slug', 'callback')]).reply();
    expect(slug.content).toBe(`${t('settings.nothingChanged')}\n• ${t('settingsSays.slugReserved', { slug: 'callback' })}`);
    noEnglish(slug.content);

    const botRoleId = e.discord.guild(e.guildId).botRoleId;
    const readOnly = e.discord.createChannel(e.guildId, {
      name: `read-only-${locale.toLowerCase()}`,
      overwrites: [{ id: botRoleId, type: 'role', allow: 1n << 10n }],
    }).id;
    const channel = await settings([{ name: 'announce_patrons_channel', type: 7, value: readOnly }]).reply();
    expect(channel.content).toBe(
      `${t('settings.nothingChanged')}\n• ${t('settingsSays.channelRefused', {
        label: t('settingsSays.channel.announcePatrons'),
        message: t('settingsSays.channelCannotPost', { channel: `read-only-${locale.toLowerCase()}`, missing: t('perm.Send Messages') }),
        fix: t('settingsSays.channelCannotPostFix', { channel: `read-only-${locale.toLowerCase()}`, missing: t('perm.Send Messages') }),
      })}`,
    );
    noEnglish(channel.content);
  });

  test('rule_role gives the role and says so, with "Updated: N role changes"; clear_rule_role takes it back', async () => {
    const role = e.discord.createRole(e.guildId, { name: `Big ${locale}` }).id;
    const member = e.discord.addMember(e.guildId, { username: `big-${locale}` }).userId;
    await e.link(member, activePatron(e, `Big ${locale}`, [e.tiers.gold]).id);

    const half = await settings([roleOption('rule_role', role)]).reply();
    expect(half.content).toBe(t('rule.together'));
    noEnglish(half.content);
    const unreadable = await settings([roleOption('rule_role', role), stringOption('rule_at_least', 'lots')]).reply();
    expect(unreadable.content).toBe(t('rule.unreadable', { text: 'lots' }));
    noEnglish(unreadable.content);
    const tooLong = await settings([roleOption('rule_role', role), stringOption('rule_at_least', '200 months')]).reply();
    expect(tooLong.content).toBe(t('rule.invalid', { message: t('rule.tenureBounds', { min: 1, max: 120 }) }));
    noEnglish(tooLong.content);

    const set = await settings([roleOption('rule_role', role), stringOption('rule_at_least', '1')]).until(applied);
    const lines = set.content.split('\n');
    expect(lines[0]).toBe(t('rule.title'));
    expect(lines).toContain(`• ${t('settings.ruleAmount', { role: `<@&${role}>`, amount: '1.00' })}`);
    expect(lines.at(-1)).toBe(updatedLine(lines.at(-1)!));
    expect(lines.at(-1)).not.toMatch(/Updated|role change/);
    expect(e.discord.memberRoles(e.guildId, member)).toContain(role);
    noEnglish(set.content);

    const cleared = await settings([roleOption('clear_rule_role', role)]).until(applied);
    const after = cleared.content.split('\n');
    expect(after[0]).toBe(t('rule.title'));
    expect(after).not.toContain(`• ${t('settings.ruleAmount', { role: `<@&${role}>`, amount: '1.00' })}`);
    expect(after.at(-1)).toBe(updatedLine(after.at(-1)!));
    expect(e.discord.memberRoles(e.guildId, member)).not.toContain(role);
    noEnglish(cleared.content);
  });

  test('a settings change that moves roles ends with "Updated: N role changes" in the member’s language', async () => {
    const saved = await settings([boolOption('free_tiers_grant_roles', false)]).until(applied);
    const lines = saved.content.split('\n');
    expect(lines[0]).toBe(t('settings.saved'));
    expect(lines.at(-1)).toBe(updatedLine(lines.at(-1)!));
    noEnglish(saved.content);
    await settings([boolOption('free_tiers_grant_roles', true)]).until(applied);
  });

  test('/sync adopt:true refused for tier roles the member may not manage, from the refusals’ facts', async () => {
    const mod = e.discord.addMember(e.guildId, { username: `adopt-mod-${locale}` }).userId;
    const modRole = e.discord.createRole(e.guildId, { name: `Adopters ${locale}`, position: 1, permissions: MANAGE_ROLES }).id;
    e.discord.setMemberRolesByHand(e.guildId, mod, [modRole]);
    const refused = await runCommand(e, {
      userId: mod,
      name: 'sync',
      locale,
      memberPermissions: MANAGE_ROLES,
      options: [boolOption('adopt', true)],
    }).reply();
    const [first, fix] = refused.content.split('\n');
    // The first role refused is the first named; the sentence around the names and the refusal is the catalogue's.
    const role = first!.match(/Bronze|Silver|Gold|VIP/)![0];
    expect(first).toMatch(locale === 'de' ? /^Durch das Übernehmen würde Tierlink Mitgliedern / : /^Adotar faria o Tierlink tirar /);
    expect(first!.endsWith(t('refusal.atOrAbove', { role, highest: `Adopters ${locale}` }))).toBe(true);
    expect(fix).toBe(t('refusal.atOrAboveFix', { role }));
    noEnglish(refused.content);
  });

  test('/sync says why removals are held back in the member’s language, from the guard’s facts', async () => {
    const patron = activePatron(e, `Lapsing ${locale}`, [e.tiers.bronze]);
    const member = e.discord.addMember(e.guildId, { username: `lapsing-${locale}` }).userId;
    await e.link(member, patron.id);
    await e.discord.waitForMemberRole(e.guildId, member, e.roles.bronze, { present: true });
    e.patreon.setMembership(patron.id, e.patreon.campaignId, { patronStatus: 'former_patron', tierIds: [] }, { deliver: false });
    await settings([intOption('removal_threshold_percent', 1), intOption('removal_threshold_min', 1)]).reply();
    try {
      const sync = await runCommand(e, {
        userId: e.ownerId,
        name: 'sync',
        locale,
        memberPermissions: MANAGE_ROLES,
        options: [boolOption('dry_run', true)],
      }).reply();
      // Earlier runs' lapsed members are still there (a dry run changes nothing): the count is read from the line.
      const prefix = (count: number) => t('sync.wouldHold', { count, reason: '' });
      const held = sync.content.split('\n').find((l) => /^\D*\d+/.test(l) && l.startsWith(prefix(Number(l.match(/\d+/)![0]))));
      expect(held).toBeDefined();
      const count = Number(held!.match(/\d+/)![0]);
      const between = t('held.threshold', { count, share: 'S', grants: 'G', percent: 'P', min: 'M' }).split('G')[1]!.split('P')[0]!;
      expect(held).toContain(between);
      expect(held).toContain('/sync force:true');
      expect(held).not.toContain('exceed');
      noEnglish(held!);
    } finally {
      await settings([intOption('removal_threshold_percent', 10), intOption('removal_threshold_min', 25)]).reply();
    }
  });

  test('strict mode asked for: what it would remove, how to confirm it (never cut for length) and its button in the member’s language', async () => {
    const asked = await settings([boolOption('strict', true)]).reply();
    const lines = asked.content.split('\n');
    expect(lines).toContain(t('strict.notYet'));
    expect(lines.at(-1)).toBe(t('strict.press', { minutes: STRICT_CONFIRMATION_MS / 60_000 }));
    const buttons = asked.raw?.components as Array<{ components: Array<{ label: string }> }>;
    expect(buttons[0]!.components[0]!.label).toBe(t('strict.button'));
    noEnglish(asked.content);
  });
});
