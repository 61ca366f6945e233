import { InteractionContextType, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import type { TierLine } from '../../../../app/admin/tiers-service';
import type { Command } from '../command';
import { priceText } from '../../../../core/i18n/price';
import { NO_PINGS, fitMessage, roleMention } from '../format';
import { ENGLISH_SPEAKER, type Speaker, listFor, speakerFor } from '../speak';

/**
 * The `/tiers` text in the reader's language. A role's problem (why it is held back or cannot be
 * given) is the planner's English data and stays so.
 */
export function renderTiers(tiers: readonly TierLine[], speaker: Speaker = ENGLISH_SPEAKER): string {
  const { t } = speaker;
  if (tiers.length === 0) return t('tiers.none');
  const lines: string[] = [];
  let campaign = '';
  for (const tier of tiers) {
    if (tier.campaignName !== campaign) {
      campaign = tier.campaignName;
      lines.push(`**${campaign}**`);
    }
    const patrons = tier.patronCount === null ? '' : ` · ${t('tiers.patrons', { count: tier.patronCount })}`;
    lines.push(
      `**${tier.title}** — ${priceText({ ...tier.pricing, amountCents: tier.amountCents }, t)}${patrons}${tier.published ? '' : ` · ${t('tiers.unpublished')}`}`,
    );
    const here = tier.roles.filter((r) => r.elsewhere === null);
    if (here.length === 0) lines.push(`  • ${t('tiers.noRole', { tier: tier.title })}`);
    for (const r of here) {
      const name = r.roleName ? roleMention(r.roleId) : t('status.role', { id: r.roleId });
      const from = t(r.source === 'map' ? 'tiers.fromMap' : 'tiers.fromPatreon');
      const problem = r.problem ?? r.heldBack;
      lines.push(`  • ${name} (${from})${problem ? ` ⚠️ ${problem.message} → ${problem.fix}` : ''}`);
    }
    const elsewhere = [...new Set(tier.roles.flatMap((r) => (r.elsewhere === null ? [] : [r.elsewhere])))];
    if (elsewhere.length > 0)
      lines.push(
        `  • ${t('tiers.elsewhere', {
          servers: listFor(
            speaker,
            elsewhere.map((n) => `**${n}**`),
          ),
        })}`,
      );
  }
  return fitMessage(lines, undefined, t);
}

/** `/tiers` (Manage Roles): the campaign's tiers, the roles each grants and where the mapping comes from. */
export const tiersCommand: Command = {
  data: new SlashCommandBuilder()
    .setName('tiers')
    .setDescription('List the campaign’s tiers and the roles each grants')
    .setContexts(InteractionContextType.Guild)
    .setDefaultMemberPermissions(PermissionFlagsBits.ManageRoles)
    .toJSON(),
  permission: { bit: PermissionFlagsBits.ManageRoles, name: 'Manage Roles' },
  async execute(interaction, { services }) {
    const tiers = await services.tiers.list(interaction.guildId!);
    await interaction.editReply({ content: renderTiers(tiers, speakerFor(interaction)), allowedMentions: NO_PINGS });
  },
};
