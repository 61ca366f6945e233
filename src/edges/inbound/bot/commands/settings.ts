import { ChannelType, InteractionContextType, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import { channelNoteWords } from '../../../../core/post-source-text';
import { CHANNEL_SETTINGS, type ChannelChange, type ChannelSetting, type GuildChannels, channelOf } from '../../../../core/guild-channels';
import { SETTING_BOUNDS } from '../../../../core/planner/settings';
import { JOIN_SLUG_LENGTH } from '../../../../core/join-slug';
import type { JoinLink } from '../../../../app/joining/join-links';
import type { ServerChoices, SettingsOutcome, SettingsRequest } from '../../../../app/admin/settings-service';
import type { RuleRoleOutcome } from '../../../../app/admin/rule-roles-service';
import { WELCOME_NAMES, type WelcomeNames } from '../../../../core/channel-posts';
import { type T, translator } from '../../../../core/i18n';
import { refusalWords } from '../../../../core/refusal-text';
import { settingsProblemWords } from '../../../../core/settings-problem-text';
import { speakerFor } from '../speak';
import { CONFIRMATION_MINUTES, type EditReply, editorOf, previewReply } from './change-preview';
import type { GuildSettings, Mode } from '../../../../core/planner/types';
import type { Command, CommandContext } from '../command';
import { NO_PINGS, describeGuildApply, fitMessage, roleMention } from '../format';
import { STRICT_BUTTON_PREFIX, pressStrictButton, reportApply, strictButton, strictPreviewLines } from './strict-confirmation';
import type { BotServices } from '../bot-services';
import type { Logger } from '../../../../shared/logger';
import type { RuleRole } from '../../../../core/planner/types';

/** "6 months" (tenure) or "20", "$20", "20.50 a month" (an amount a month, in the campaign's currency). */
export function parseRuleAtLeast(text: string, roleId: string): RuleRole | null {
  const t = text.trim().toLowerCase();
  const months = /^(\d{1,3})\s*(m|mo|mos|month|months)$/.exec(t);
  if (months) return { kind: 'tenure', roleId, months: Number(months[1]) };
  const amount = /^\$?\s*(\d{1,5})(?:[.,](\d{1,2}))?\s*(?:\/\s*month|a month|per month|monthly)?$/.exec(t);
  if (amount) return { kind: 'amount', roleId, cents: Number(amount[1]) * 100 + Number((amount[2] ?? '0').padEnd(2, '0')) };
  return null;
}

/** A rule as people read it. */
export function describeRule(rule: RuleRole, t: T = translator('en')): string {
  return rule.kind === 'tenure'
    ? t('settings.ruleTenure', { role: roleMention(rule.roleId), count: rule.months })
    : t('settings.ruleAmount', { role: roleMention(rule.roleId), amount: (rule.cents / 100).toFixed(2) });
}

/** Sets or clears a role by tenure or amount as `/settings rule_role`, `rule_at_least` and `clear_rule_role` ask, and answers. */
async function applyRuleOptions(
  services: BotServices,
  actor: { guildId: string; userId: string },
  roleId: string | null,
  atLeast: string | null,
  clearRoleId: string | null,
  logger: Logger,
  edit: EditReply,
  t: T,
): Promise<void> {
  if ((roleId === null) !== (atLeast === null)) {
    await edit({ content: t('rule.together') });
    return;
  }
  let outcome: RuleRoleOutcome | null = null;
  if (roleId !== null && atLeast !== null) {
    const rule = parseRuleAtLeast(atLeast, roleId);
    if (!rule) {
      await edit({ content: t('rule.unreadable', { text: atLeast }) });
      return;
    }
    outcome = await services.rules.set(actor, rule);
  }
  if (clearRoleId !== null && (outcome === null || outcome.kind === 'done')) outcome = await services.rules.remove(actor, clearRoleId);
  if (outcome) await answerRule(edit, t, outcome, logger);
}

/** The reply to a rule's outcome (asked, or confirmed with the button). */
export async function answerRule(edit: EditReply, t: T, outcome: RuleRoleOutcome, logger: Logger): Promise<void> {
  switch (outcome.kind) {
    case 'invalid':
      await edit({ content: t('rule.invalid', { message: ruleInvalidWords(t, outcome) }) });
      return;
    case 'not_allowed':
      await edit({ content: t('rule.notAllowed', refusalWords(t, outcome)) });
      return;
    case 'used':
      await edit({ content: t('preview.expired', { minutes: CONFIRMATION_MINUTES }) });
      return;
    case 'preview':
      await edit(previewReply(t, t('preview.settings'), outcome));
      return;
    case 'done': {
      const lines = [
        t('rule.title'),
        ...(outcome.rules.length > 0 ? outcome.rules.map((r) => `• ${describeRule(r, t)}`) : [t('rule.none')]),
      ];
      if (outcome.followUp) {
        try {
          lines.push(describeGuildApply(await outcome.followUp, t));
        } catch (error) {
          logger.error({ err: error }, 'roles update after a rule change failed');
          lines.push(t('settings.updateFailed'));
        }
      }
      await edit({ content: fitMessage(lines, 1900, t) });
    }
  }
}

/** A rule refused as invalid, in the reader's language: English as the service says it, another language from its facts. */
export function ruleInvalidWords(t: T, outcome: Extract<RuleRoleOutcome, { kind: 'invalid' }>): string {
  const { facts } = outcome;
  if (t.locale === 'en' || !facts) return outcome.message;
  switch (facts.code) {
    case 'tenure_bounds':
      return t('rule.tenureBounds', { min: facts.min, max: facts.max });
    case 'amount_bounds':
      return t('rule.amountBounds', { min: amountIn(t, facts.min), max: amountIn(t, facts.max) });
    case 'bot_cannot': {
      return t('rule.botCannot', refusalWords(t, facts.refusal));
    }
  }
}

/** An amount of cents as a number in the reader's language, with cents only when it has them ("5", "5,50"). */
function amountIn(t: T, cents: number): string {
  return new Intl.NumberFormat(t.locale, { minimumFractionDigits: cents % 100 === 0 ? 0 : 2 }).format(cents / 100);
}

/** "5 for 30 days", "$5.50 for 7 days", "off": the Ko-fi donation setting; null when unreadable. */
export function parseKofiDonation(text: string): { minCents: number; days: number } | 'off' | null {
  const t = text.trim().toLowerCase();
  if (t === 'off' || t === 'none') return 'off';
  const m = /^\$?\s*(\d{1,6})(?:[.,](\d{1,2}))?\s+for\s+(\d{1,3})\s*(?:d|day|days)$/.exec(t);
  if (!m) return null;
  const days = Number(m[3]);
  if (days < 1 || days > 366) return null;
  return { minCents: Number(m[1]) * 100 + Number((m[2] ?? '0').padEnd(2, '0')), days };
}

async function applyKofiDonation(services: BotServices, guildId: string, text: string, t: T): Promise<string> {
  if (!services.kofi) return t('kofi.notTaken');
  const parsed = parseKofiDonation(text);
  if (parsed === null) return t('kofi.unreadable', { text });
  await services.kofi.setDonation(guildId, parsed === 'off' ? null : parsed);
  if (parsed === 'off') return t('kofi.off');
  const amount =
    t.locale === 'en'
      ? (parsed.minCents / 100).toFixed(2)
      : new Intl.NumberFormat(t.locale, { minimumFractionDigits: 2 }).format(parsed.minCents / 100);
  return t('kofi.set', { amount, count: parsed.days });
}

export function renderChannels(c: GuildChannels, t: T = translator('en')): string[] {
  return (Object.keys(CHANNEL_SETTINGS) as ChannelSetting[]).map((key) => {
    const id = channelOf(c, key);
    return t(`settings.channel.${key}`, { channel: id ? `<#${id}>` : t('settings.off') });
  });
}

/** The server's settings as `/settings` shows them, in the member's language. */
export function renderSettings(
  s: GuildSettings,
  join: JoinLink,
  channels?: GuildChannels,
  rules?: readonly RuleRole[],
  patronMessages?: boolean,
  choices?: ServerChoices,
  t: T = translator('en'),
): string {
  const role = (id: string | null | undefined) => (id ? roleMention(id) : t('settings.none'));
  return [
    t('settings.grace', { count: s.graceDays }),
    t(s.mode === 'stack' ? 'settings.modeStack' : 'settings.modeHighest'),
    t('settings.formerRole', { role: role(s.formerPatronRoleId) }),
    t('settings.followerRole', { role: role(s.followerRoleId) }),
    t(s.freeTiersGrantRoles === false ? 'settings.freeTiersNo' : 'settings.freeTiersYes'),
    t(s.strict ? 'settings.strictOn' : 'settings.strictOff'),
    t('settings.guard', { percent: s.removalThresholdPercent, min: s.removalThresholdMin }),
    t(join.source === 'chosen' ? 'settings.joinPage' : 'settings.joinPageDefault', { url: join.url }),
    t(s.joinNonPatrons ? 'settings.joinAnyone' : 'settings.joinPatrons'),
    t('settings.joinerRole', { role: role(s.joinerRoleId) }),
    ...(channels ? renderChannels(channels, t) : []),
    ...(patronMessages === undefined
      ? []
      : [t('settings.patronMessages', { state: t(patronMessages ? 'settings.messagesOn' : 'settings.off') })]),
    ...(choices
      ? [
          t('settings.linkMessages', { state: t(choices.linkMessages ? 'settings.messagesOn' : 'settings.off') }),
          t('settings.welcomeNames', { policy: t(`settings.welcomeNames.${choices.welcomeNames}`) }),
          choices.previewThreshold === 0
            ? t('settings.previewAlways')
            : t('settings.previewThreshold', { count: choices.previewThreshold }),
        ]
      : []),
    ...(rules
      ? [t('settings.rules', { rules: rules.length === 0 ? t('settings.rulesNone') : rules.map((r) => describeRule(r, t)).join('; ') })]
      : []),
  ].join('\n');
}

/**
 * `/settings` (Manage Roles): shows the guild's sync settings; options change them. Roles are checked
 * against the member's authority by the service; turning strict mode on shows what it would remove
 * and waits for the member to press the confirmation button.
 */
export const settingsCommand: Command = {
  data: new SlashCommandBuilder()
    .setName('settings')
    .setDescription('Show or change how Tierlink syncs roles in this server')
    .setContexts(InteractionContextType.Guild)
    .setDefaultMemberPermissions(PermissionFlagsBits.ManageRoles)
    .addIntegerOption((o) =>
      o
        .setName('grace_days')
        .setDescription('Days roles stay after a declined payment')
        .setMinValue(SETTING_BOUNDS.graceDays.min)
        .setMaxValue(SETTING_BOUNDS.graceDays.max),
    )
    .addStringOption((o) =>
      o
        .setName('mode')
        .setDescription('Which tiers’ roles a patron gets')
        .addChoices({ name: 'stack: every entitled tier', value: 'stack' }, { name: 'highest: only the highest tier', value: 'highest' }),
    )
    .addRoleOption((o) => o.setName('former_role').setDescription('Role for former patrons'))
    .addBooleanOption((o) => o.setName('clear_former_role').setDescription('Stop giving a former-patron role'))
    .addRoleOption((o) => o.setName('follower_role').setDescription('Role for followers who never pledged'))
    .addBooleanOption((o) => o.setName('clear_follower_role').setDescription('Stop giving a follower role'))
    .addBooleanOption((o) => o.setName('free_tiers_grant_roles').setDescription('Whether a free tier (free membership) grants its roles'))
    .addBooleanOption((o) => o.setName('strict').setDescription('Remove mapped roles from anyone not entitled, even if given by hand'))
    .addIntegerOption((o) =>
      o
        .setName('removal_threshold_percent')
        .setDescription('Hold a sync’s removals above this share of grants')
        .setMinValue(SETTING_BOUNDS.removalThresholdPercent.min)
        .setMaxValue(SETTING_BOUNDS.removalThresholdPercent.max),
    )
    .addIntegerOption((o) =>
      o
        .setName('removal_threshold_min')
        .setDescription('…when they are at least this many')
        .setMinValue(SETTING_BOUNDS.removalThresholdMin.min)
        .setMaxValue(SETTING_BOUNDS.removalThresholdMin.max),
    )
    // The channels Tierlink posts in (src/app/channels).
    .addChannelOption((o) =>
      o
        .setName('mod_log_channel')
        .setDescription('Post Tierlink’s role changes here')
        .addChannelTypes(ChannelType.GuildText, ChannelType.GuildAnnouncement),
    )
    .addChannelOption((o) =>
      o
        .setName('announce_patrons_channel')
        .setDescription('Welcome new patrons here')
        .addChannelTypes(ChannelType.GuildText, ChannelType.GuildAnnouncement),
    )
    .addChannelOption((o) =>
      o
        .setName('announce_posts_channel')
        .setDescription('Announce new posts here')
        .addChannelTypes(ChannelType.GuildText, ChannelType.GuildAnnouncement),
    )
    .addStringOption((o) =>
      o
        .setName('clear_channel')
        .setDescription('Stop posting in one of the channels')
        .addChoices(
          { name: 'mod-log', value: 'modLog' },
          { name: 'new patrons', value: 'announcePatrons' },
          { name: 'new posts', value: 'announcePosts' },
        ),
    )
    .addStringOption((o) =>
      o
        .setName('join_slug')
        .setDescription('The join page’s address: /join/<this>')
        .setMinLength(JOIN_SLUG_LENGTH.min)
        .setMaxLength(JOIN_SLUG_LENGTH.max),
    )
    .addBooleanOption((o) => o.setName('clear_join_slug').setDescription('Use the default join page address again'))
    .addBooleanOption((o) => o.setName('join_non_patrons').setDescription('Let people whose tier gives no role join through the join page'))
    .addRoleOption((o) => o.setName('join_role').setDescription('Role for someone who joins through the join page without a tier role'))
    .addBooleanOption((o) => o.setName('clear_join_role').setDescription('Stop giving a joiner role'))
    // Roles by tenure and amount (src/core/planner/rule-roles.ts): a role, and "6 months" or "20" (a month).
    .addRoleOption((o) =>
      o.setName('rule_role').setDescription('A role for patrons of long standing or of a high amount (with rule_at_least)'),
    )
    .addStringOption((o) =>
      o
        .setName('rule_at_least')
        .setDescription('For rule_role: "6 months" of patronage, or an amount a month such as "20"')
        .setMaxLength(30),
    )
    .addRoleOption((o) => o.setName('clear_rule_role').setDescription('Stop giving a role by tenure or amount'))
    // Ko-fi (docs/kofi.md): a donation of at least X entitles to the tier kofi:*donation for N days.
    .addStringOption((o) =>
      o
        .setName('kofi_donation')
        .setDescription('Ko-fi donations that count as the tier "a Ko-fi donation": "5 for 30 days", or "off"')
        .setMaxLength(40),
    )
    .addBooleanOption((o) =>
      o.setName('patron_messages').setDescription('Send patrons a direct message when a payment is declined (needs Manage Server)'),
    )
    // The 25th option (Discord's limit): the preview threshold and the message on a new link are on the dashboard's settings form.
    .addStringOption((o) =>
      o
        .setName('welcome_names')
        .setDescription('How welcomes name new patrons (needs Manage Server)')
        .addChoices(
          { name: 'their mention (pings nobody)', value: 'mention' },
          { name: 'their name in this server', value: 'display_name' },
          { name: 'no name', value: 'none' },
        ),
    )
    .toJSON(),
  permission: { bit: PermissionFlagsBits.ManageRoles, name: 'Manage Roles' },
  button: { prefix: STRICT_BUTTON_PREFIX, press: pressStrictButton },
  async execute(interaction, { services, logger }) {
    const o = interaction.options;
    const change: SettingsRequest = {};
    const grace = o.getInteger('grace_days');
    if (grace !== null) change.graceDays = grace;
    const mode = o.getString('mode');
    if (mode !== null) change.mode = mode as Mode;
    const former = o.getRole('former_role');
    if (former) change.formerPatronRoleId = former.id;
    if (o.getBoolean('clear_former_role')) change.formerPatronRoleId = null;
    const follower = o.getRole('follower_role');
    if (follower) change.followerRoleId = follower.id;
    if (o.getBoolean('clear_follower_role')) change.followerRoleId = null;
    const freeTiers = o.getBoolean('free_tiers_grant_roles');
    if (freeTiers !== null) change.freeTiersGrantRoles = freeTiers;
    const strict = o.getBoolean('strict');
    if (strict !== null) change.strict = strict;
    const percent = o.getInteger('removal_threshold_percent');
    if (percent !== null) change.removalThresholdPercent = percent;
    const min = o.getInteger('removal_threshold_min');
    if (min !== null) change.removalThresholdMin = min;
    const channels: ChannelChange = {};
    for (const key of Object.keys(CHANNEL_SETTINGS) as ChannelSetting[]) {
      const channel = o.getChannel(CHANNEL_SETTINGS[key].option);
      if (channel) channels[key] = channel.id;
    }
    const clear = o.getString('clear_channel');
    if (clear === 'modLog' || clear === 'announcePatrons' || clear === 'announcePosts') channels[clear] = null;
    const slug = o.getString('join_slug');
    if (slug !== null) change.joinSlug = slug;
    if (o.getBoolean('clear_join_slug')) change.joinSlug = null;
    const open = o.getBoolean('join_non_patrons');
    if (open !== null) change.joinNonPatrons = open;
    const joiner = o.getRole('join_role');
    if (joiner) change.joinerRoleId = joiner.id;
    if (o.getBoolean('clear_join_role')) change.joinerRoleId = null;
    const patronMessages = o.getBoolean('patron_messages');
    if (patronMessages !== null) change.patronMessages = patronMessages;
    const welcomeNames = o.getString('welcome_names');
    if (welcomeNames !== null && (WELCOME_NAMES as readonly string[]).includes(welcomeNames))
      change.welcomeNames = welcomeNames as WelcomeNames;

    const actor = { guildId: interaction.guildId!, userId: interaction.user.id };
    const donation = o.getString('kofi_donation');
    if (donation !== null) {
      const { t } = speakerFor(interaction);
      await interaction.editReply({ content: await applyKofiDonation(services, actor.guildId, donation, t), allowedMentions: NO_PINGS });
      if (Object.keys(change).length === 0 && Object.keys(channels).length === 0) return;
    }
    const ruleRole = o.getRole('rule_role');
    const ruleAtLeast = o.getString('rule_at_least');
    const clearRule = o.getRole('clear_rule_role');
    if (ruleRole || ruleAtLeast !== null || clearRule) {
      const { t } = speakerFor(interaction);
      await applyRuleOptions(services, actor, ruleRole?.id ?? null, ruleAtLeast, clearRule?.id ?? null, logger, editorOf(interaction), t);
      if (Object.keys(change).length === 0 && Object.keys(channels).length === 0) return;
    }
    const outcome = await services.settings.apply(actor, change, channels);
    await answerSettings(editorOf(interaction), speakerFor(interaction).t, outcome, actor, { services, logger });
  },
};

/**
 * The settings and, after a blank line, strict mode's preview in one message of at most `max`
 * characters: the settings are cut first, so what strict mode would remove and how to confirm it
 * (its last line) always show, in the longer languages too.
 */
function withStrictPreview(head: readonly string[], strict: readonly string[], max: number, t: T): string {
  const press = strict.at(-1) ?? '';
  const preview = `${fitMessage(strict.slice(0, -1), Math.floor(max / 2) - press.length - 1, t)}\n${press}`;
  return `${fitMessage(head.join('\n').split('\n'), max - preview.length - 2, t)}\n\n${preview}`;
}

/** The reply to a `/settings` outcome (asked, or confirmed with the button). */
export async function answerSettings(
  edit: EditReply,
  t: T,
  outcome: SettingsOutcome,
  actor: { guildId: string; userId: string },
  { services, logger }: CommandContext,
): Promise<void> {
  const rules = await services.rules.list(actor.guildId);
  switch (outcome.kind) {
    case 'invalid':
    case 'not_allowed':
      await edit({
        content: fitMessage([t('settings.nothingChanged'), ...outcome.said.map((p) => `• ${settingsProblemWords(t, p)}`)], 1900, t),
      });
      return;
    case 'used':
      await edit({ content: t('preview.expired', { minutes: CONFIRMATION_MINUTES }) });
      return;
    case 'preview':
      await edit(previewReply(t, t('preview.settings'), outcome));
      return;
    case 'shown':
      await edit({
        content: `${t('settings.title')}\n${renderSettings(outcome.settings, outcome.join, outcome.channels, rules, outcome.patronMessages, outcome.choices, t)}`,
      });
      return;
    case 'strict_pending':
      await edit({
        content: withStrictPreview(
          [
            t('settings.title'),
            renderSettings(outcome.settings, outcome.join, outcome.channels, rules, outcome.patronMessages, outcome.choices, t),
          ],
          strictPreviewLines(outcome.strict, t),
          1900,
          t,
        ),
        components: [strictButton(outcome.strict, t)],
      });
      return;
    case 'changed': {
      const { strict: request } = outcome;
      const head = [
        t('settings.saved'),
        renderSettings(outcome.settings, outcome.join, outcome.channels, rules, outcome.patronMessages, outcome.choices, t),
        ...outcome.notes.map((n) => `• ${channelNoteWords(t, n)}`),
      ];
      const components = request ? [strictButton(request, t)] : [];
      const content = request
        ? withStrictPreview(head, strictPreviewLines(request, t), 1800, t)
        : fitMessage(head.join('\n').split('\n'), 1800, t);
      await reportApply((text) => edit({ content: text, components }), content, outcome.followUp, logger, t);
    }
  }
}
