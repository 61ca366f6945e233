import { InteractionContextType, MessageFlags, SlashCommandBuilder } from 'discord.js';
import type { Command } from '../command';
import { NO_PINGS, roleMention } from '../format';
import { speakerFor } from '../speak';

/** `/unlink`: forgets the link and removes the roles Tierlink granted; says which, in the member's language. */
export const unlinkCommand: Command = {
  data: new SlashCommandBuilder()
    .setName('unlink')
    .setDescription('Unlink your Patreon membership and remove the roles Tierlink gave you')
    .setContexts(InteractionContextType.Guild)
    .toJSON(),
  async execute(interaction, { services }) {
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const { t } = speakerFor(interaction);
    const { wasLinked, outcomes } = await services.link.unlink(interaction.user.id);
    const removed = outcomes.flatMap((o) =>
      (o.result?.applied ?? []).filter((c) => c.op === 'remove').map((c) => ({ guildId: o.guildId, roleId: c.roleId })),
    );
    const here = removed.filter((r) => r.guildId === interaction.guildId);
    const elsewhere = removed.length - here.length;
    const lines = [t(wasLinked ? 'unlink.done' : 'unlink.none')];
    if (here.length > 0) lines.push(t('unlink.removedHere', { roles: here.map((r) => roleMention(r.roleId)).join(', ') }));
    else lines.push(t('unlink.noneHere'));
    if (elsewhere > 0) lines.push(t('unlink.elsewhere', { count: elsewhere }));
    const failed = outcomes.flatMap((o) => o.result?.failed ?? []);
    if (failed.length > 0) lines.push(t('unlink.failed', { count: failed.length }));
    lines.push(t('unlink.again'));
    await interaction.editReply({ content: lines.join('\n'), allowedMentions: NO_PINGS });
  },
};
