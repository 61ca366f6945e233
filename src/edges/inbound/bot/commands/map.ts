import { type ButtonInteraction, InteractionContextType, MessageFlags, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import type { MapOutcome } from '../../../../app/admin/mapping-service';
import type { T } from '../../../../core/i18n';
import type { Command, CommandContext } from '../command';
import { describeGuildApply, roleMention } from '../format';
import { speakerFor } from '../speak';
import { CHANGE_BUTTON_PREFIX, CONFIRMATION_MINUTES, type EditReply, editorOf, previewButtons, previewLines } from './change-preview';
import { answerRule, answerSettings } from './settings';
import { refusalWords } from '../../../../core/refusal-text';

function build(name: 'map' | 'unmap', description: string) {
  return new SlashCommandBuilder()
    .setName(name)
    .setDescription(description)
    .setContexts(InteractionContextType.Guild)
    .setDefaultMemberPermissions(PermissionFlagsBits.ManageRoles)
    .addStringOption((o) => o.setName('tier').setDescription('The tier').setRequired(true).setAutocomplete(true))
    .addRoleOption((o) => o.setName('role').setDescription('The Discord role').setRequired(true))
    .toJSON();
}

/** The reply to a `/map` or `/unmap` outcome (asked, or confirmed with the button), in the member's language. */
export async function answerMapping(edit: EditReply, t: T, verb: 'map' | 'unmap', outcome: MapOutcome, ctx: CommandContext) {
  switch (outcome.kind) {
    case 'unknown_tier':
      return edit({ content: t('map.unknownTier') });
    case 'role_refused':
      return edit({ content: t(verb === 'map' ? 'map.botCannot' : 'unmap.botCannot', refusalWords(t, outcome)) });
    case 'not_allowed':
      return edit({ content: t(verb === 'map' ? 'map.notAllowed' : 'unmap.notAllowed', refusalWords(t, outcome)) });
    case 'not_mapped':
      return edit({
        content: t(outcome.viaTier ? 'unmap.viaTier' : 'unmap.notMapped', { tier: outcome.tierTitle, role: outcome.roleName }),
      });
    case 'used':
      return edit({ content: t('preview.expired', { minutes: CONFIRMATION_MINUTES }) });
    case 'preview': {
      const head = t(verb === 'map' ? 'preview.map' : 'preview.unmap', { tier: outcome.tierTitle, role: roleMention(outcome.roleId) });
      return edit({
        content: previewLines(t, head, outcome.preview, outcome.changedSince).join('\n'),
        components: [previewButtons(t, outcome.confirmation)],
      });
    }
    case 'done': {
      const names = { tier: outcome.tierTitle, role: outcome.roleName };
      const head = t(verb === 'map' ? (outcome.changed ? 'map.done' : 'map.already') : 'unmap.done', names);
      const powers =
        verb === 'map' && outcome.allowed ? `${head} ${t('map.powers', { ...names, permissions: outcome.allowed.join(', ') })}` : head;
      if (!outcome.changed) return edit({ content: powers });
      await edit({ content: `${powers} ${t('map.updating')}` });
      try {
        await edit({ content: `${powers} ${describeGuildApply(await outcome.followUp, t)}` });
      } catch (error) {
        ctx.logger.error({ err: error }, `roles update after /${verb} failed`);
        await edit({ content: `${powers} ${t('map.updateFailed')}` });
      }
      return;
    }
  }
}

/**
 * Confirm and Cancel of a change shown first (`/map`, `/unmap`, `/settings`): only the member it was
 * made for, in time; the change is asked again with the token (src/app/admin/change-confirmations.ts).
 */
export async function pressChangeButton(interaction: ButtonInteraction, ctx: CommandContext): Promise<void> {
  const { t } = speakerFor(interaction);
  const [action, token = ''] = interaction.customId.slice(CHANGE_BUTTON_PREFIX.length).split(':');
  const actor = { guildId: interaction.guildId!, userId: interaction.user.id };
  const edit = editorOf(interaction);
  // Someone else's press leaves the preview as it is for the member it was made for.
  const notYours = () => interaction.followUp({ content: t('preview.notYours'), flags: MessageFlags.Ephemeral });
  if (action === 'n') {
    const cancelled = await ctx.services.confirmations.cancel(actor, token);
    if (cancelled === 'not_yours') return void (await notYours());
    await edit({ content: t(cancelled === 'cancelled' ? 'preview.cancelled' : 'preview.expired', { minutes: CONFIRMATION_MINUTES }) });
    return;
  }
  const confirmed = await ctx.services.confirmations.confirm(actor, token);
  switch (confirmed.kind) {
    case 'not_yours':
      return void (await notYours());
    case 'expired':
      await edit({ content: t('preview.expired', { minutes: CONFIRMATION_MINUTES }) });
      return;
    case 'map':
    case 'unmap':
      await answerMapping(edit, t, confirmed.kind, confirmed.outcome, ctx);
      return;
    case 'settings':
      await answerSettings(edit, t, confirmed.outcome, actor, ctx);
      return;
    case 'rule_set':
    case 'rule_remove':
      await answerRule(edit, t, confirmed.outcome, ctx.logger);
  }
}

/**
 * `/map tier role` (Manage Roles): a tier grants a role, on top of its own `chat_role_ids`; only a
 * role the member could grant themselves (src/core/authority.ts). A change of the server's threshold
 * of role changes or more is shown first and waits for Confirm.
 */
export const mapCommand: Command = {
  data: build('map', 'Make a tier grant a Discord role'),
  permission: { bit: PermissionFlagsBits.ManageRoles, name: 'Manage Roles' },
  button: { prefix: CHANGE_BUTTON_PREFIX, press: pressChangeButton },
  async execute(interaction, ctx) {
    const outcome = await ctx.services.mapping.map(
      { guildId: interaction.guildId!, userId: interaction.user.id },
      interaction.options.getString('tier', true),
      interaction.options.getRole('role', true).id,
    );
    await answerMapping(editorOf(interaction), speakerFor(interaction).t, 'map', outcome, ctx);
  },
  async autocomplete(interaction, { services }) {
    await interaction.respond(await services.tiers.autocomplete(interaction.guildId!, String(interaction.options.getFocused())));
  },
};

/** `/unmap tier role` (Manage Roles): removes such a mapping, shown first as `/map` is. */
export const unmapCommand: Command = {
  data: build('unmap', 'Stop a tier from granting a Discord role (mappings made with /map)'),
  permission: { bit: PermissionFlagsBits.ManageRoles, name: 'Manage Roles' },
  async execute(interaction, ctx) {
    const outcome = await ctx.services.mapping.unmap(
      { guildId: interaction.guildId!, userId: interaction.user.id },
      interaction.options.getString('tier', true),
      interaction.options.getRole('role', true).id,
    );
    await answerMapping(editorOf(interaction), speakerFor(interaction).t, 'unmap', outcome, ctx);
  },
  autocomplete: (interaction, ctx) => mapCommand.autocomplete!(interaction, ctx),
};
