import { ActionRowBuilder, ButtonBuilder, ButtonStyle, InteractionContextType, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import { LINK_LIFETIME_MS } from '../../../../app/linking/one-time-links';
import type { Command } from '../command';

/** `/connect` (Manage Server): a one-time link for the creator to connect a campaign to this server. */
export const connectCommand: Command = {
  data: new SlashCommandBuilder()
    .setName('connect')
    .setDescription('Connect your Patreon campaign to this server (creators)')
    .setContexts(InteractionContextType.Guild)
    .setDefaultMemberPermissions(PermissionFlagsBits.ManageGuild)
    .toJSON(),
  permission: { bit: PermissionFlagsBits.ManageGuild, name: 'Manage Server' },
  async execute(interaction, { services }) {
    const { url } = await services.connect.start(interaction.user.id, { id: interaction.guildId!, name: interaction.guild?.name ?? null });
    await interaction.editReply({
      content:
        'Sign in with the Patreon account that owns the campaign. Tierlink asks to read your campaign, its tiers and members, and to manage its webhooks.\n' +
        `The link is just for you: it works once, for ${LINK_LIFETIME_MS / 60_000} minutes.`,
      components: [
        new ActionRowBuilder<ButtonBuilder>().addComponents(
          new ButtonBuilder().setStyle(ButtonStyle.Link).setURL(url).setLabel('Connect Patreon'),
        ),
      ],
    });
  },
};
