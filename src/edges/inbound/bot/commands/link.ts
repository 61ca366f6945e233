import { ActionRowBuilder, ButtonBuilder, ButtonStyle, InteractionContextType, MessageFlags, SlashCommandBuilder } from 'discord.js';
import { LINK_LIFETIME_MS } from '../../../../app/linking/one-time-links';
import { matchLocale } from '../../../../core/i18n';
import type { Command } from '../command';
import { speakerFor } from '../speak';

/**
 * The one-time link with the member's language, when Discord's client names one of ours other
 * than English: the pages of the link flow then speak it (a `lang` the web pages read;
 * src/edges/inbound/web/page-language.ts). English, the default, leaves the browser's language to decide.
 */
function withLanguage(url: string, discordLocale: string | null | undefined): string {
  const locale = matchLocale(discordLocale);
  if (!locale || locale === 'en') return url;
  const address = new URL(url);
  address.searchParams.set('lang', locale);
  return address.toString();
}

/** `/link`: an ephemeral one-time link (a button) to link a Patreon membership, in the member's language. */
export const linkCommand: Command = {
  data: new SlashCommandBuilder()
    .setName('link')
    .setDescription('Link your Patreon membership to get your tier roles')
    .setContexts(InteractionContextType.Guild)
    .toJSON(),
  async execute(interaction, { services }) {
    const { t } = speakerFor(interaction);
    // Two reads and one insert, well inside Discord's 3-second window: no need to defer.
    const started = await services.link.start(interaction.user.id, interaction.guildId!);
    if (started.kind === 'not_connected') {
      await interaction.reply({ content: t('link.notConnected'), flags: MessageFlags.Ephemeral });
      return;
    }
    const { url, joinUrl, linkedTo } = started;
    const lines = [t('link.intro'), t('link.once', { minutes: LINK_LIFETIME_MS / 60_000 })];
    if (linkedTo) lines.push(linkedTo.name ? t('link.already', { patron: linkedTo.name }) : t('link.alreadyUnnamed'));
    if (joinUrl) lines.push(t('link.join', { url: joinUrl }));
    await interaction.reply({
      content: lines.join('\n'),
      components: [
        new ActionRowBuilder<ButtonBuilder>().addComponents(
          new ButtonBuilder().setStyle(ButtonStyle.Link).setURL(withLanguage(url, interaction.locale)).setLabel(t('link.button')),
        ),
      ],
      flags: MessageFlags.Ephemeral,
    });
  },
};
