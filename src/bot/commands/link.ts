import { ActionRowBuilder, ButtonBuilder, ButtonStyle, InteractionContextType, MessageFlags, SlashCommandBuilder } from 'discord.js';
import { LINK_LIFETIME_MS } from '../../linking/one-time-links';
import type { Command } from '../command';

/** `/link`: an ephemeral one-time link (a button) to link a Patreon membership. */
export const linkCommand: Command = {
  data: new SlashCommandBuilder()
    .setName('link')
    .setDescription('Link your Patreon membership to get your tier roles')
    .setContexts(InteractionContextType.Guild)
    .toJSON(),
  async execute(interaction, { services }) {
    // One insert, well inside Discord's 3-second window: no need to defer.
    const { url } = await services.link.start(interaction.user.id, interaction.guildId!);
    await interaction.reply({
      content:
        `Link your Patreon membership to get your tier roles here.\n` +
        `This button is just for you: it works once, for ${LINK_LIFETIME_MS / 60_000} minutes.`,
      components: [
        new ActionRowBuilder<ButtonBuilder>().addComponents(new ButtonBuilder().setStyle(ButtonStyle.Link).setURL(url).setLabel('Link Patreon')),
      ],
      flags: MessageFlags.Ephemeral,
    });
  },
};
