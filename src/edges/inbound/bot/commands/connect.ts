import { ActionRowBuilder, ButtonBuilder, ButtonStyle, InteractionContextType, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import { LINK_LIFETIME_MS } from '../../../../app/linking/one-time-links';
import type { Command } from '../command';

/** Why only the owner or an administrator connects a campaign, and who to ask. */
export const CONNECT_REFUSAL =
  'Only the server owner or an administrator can connect a Patreon campaign: every role its tiers name is given to their ' +
  'patrons. Ask one of them to run /connect.';

/**
 * `/connect` (the server owner or an Administrator): a one-time link for the creator to connect a
 * campaign to this server. A campaign's tiers name the roles its patrons get, so connecting one is
 * as much power as giving those roles: Manage Server is not enough.
 */
export const connectCommand: Command = {
  data: new SlashCommandBuilder()
    .setName('connect')
    .setDescription('Connect your Patreon campaign to this server (creators)')
    .setContexts(InteractionContextType.Guild)
    .setDefaultMemberPermissions(PermissionFlagsBits.Administrator)
    .toJSON(),
  permission: { bit: PermissionFlagsBits.Administrator, name: 'Administrator', refusal: CONNECT_REFUSAL },
  async execute(interaction, { services }) {
    const started = await services.connect.start(interaction.user.id, { id: interaction.guildId!, name: interaction.guild?.name ?? null });
    if (started.kind === 'not_allowed') {
      await interaction.editReply({ content: CONNECT_REFUSAL });
      return;
    }
    const { url } = started;
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
