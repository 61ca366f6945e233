import { InteractionContextType, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import type { TierLine } from '../../../../app/admin/tiers-service';
import type { Command } from '../command';
import { NO_PINGS, fitMessage, money, roleMention } from '../format';

export function renderTiers(tiers: readonly TierLine[]): string {
  if (tiers.length === 0) return 'No campaign is connected to this server yet. Run /connect to connect one.';
  const lines: string[] = [];
  let campaign = '';
  for (const t of tiers) {
    if (t.campaignName !== campaign) {
      campaign = t.campaignName;
      lines.push(`**${campaign}**`);
    }
    const patrons = t.patronCount === null ? '' : ` · ${t.patronCount} patron${t.patronCount === 1 ? '' : 's'}`;
    lines.push(`**${t.title}** — ${money(t.amountCents)}${patrons}${t.published ? '' : ' · unpublished'}`);
    const here = t.roles.filter((r) => r.elsewhere === null);
    if (here.length === 0) lines.push(`  • no role in this server — map one with /map tier:${t.title}`);
    for (const r of here) {
      const name = r.roleName ? roleMention(r.roleId) : `role ${r.roleId}`;
      const from = r.source === 'map' ? '/map' : 'the tier’s Discord role on Patreon';
      const problem = r.problem ?? r.heldBack;
      lines.push(`  • ${name} (from ${from})${problem ? ` ⚠️ ${problem.message} → ${problem.fix}` : ''}`);
    }
    const elsewhere = [...new Set(t.roles.flatMap((r) => (r.elsewhere === null ? [] : [r.elsewhere])))];
    if (elsewhere.length > 0)
      lines.push(`  • (its Discord roles on Patreon are roles of ${elsewhere.map((n) => `**${n}**`).join(', ')}, not of this server)`);
  }
  return fitMessage(lines);
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
    await interaction.editReply({ content: renderTiers(tiers), allowedMentions: NO_PINGS });
  },
};
