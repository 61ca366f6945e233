import { ActionRowBuilder, ButtonBuilder, ButtonStyle, InteractionContextType, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import { LINK_LIFETIME_MS } from '../../../../app/linking/one-time-links';
import type { Command } from '../command';
import { speakerFor } from '../speak';
import { withLanguage } from '../page-address';

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
  // Why only the owner or an administrator connects a campaign, and who to ask.
  permission: { bit: PermissionFlagsBits.Administrator, name: 'Administrator', refusal: 'connect.refusal' },
  async execute(interaction, { services }) {
    const { t } = speakerFor(interaction);
    const started = await services.connect.start(interaction.user.id, { id: interaction.guildId!, name: interaction.guild?.name ?? null });
    if (started.kind === 'not_allowed') {
      await interaction.editReply({ content: t('connect.refusal') });
      return;
    }
    const { url } = started;
    await interaction.editReply({
      content: `${t('connect.intro')}\n${t('connect.once', { minutes: LINK_LIFETIME_MS / 60_000 })}`,
      components: [
        new ActionRowBuilder<ButtonBuilder>().addComponents(
          new ButtonBuilder().setStyle(ButtonStyle.Link).setURL(withLanguage(url, interaction.locale)).setLabel(t('connect.button')),
        ),
      ],
    });
  },
};
