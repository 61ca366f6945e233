import { ActionRowBuilder, ButtonBuilder, ButtonStyle, InteractionContextType, MessageFlags, SlashCommandBuilder } from 'discord.js';
import { LINK_LIFETIME_MS } from '../../../../app/linking/one-time-links';
import type { ChatInputCommandInteraction } from 'discord.js';
import type { KofiLinkPort } from '../bot-services';
import type { Command } from '../command';
import { speakerFor } from '../speak';
import { withLanguage } from '../page-address';

/**
 * `/link source:Ko-fi`: Ko-fi has no sign-in, so the proof is a one-time code the person puts in the
 * message of a Ko-fi payment; that payment's supporter is then linked to them (docs/kofi.md).
 */
async function linkKofi(interaction: ChatInputCommandInteraction, kofi: KofiLinkPort | null): Promise<void> {
  if (!kofi) {
    await interaction.reply({
      content: 'This server does not take Ko-fi payments into account: there is nothing to link on Ko-fi here. Run /link for Patreon.',
      flags: MessageFlags.Ephemeral,
    });
    return;
  }
  const code = await kofi.linkCode(interaction.user.id, interaction.guildId!);
  if (code.kind === 'too_many') {
    await interaction.reply({
      content:
        'You already hold three Ko-fi link codes that are not used yet. Use one of them (in the message of a Ko-fi payment), or wait until they expire.',
      flags: MessageFlags.Ephemeral,
    });
    return;
  }
  const until = code.expiresAt.toISOString().slice(0, 10);
  await interaction.reply({
    content:
      `To link your Ko-fi support, write this code in the message of your next Ko-fi payment (a one-off tip works, from the same Ko-fi account): **${code.code}**\n` +
      `When Ko-fi tells us about that payment, your Ko-fi account is linked to you and you get your roles here. ` +
      `The code is just for you, works once, until ${until}. If your Ko-fi account is connected to Discord, you don’t need it: your payments link by themselves.`,
    flags: MessageFlags.Ephemeral,
  });
}

/** `/link`: an ephemeral one-time link (a button) to link a Patreon membership, in the member's language. */
export const linkCommand: Command = {
  data: new SlashCommandBuilder()
    .setName('link')
    .setDescription('Link your Patreon membership to get your tier roles')
    .setContexts(InteractionContextType.Guild)
    .addStringOption((o) =>
      o
        .setName('source')
        .setDescription('Where you pay: Patreon (the default) or Ko-fi')
        .addChoices({ name: 'Patreon', value: 'patreon' }, { name: 'Ko-fi', value: 'kofi' }),
    )
    .toJSON(),
  async execute(interaction, { services }) {
    if (interaction.options.getString('source') === 'kofi') return linkKofi(interaction, services.kofi ?? null);
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
