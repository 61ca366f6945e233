import { ActionRowBuilder, ButtonBuilder, ButtonStyle, InteractionContextType, MessageFlags, SlashCommandBuilder } from 'discord.js';
import type { ButtonInteraction } from 'discord.js';
import type { Command, CommandContext } from '../command';
import { NO_PINGS, roleMention } from '../format';
import { speakerFor } from '../speak';

/** The `custom_id` prefix of the button that confirms `/unlink`; the Discord user it was made for follows it. */
export const UNLINK_BUTTON_PREFIX = 'unlink:';

/**
 * `/unlink` asks first: it says what unlinking removes here (the roles Tierlink gave, from its
 * ledger) and unlinks only when the member presses the button. Nothing changes otherwise. Both
 * answers are in the member's language.
 */
export const unlinkCommand: Command = {
  data: new SlashCommandBuilder()
    .setName('unlink')
    .setDescription('Unlink your Patreon membership and remove the roles Tierlink gave you')
    .setContexts(InteractionContextType.Guild)
    .toJSON(),
  async execute(interaction, { services }) {
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const { t } = speakerFor(interaction);
    const status = await services.status.explain(interaction.guildId!, interaction.user.id);
    if (!status.linked) {
      await interaction.editReply({ content: `${t('unlink.none')}\n${t('unlink.again')}` });
      return;
    }
    const roles = status.grantedRoleIds;
    const lines = [
      t('unlink.confirmTitle'),
      roles.length > 0 ? t('unlink.wouldRemove', { roles: roles.map(roleMention).join(', ') }) : t('unlink.wouldRemoveNone'),
      t('unlink.pressToConfirm'),
    ];
    const button = new ActionRowBuilder<ButtonBuilder>().addComponents(
      new ButtonBuilder()
        .setStyle(ButtonStyle.Danger)
        .setCustomId(`${UNLINK_BUTTON_PREFIX}${interaction.user.id}`)
        .setLabel(t('unlink.button')),
    );
    await interaction.editReply({ content: lines.join('\n'), components: [button], allowedMentions: NO_PINGS });
  },
  button: { prefix: UNLINK_BUTTON_PREFIX, press: pressUnlink },
};

/** The confirmation: only the member it was made for unlinks, and only themselves. */
async function pressUnlink(interaction: ButtonInteraction, { services }: CommandContext): Promise<void> {
  const { t } = speakerFor(interaction);
  const forUser = interaction.customId.slice(UNLINK_BUTTON_PREFIX.length);
  if (forUser !== interaction.user.id) {
    await interaction.followUp({ content: t('unlink.notYours'), flags: MessageFlags.Ephemeral });
    return;
  }
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
  await interaction.editReply({ content: lines.join('\n'), components: [], allowedMentions: NO_PINGS });
}
