import { InteractionContextType, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import type { Command } from '../command';
import { NO_PINGS } from '../format';
import { speakerFor } from '../speak';

/** `/doctor` (Manage Roles): checks everything that makes roles fail and says how to fix each problem; its frame in the asker's language. */
export const doctorCommand: Command = {
  data: new SlashCommandBuilder()
    .setName('doctor')
    .setDescription('Check permissions, role order, intents, the Patreon connection and the last sync')
    .setContexts(InteractionContextType.Guild)
    .setDefaultMemberPermissions(PermissionFlagsBits.ManageRoles)
    .toJSON(),
  permission: { bit: PermissionFlagsBits.ManageRoles, name: 'Manage Roles' },
  async execute(interaction, { services }) {
    await interaction.editReply({
      content: await services.doctor.report(interaction.guildId!, speakerFor(interaction).locale),
      allowedMentions: NO_PINGS,
    });
  },
};
