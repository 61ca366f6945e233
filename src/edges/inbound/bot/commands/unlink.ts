import { InteractionContextType, MessageFlags, SlashCommandBuilder } from 'discord.js';
import type { Command } from '../command';
import { NO_PINGS, roleMention } from '../format';

/** `/unlink`: forgets the link and removes the roles Tierlink granted; says which. */
export const unlinkCommand: Command = {
  data: new SlashCommandBuilder()
    .setName('unlink')
    .setDescription('Unlink your Patreon membership and remove the roles Tierlink gave you')
    .setContexts(InteractionContextType.Guild)
    .toJSON(),
  async execute(interaction, { services }) {
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
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
    await interaction.editReply({ content: lines.join('\n'), allowedMentions: NO_PINGS });
  },
};
