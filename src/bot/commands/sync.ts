import { InteractionContextType, MessageFlags, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import type { Command } from '../command';
import { NO_PINGS } from '../format';

/** `/sync [dry_run] [force]` (Manage Roles): a full sync of this server now, or its plan. */
export const syncCommand: Command = {
  data: new SlashCommandBuilder()
    .setName('sync')
    .setDescription('Sync every member’s roles now (or preview the plan)')
    .setContexts(InteractionContextType.Guild)
    .setDefaultMemberPermissions(PermissionFlagsBits.ManageRoles)
    .addBooleanOption((o) => o.setName('dry_run').setDescription('Only show what would change'))
    .addBooleanOption((o) => o.setName('force').setDescription('Apply removals even above the mass-removal guard'))
    .toJSON(),
  permission: { bit: PermissionFlagsBits.ManageRoles, name: 'Manage Roles' },
  async execute(interaction, { services }) {
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const text = await services.sync.runForGuild(interaction.guildId!, {
      dryRun: interaction.options.getBoolean('dry_run') ?? false,
      force: interaction.options.getBoolean('force') ?? false,
    });
    await interaction.editReply({ content: text, allowedMentions: NO_PINGS });
  },
};
