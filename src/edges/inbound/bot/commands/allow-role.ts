import { InteractionContextType, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import type { AllowOutcome } from '../../../../app/admin/role-allowances';
import { refusalWords } from '../../../../core/refusal-text';
import type { Command } from '../command';
import { NO_PINGS, describeGuildApply } from '../format';
import { type Speaker, listFor, permissionFor, speakerFor } from '../speak';

/** Who gets an allowed role, in words: "to the patrons of Insider and as the follower role". */
function recipientsFor(speaker: Speaker, outcome: { tiers: readonly string[]; settings: readonly string[] }): string {
  const { t } = speaker;
  const parts = [
    ...(outcome.tiers.length > 0 ? [t('allow.toPatrons', { tiers: listFor(speaker, outcome.tiers) })] : []),
    ...(outcome.settings.length > 0 ? [t('allow.asSetting', { settings: listFor(speaker, outcome.settings) })] : []),
  ];
  return parts.length > 0 ? listFor(speaker, parts) : t('allow.anyTier');
}

function headOf(speaker: Speaker, outcome: Extract<AllowOutcome, { kind: 'allowed' | 'allowed_above_connector' }>): string {
  if (outcome.kind === 'allowed_above_connector')
    return speaker.t('allow.allowedAboveConnector', { role: outcome.roleName, recipients: recipientsFor(speaker, outcome) });
  return speaker.t('allow.allowed', {
    role: outcome.roleName,
    permissions: listFor(
      speaker,
      outcome.permissions.map((p) => permissionFor(speaker, p)),
    ),
    recipients: recipientsFor(speaker, outcome),
  });
}

/**
 * `/allow-role role [allowed]` (the server owner or an Administrator): a role with dangerous
 * permissions that a tier names (on Patreon or with `/map`) is held back until one of them allows
 * it here by name; `allowed:false` takes the allowance back (src/app/admin/role-allowances.ts).
 */
export const allowRoleCommand: Command = {
  data: new SlashCommandBuilder()
    .setName('allow-role')
    .setDescription('Let Tierlink give a role with powerful permissions to the patrons whose tier names it')
    .setContexts(InteractionContextType.Guild)
    .setDefaultMemberPermissions(PermissionFlagsBits.Administrator)
    .addRoleOption((o) => o.setName('role').setDescription('The role Tierlink holds back').setRequired(true))
    .addBooleanOption((o) =>
      o.setName('allowed').setDescription('false: take the allowance back (nobody new gets the role)').setRequired(false),
    )
    .toJSON(),
  permission: { bit: PermissionFlagsBits.Administrator, name: 'Administrator', refusal: 'allow.refusal' },
  async execute(interaction, ctx) {
    const speaker = speakerFor(interaction);
    const { t } = speaker;
    const outcome = await ctx.services.allowances.set(
      { guildId: interaction.guildId!, userId: interaction.user.id },
      interaction.options.getRole('role', true).id,
      interaction.options.getBoolean('allowed') ?? true,
    );
    const reply = (content: string) => interaction.editReply({ content, allowedMentions: NO_PINGS });
    switch (outcome.kind) {
      case 'not_allowed':
        // The service's refusal is the router's (the owner or an Administrator), said in the member's language.
        return void (await reply(t('allow.refusal')));
      case 'role_refused': {
        const { message, fix } = refusalWords(t, outcome);
        return void (await reply(`${t('allow.refused', { message })}\n${t('allow.fix', { fix })}`));
      }
      case 'not_dangerous':
        return void (await reply(t('allow.notDangerous', { role: outcome.roleName })));
      case 'not_allowed_before':
        return void (await reply(t('allow.notBefore', { role: outcome.roleName })));
      case 'withdrawn':
        return void (await reply(t('allow.withdrawn', { role: outcome.roleName })));
      case 'allowed':
      case 'allowed_above_connector': {
        const head = headOf(speaker, outcome);
        await reply(`${head}\n${t('allow.updating')}`);
        try {
          await reply(`${head}\n${describeGuildApply(await outcome.followUp, t)}`);
        } catch (error) {
          ctx.logger.error({ err: error }, 'roles update after /allow-role failed');
          await reply(`${head}\n${t('allow.updateFailed')}`);
        }
      }
    }
  },
};
