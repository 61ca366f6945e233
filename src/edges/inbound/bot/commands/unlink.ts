import { ActionRowBuilder, ButtonBuilder, ButtonStyle, InteractionContextType, MessageFlags, SlashCommandBuilder } from 'discord.js';
import type { ButtonInteraction } from 'discord.js';
import type { Command, CommandContext } from '../command';
import { NO_PINGS, roleMention } from '../format';

/** The `custom_id` prefix of the button that confirms `/unlink`; the Discord user it was made for follows it. */
export const UNLINK_BUTTON_PREFIX = 'unlink:';

/**
 * `/unlink` asks first: it says what unlinking removes here (the roles Tierlink gave, from its
 * ledger) and unlinks only when the member presses the button. Nothing changes otherwise.
 */
export const unlinkCommand: Command = {
  data: new SlashCommandBuilder()
    .setName('unlink')
    .setDescription('Unlink your Patreon membership and remove the roles Tierlink gave you')
    .setContexts(InteractionContextType.Guild)
    .toJSON(),
  async execute(interaction, { services }) {
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const status = await services.status.explain(interaction.guildId!, interaction.user.id);
    if (!status.linked) {
      await interaction.editReply({ content: 'You had no linked Patreon membership.\nRun /link any time to link.' });
      return;
    }
    const roles = status.grantedRoleIds;
    const lines = [
      '**Unlink your Patreon membership?**',
      roles.length > 0
        ? `Tierlink would remove here: ${roles.map(roleMention).join(', ')} (and the roles it gave you in other servers).`
        : 'Tierlink gave you no roles here, so none would be removed here (roles it gave you in other servers would go).',
      'Press **Unlink** to confirm; otherwise nothing changes.',
    ];
    const button = new ActionRowBuilder<ButtonBuilder>().addComponents(
      new ButtonBuilder().setStyle(ButtonStyle.Danger).setCustomId(`${UNLINK_BUTTON_PREFIX}${interaction.user.id}`).setLabel('Unlink'),
    );
    await interaction.editReply({ content: lines.join('\n'), components: [button], allowedMentions: NO_PINGS });
  },
  button: { prefix: UNLINK_BUTTON_PREFIX, press: pressUnlink },
};

/** The confirmation: only the member it was made for unlinks, and only themselves. */
async function pressUnlink(interaction: ButtonInteraction, { services }: CommandContext): Promise<void> {
  const forUser = interaction.customId.slice(UNLINK_BUTTON_PREFIX.length);
  if (forUser !== interaction.user.id) {
    await interaction.followUp({ content: 'This button unlinks someone else. Run /unlink yourself.', flags: MessageFlags.Ephemeral });
    return;
  }
  const { wasLinked, outcomes } = await services.link.unlink(interaction.user.id);
  const removed = outcomes.flatMap((o) =>
    (o.result?.applied ?? []).filter((c) => c.op === 'remove').map((c) => ({ guildId: o.guildId, roleId: c.roleId })),
  );
  const here = removed.filter((r) => r.guildId === interaction.guildId);
  const elsewhere = removed.length - here.length;
  const lines = [wasLinked ? 'Your Patreon membership is unlinked.' : 'You had no linked Patreon membership.'];
  if (here.length > 0) lines.push(`Removed here: ${here.map((r) => roleMention(r.roleId)).join(', ')}.`);
  else lines.push('No roles of yours were granted by Tierlink here, so none were removed.');
  if (elsewhere > 0) lines.push(`Also removed ${elsewhere} role${elsewhere === 1 ? '' : 's'} in other servers.`);
  const failed = outcomes.flatMap((o) => o.result?.failed ?? []);
  if (failed.length > 0)
    lines.push(`Could not remove ${failed.length} role${failed.length === 1 ? '' : 's'}: the server’s owner can run /doctor.`);
  lines.push('Run /link any time to link again.');
  await interaction.editReply({ content: lines.join('\n'), components: [], allowedMentions: NO_PINGS });
}
