import { ActionRowBuilder, ButtonBuilder, ButtonStyle, type ButtonInteraction } from 'discord.js';
import type { GuildApplyOutcome } from '../../../../app/sync';
import type { StrictRequest } from '../../../../app/admin/settings-service';
import { STRICT_CONFIRMATION_MS } from '../../../../app/admin/settings-service';
import type { Logger } from '../../../../shared/logger';
import type { CommandContext } from '../command';
import { type T, translator } from '../../../../core/i18n';
import { NO_PINGS, describeGuildApply, fitMessage } from '../format';

/** The `custom_id` prefix of the button that confirms strict mode; the confirmation token follows it. */
export const STRICT_BUTTON_PREFIX = 'strict-on:';

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** What turning strict mode on would remove, and how to confirm it, as lines of a Discord message. */
export function strictPreviewLines(request: StrictRequest): string[] {
  const { preview } = request;
  const lines = [
    '**Strict mode is not on yet.** Once on, it removes the roles Tierlink manages from every member who is not entitled ' +
      'to them, even roles given by hand.',
  ];
  if (preview.roles.length === 0) {
    lines.push(`Right now it would remove nothing${preview.incomplete ? ' that Tierlink could read' : ''}.`);
  } else {
    lines.push(`Right now it would remove, from ${plural(preview.members, 'member')}:`);
    for (const role of preview.roles) lines.push(`• **${role.roleName}** from ${plural(role.members, 'member')}`);
    if (preview.examples.length > 0) lines.push(`For example: ${preview.examples.join(', ')}.`);
  }
  if (preview.incomplete) lines.push('Some members could not be read just now, so there may be more.');
  if (preview.spared.length > 0) {
    lines.push(
      `Never removed by strict mode, because they carry powerful permissions: ${preview.spared.map((r) => `**${r.roleName}**`).join(', ')}.`,
    );
  }
  lines.push(`Press **Turn strict mode on** within ${STRICT_CONFIRMATION_MS / 60_000} minutes to confirm; otherwise nothing changes.`);
  return lines;
}

export function strictButton(request: StrictRequest): ActionRowBuilder<ButtonBuilder> {
  return new ActionRowBuilder<ButtonBuilder>().addComponents(
    new ButtonBuilder()
      .setStyle(ButtonStyle.Danger)
      .setCustomId(`${STRICT_BUTTON_PREFIX}${request.confirmation}`)
      .setLabel('Turn strict mode on'),
  );
}

/** Edits the reply with `head`, then with what the guild-wide apply did. */
export async function reportApply(
  edit: (content: string) => Promise<unknown>,
  head: string,
  followUp: Promise<GuildApplyOutcome> | null,
  logger: Logger,
  t: T = translator('en'),
): Promise<void> {
  if (!followUp) {
    await edit(head);
    return;
  }
  await edit(`${head}\n${t('settings.updating')}`);
  try {
    await edit(`${head}\n${describeGuildApply(await followUp)}`);
  } catch (error) {
    logger.error({ err: error }, 'roles update after /settings failed');
    await edit(`${head}\n${t('settings.updateFailed')}`);
  }
}

/** The confirmation button: only the member it was made for, within its time, with the authority it needs. */
export async function pressStrictButton(interaction: ButtonInteraction, { services, logger }: CommandContext): Promise<void> {
  const token = interaction.customId.slice(STRICT_BUTTON_PREFIX.length);
  const outcome = await services.settings.confirmStrict({ guildId: interaction.guildId!, userId: interaction.user.id }, token);
  const edit = (content: string) => interaction.editReply({ content, components: [], allowedMentions: NO_PINGS });
  switch (outcome.kind) {
    case 'not_yours':
      await edit('This confirmation was made for someone else. Run /settings strict:true yourself to see what strict mode would remove.');
      return;
    case 'expired':
      await edit(
        `This confirmation expired (it lasts ${STRICT_CONFIRMATION_MS / 60_000} minutes). Run /settings strict:true again to see what ` +
          'strict mode would remove now.',
      );
      return;
    case 'already_on':
      await edit('Strict mode is already on.');
      return;
    case 'not_allowed':
      await edit(fitMessage(['Strict mode was not turned on:', ...outcome.problems.map((p) => `• ${p}`)]));
      return;
    case 'changed':
      await reportApply(edit, '**Strict mode is on.**', outcome.followUp, logger);
  }
}
