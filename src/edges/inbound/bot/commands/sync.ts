import { InteractionContextType, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import type { Command } from '../command';
import { NO_PINGS } from '../format';
import { type Speaker, listFor, speakerFor } from '../speak';
import { refusalWords } from '../../../../core/refusal-text';
import type { AdoptionRefusal } from '../../../../app/admin/adoption-check';
import { within } from '../../../../shared/within';

/** Interaction replies can be edited for 15 minutes; answer before that. */
export const STILL_RUNNING_AFTER_MS = 13 * 60_000;

/** `/sync [dry_run] [force] [adopt]` (Manage Roles): a full sync of this server now, or its plan. */
export const syncCommand: Command = {
  data: new SlashCommandBuilder()
    .setName('sync')
    .setDescription('Sync every member’s roles now (or preview the plan)')
    .setContexts(InteractionContextType.Guild)
    .setDefaultMemberPermissions(PermissionFlagsBits.ManageRoles)
    .addBooleanOption((o) => o.setName('dry_run').setDescription('Only show what would change'))
    .addBooleanOption((o) => o.setName('force').setDescription('Apply removals even above the mass-removal guard'))
    .addBooleanOption((o) =>
      o.setName('adopt').setDescription('Make the tier roles patrons already hold Tierlink’s, so they go when the pledge ends'),
    )
    .toJSON(),
  permission: { bit: PermissionFlagsBits.ManageRoles, name: 'Manage Roles' },
  async execute(interaction, { services, logger }) {
    const speaker = speakerFor(interaction);
    const adopt = interaction.options.getBoolean('adopt') ?? false;
    const dryRun = interaction.options.getBoolean('dry_run') ?? false;
    if (adopt && !dryRun) {
      // Adopting has Tierlink take those roles away later: the actor needs authority over each.
      const allowed = await services.adoption.check({ guildId: interaction.guildId!, userId: interaction.user.id });
      if (!allowed.ok) {
        await interaction.editReply({ content: adoptionRefusalWords(speaker, allowed.error), allowedMentions: NO_PINGS });
        return;
      }
    }
    const run = services.sync.runForGuild(
      interaction.guildId!,
      {
        dryRun,
        force: interaction.options.getBoolean('force') ?? false,
        adopt,
      },
      speaker.locale,
    );
    // Discord accepts edits of this reply for 15 minutes; a sync of a large server at Discord's real
    // rate limits can take longer. Say so while the reply can still be edited, and let it finish.
    const text = await within(run, STILL_RUNNING_AFTER_MS, () => null);
    if (text === null) {
      run.catch((error) => logger.error({ err: error }, '/sync failed after its reply was closed'));
      await interaction.editReply(speaker.t('sync.stillRunning'));
      return;
    }
    await interaction.editReply({ content: text, allowedMentions: NO_PINGS });
  },
};

/** `/sync adopt:true` refused, in the member's language: English as the check says it, another language from its facts. */
function adoptionRefusalWords(speaker: Speaker, refusal: AdoptionRefusal): string {
  const { t } = speaker;
  if (t.locale === 'en' || !refusal.facts) return `${refusal.message}\n${refusal.fix}`;
  const { message, fix } = refusalWords(t, refusal.facts.first);
  const roles = refusal.facts.roleNames;
  return `${t('adopt.refused', { roles: listFor(speaker, roles), count: roles.length, message })}\n${fix}`;
}
