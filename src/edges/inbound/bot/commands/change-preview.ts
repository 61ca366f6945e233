import { ActionRowBuilder, ButtonBuilder, ButtonStyle } from 'discord.js';
import type { ChangePreview } from '../../../../app/sync/change-preview';
import { CHANGE_CONFIRMATION_MS, type Confirmation } from '../../../../app/admin/pending-changes';
import type { T } from '../../../../core/i18n';
import { NO_PINGS, fitMessage, roleMention } from '../format';

/** The `custom_id` prefix of Confirm (`change:y:<token>`) and Cancel (`change:n:<token>`) of a change shown first. */
export const CHANGE_BUTTON_PREFIX = 'change:';

export const CONFIRMATION_MINUTES = CHANGE_CONFIRMATION_MS / 60_000;

/** What a change would do, in people's words: "gives @Silver bonus to 4 members", "removes nothing". */
export function previewLines(t: T, head: string, preview: ChangePreview, changedSince: boolean): string[] {
  const lines = changedSince ? [t('preview.changedSince'), head] : [head];
  if (preview.gives.length === 0) lines.push(t('preview.givesNothing'));
  for (const r of preview.gives) lines.push(t('preview.gives', { role: roleMention(r.roleId), count: r.members }));
  if (preview.removes.length === 0) lines.push(t('preview.removesNothing'));
  for (const r of preview.removes) lines.push(t('preview.removes', { role: roleMention(r.roleId), count: r.members }));
  if (preview.examples.length > 0) lines.push(t('preview.examples', { names: preview.examples.join(', ') }));
  if (preview.incomplete) lines.push(t('preview.incomplete'));
  lines.push(t('preview.press', { minutes: CONFIRMATION_MINUTES }));
  return lines;
}

export function previewButtons(t: T, confirmation: Confirmation): ActionRowBuilder<ButtonBuilder> {
  return new ActionRowBuilder<ButtonBuilder>().addComponents(
    new ButtonBuilder()
      .setStyle(ButtonStyle.Primary)
      .setCustomId(`${CHANGE_BUTTON_PREFIX}y:${confirmation.token}`)
      .setLabel(t('preview.confirm')),
    new ButtonBuilder()
      .setStyle(ButtonStyle.Secondary)
      .setCustomId(`${CHANGE_BUTTON_PREFIX}n:${confirmation.token}`)
      .setLabel(t('preview.cancel')),
  );
}

/** A change shown first, as a reply: what it would do under `head`, fitted to Discord's length, with Confirm and Cancel. */
export function previewReply(
  t: T,
  head: string,
  shown: { preview: ChangePreview; changedSince: boolean; confirmation: Confirmation },
): { content: string; components: Array<ActionRowBuilder<ButtonBuilder>> } {
  return {
    content: fitMessage(previewLines(t, head, shown.preview, shown.changedSince), 1900, t),
    components: [previewButtons(t, shown.confirmation)],
  };
}

/** Edits the reply (the command's, or the message a button sits on); its buttons go unless new ones are given. */
export type EditReply = (o: { content: string; components?: Array<ActionRowBuilder<ButtonBuilder>> }) => Promise<unknown>;

export function editorOf(interaction: { editReply(options: object): Promise<unknown> }): EditReply {
  return ({ content, components = [] }) => interaction.editReply({ content, components, allowedMentions: NO_PINGS });
}
