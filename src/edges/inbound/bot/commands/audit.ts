import { InteractionContextType, MessageFlags, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import type { AuditEntry } from '../../../../app/dashboard/views';
import { ENGLISH, type MessageKey } from '../../../../core/i18n';
import { heldReasonText, reasonText } from '../../../../core/reason-text';
import type { Command } from '../command';
import { NO_PINGS, fitMessage, roleMention } from '../format';
import { ENGLISH_SPEAKER, type Speaker, momentFor, speakerFor } from '../speak';

/** Changes listed by `/audit` (the dashboard's audit log has them all). */
export const AUDIT_REPLY_SIZE = 15;

/**
 * The `/audit` text in the reader's language: when, what, what started it, why (from the reason's
 * code; rows recorded before codes were, as recorded), and why removals were held. A failure's error
 * is what Discord answered, in English.
 */
export function renderAudit(userId: string, entries: readonly AuditEntry[], speaker: Speaker = ENGLISH_SPEAKER): string {
  const { t } = speaker;
  const who = `<@${userId}>`;
  if (entries.length === 0) return t('audit.none', { who });
  const lines = [t('audit.heading', { who })];
  for (const e of entries) {
    const error = e.error && e.outcome === 'held' ? heldReasonText(t, { reason: e.error, why: e.heldWhy }) : e.error;
    const outcome = e.outcome === 'applied' ? '' : ` — **${t(`audit.${e.outcome}`)}**${error ? ` (${error.slice(0, 120)})` : ''}`;
    const triggerKey = `trigger.${e.trigger}`;
    const trigger = isTrigger(triggerKey) ? t(triggerKey) : e.trigger;
    lines.push(
      `• ${momentFor(speaker, e.at)}: ${t(`audit.${e.action}`, { role: roleMention(e.roleId) })}${outcome} · ${trigger} · ${reasonText(t, e).slice(0, 200)}`,
    );
  }
  return fitMessage(lines, undefined, t);
}

const isTrigger = (key: string): key is Extract<MessageKey, `trigger.${string}`> => key in ENGLISH;

/**
 * `/audit member`: the member's last role changes and why. Manage Roles is checked at guild level by
 * the interaction router before this runs (src/edges/inbound/bot/interaction-router.ts).
 */
export const auditCommand: Command = {
  data: new SlashCommandBuilder()
    .setName('audit')
    .setDescription('Staff: the last role changes Tierlink made for a member, and why')
    .setContexts(InteractionContextType.Guild)
    .setDefaultMemberPermissions(PermissionFlagsBits.ManageRoles)
    .addUserOption((o) => o.setName('member').setDescription('The member').setRequired(true))
    .toJSON(),
  permission: { bit: PermissionFlagsBits.ManageRoles, name: 'Manage Roles' },
  async execute(interaction, { services }) {
    if (!interaction.deferred) await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const guildId = interaction.guildId!;
    const member = interaction.options.getUser('member', true);
    const page = await services.audit.page(
      guildId,
      { discordUserId: member.id },
      { cursor: null, direction: 'older', size: AUDIT_REPLY_SIZE },
    );
    await interaction.editReply({ content: renderAudit(member.id, page.entries, speakerFor(interaction)), allowedMentions: NO_PINGS });
  },
};
