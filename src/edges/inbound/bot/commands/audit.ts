import { InteractionContextType, MessageFlags, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import { type AuditEntry, TRIGGER_LABELS } from '../../../../app/dashboard/views';
import type { Command } from '../command';
import { NO_PINGS, fitMessage, roleMention } from '../format';

/** Changes listed by `/audit` (the dashboard's audit log has them all). */
export const AUDIT_REPLY_SIZE = 15;

const VERB: Record<AuditEntry['action'], string> = { add: 'gave', remove: 'took away', forget: 'forgot', adopt: 'adopted' };

export function renderAudit(userId: string, entries: readonly AuditEntry[]): string {
  if (entries.length === 0) return `Tierlink has not changed any role of <@${userId}> in this server.`;
  const lines = [`**Last role changes of <@${userId}>** (newest first)`];
  for (const e of entries) {
    const when = e.at.toISOString().slice(0, 16).replace('T', ' ');
    const outcome = e.outcome === 'applied' ? '' : ` — **${e.outcome}**${e.error ? ` (${e.error.slice(0, 120)})` : ''}`;
    lines.push(
      `• ${when} UTC: ${VERB[e.action]} ${roleMention(e.roleId)}${outcome} · ${TRIGGER_LABELS[e.trigger as keyof typeof TRIGGER_LABELS] ?? e.trigger} · ${e.reason.slice(0, 200)}`,
    );
  }
  return fitMessage(lines);
}

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
    await interaction.editReply({ content: renderAudit(member.id, page.entries), allowedMentions: NO_PINGS });
  },
};
