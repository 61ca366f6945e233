import { ActionRowBuilder, ButtonBuilder, ButtonStyle, InteractionContextType, MessageFlags, SlashCommandBuilder } from 'discord.js';
import { LINK_LIFETIME_MS } from '../../../../app/linking/one-time-links';
import type { Command } from '../command';

/** `/link`: an ephemeral one-time link (a button) to link a Patreon membership. */
export const linkCommand: Command = {
  data: new SlashCommandBuilder()
    .setName('link')
    .setDescription('Link your Patreon membership to get your tier roles')
    .setContexts(InteractionContextType.Guild)
    .toJSON(),
  async execute(interaction, { services }) {
    // One read and one insert, well inside Discord's 3-second window: no need to defer.
    const started = await services.link.start(interaction.user.id, interaction.guildId!);
    if (started.kind === 'not_connected') {
      await interaction.reply({
        content:
          'This server is not connected to a Patreon campaign yet, so there are no tier roles to link. ' +
          'The server’s owner or an administrator can connect one with /connect; run /link again after that.',
        flags: MessageFlags.Ephemeral,
      });
      return;
    }
    const { url, joinUrl } = started;
    await interaction.reply({
      content:
        `Link your Patreon membership to get your tier roles here.\n` +
        `This button is just for you: it works once, for ${LINK_LIFETIME_MS / 60_000} minutes.` +
        (joinUrl ? `\nPatrons who are not in this server yet can join with their roles at ${joinUrl}` : ''),
      components: [
        new ActionRowBuilder<ButtonBuilder>().addComponents(
          new ButtonBuilder().setStyle(ButtonStyle.Link).setURL(url).setLabel('Link Patreon'),
        ),
      ],
      flags: MessageFlags.Ephemeral,
    });
  },
};
