import { InteractionContextType, MessageFlags, SlashCommandBuilder } from 'discord.js';
import type { Command } from '../command';

/**
 * `/privacy`: whether announcements may name you (a welcome when you become a patron), and whether
 * Tierlink may send you direct messages about your membership. With no option, shows both.
 */
export const privacyCommand: Command = {
  data: new SlashCommandBuilder()
    .setName('privacy')
    .setDescription('Whether announcements may name you, and whether Tierlink may message you')
    .setContexts(InteractionContextType.Guild)
    .addBooleanOption((o) => o.setName('announcements').setDescription('May welcomes of new patrons name you? (on by default)'))
    .addBooleanOption((o) =>
      o
        .setName('direct_messages')
        .setDescription('May Tierlink message you when a payment is declined or your link changes? (on by default)'),
    )
    .toJSON(),
  async execute(interaction, { services }) {
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const announcements = interaction.options.getBoolean('announcements');
    const directMessages = interaction.options.getBoolean('direct_messages');
    const changed = announcements !== null || directMessages !== null;
    const now = changed
      ? await services.privacy.set(interaction.user.id, {
          ...(announcements !== null ? { namedInAnnouncements: announcements } : {}),
          ...(directMessages !== null ? { directMessages } : {}),
        })
      : await services.privacy.of(interaction.user.id);
    const lines = [
      changed ? 'Saved, in every server Tierlink serves.' : 'Your choices, in every server Tierlink serves:',
      now.namedInAnnouncements
        ? 'Announcements: **on**. A welcome may name you (by your Discord name, never your Patreon name) when you become a patron.'
        : 'Announcements: **off**. Welcomes never name you.',
      now.directMessages
        ? 'Direct messages: **on**, where the server sends them (a declined payment, the end of your grace period, a new link).'
        : 'Direct messages: **off**. Tierlink never messages you.',
      'Change either with `/privacy announcements:` or `/privacy direct_messages:`.',
    ];
    await interaction.editReply({ content: lines.join('\n') });
  },
};
