import { ActionRowBuilder, ButtonBuilder, ButtonStyle, type ButtonInteraction } from 'discord.js';
import type { GuildApplyOutcome } from '../../../../app/sync';
import type { StrictRequest } from '../../../../app/admin/settings-service';
import { STRICT_CONFIRMATION_MS } from '../../../../app/admin/settings-service';
import type { Logger } from '../../../../shared/logger';
import type { CommandContext } from '../command';
import { type T, translator } from '../../../../core/i18n';
import { NO_PINGS, describeGuildApply, fitMessage } from '../format';
import { speakerFor } from '../speak';
import { settingsProblemWords } from '../../../../core/settings-problem-text';

/** The `custom_id` prefix of the button that confirms strict mode; the confirmation token follows it. */
export const STRICT_BUTTON_PREFIX = 'strict-on:';

/** What turning strict mode on would remove, and how to confirm it, as lines of a Discord message in the member's language. */
export function strictPreviewLines(request: StrictRequest, t: T = translator('en')): string[] {
  const { preview } = request;
  const members = (count: number) => t('apply.members', { count });
  const lines = [t('strict.notYet')];
  if (preview.roles.length === 0) {
    lines.push(t(preview.incomplete ? 'strict.removeNothingRead' : 'strict.removeNothing'));
  } else {
    lines.push(t('strict.removeFrom', { members: members(preview.members) }));
    for (const role of preview.roles) lines.push(t('strict.roleFrom', { role: role.roleName, members: members(role.members) }));
    if (preview.examples.length > 0) lines.push(t('strict.examples', { names: preview.examples.join(', ') }));
  }
  if (preview.incomplete) lines.push(t('strict.incomplete'));
  if (preview.spared.length > 0) lines.push(t('strict.spared', { roles: preview.spared.map((r) => `**${r.roleName}**`).join(', ') }));
  lines.push(t('strict.press', { minutes: STRICT_CONFIRMATION_MS / 60_000 }));
  return lines;
}

export function strictButton(request: StrictRequest, t: T = translator('en')): ActionRowBuilder<ButtonBuilder> {
  return new ActionRowBuilder<ButtonBuilder>().addComponents(
    new ButtonBuilder()
      .setStyle(ButtonStyle.Danger)
      .setCustomId(`${STRICT_BUTTON_PREFIX}${request.confirmation}`)
      .setLabel(t('strict.button')),
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
    await edit(`${head}\n${describeGuildApply(await followUp, t)}`);
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
  const { t } = speakerFor(interaction);
  switch (outcome.kind) {
    case 'not_yours':
      await edit(t('strict.notYours'));
      return;
    case 'expired':
      await edit(t('strict.expired', { minutes: STRICT_CONFIRMATION_MS / 60_000 }));
      return;
    case 'already_on':
      await edit(t('strict.alreadyOn'));
      return;
    case 'not_allowed':
      await edit(fitMessage([t('strict.notTurnedOn'), ...outcome.said.map((p) => `• ${settingsProblemWords(t, p)}`)], 1900, t));
      return;
    case 'changed':
      await reportApply(edit, t('strict.on'), outcome.followUp, logger, t);
  }
}
