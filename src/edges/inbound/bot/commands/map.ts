import { type ChatInputCommandInteraction, InteractionContextType, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import type { MapOutcome } from '../../../../app/admin/mapping-service';
import type { Command, CommandContext } from '../command';
import { NO_PINGS, describeGuildApply } from '../format';

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

async function answer(interaction: ChatInputCommandInteraction, verb: 'map' | 'unmap', outcome: MapOutcome, ctx: CommandContext) {
  switch (outcome.kind) {
    case 'unknown_tier':
      return interaction.editReply('That tier is not one of this server’s campaigns. Pick one from the list (run /tiers to see them).');
    case 'role_refused':
      return interaction.editReply({
        content: `Nothing was ${verb === 'map' ? 'mapped' : 'unmapped'}: I can’t manage that role. ${outcome.message}\n**Fix:** ${outcome.fix}`,
        allowedMentions: NO_PINGS,
      });
    case 'not_allowed':
      return interaction.editReply({
        content: `Nothing was ${verb === 'map' ? 'mapped' : 'unmapped'}: ${outcome.message}\n**What to do:** ${outcome.fix}`,
        allowedMentions: NO_PINGS,
      });
    case 'not_mapped':
      return interaction.editReply(
        outcome.viaTier
          ? `**${outcome.tierTitle}** grants **${outcome.roleName}** because it is ${outcome.tierTitle}’s Discord role on Patreon, not through /map, so /unmap cannot remove it. Change the tier’s Discord role on Patreon instead.`
          : `**${outcome.tierTitle}** does not map to **${outcome.roleName}** through /map, so there was nothing to remove.`,
      );
    case 'done': {
      const head =
        verb === 'map'
          ? outcome.changed
            ? `**${outcome.tierTitle}** now grants **${outcome.roleName}**.`
            : `**${outcome.tierTitle}** already grants **${outcome.roleName}**.`
          : `**${outcome.tierTitle}** no longer grants **${outcome.roleName}** through /map.`;
      const powers =
        verb === 'map' && outcome.allowed
          ? `${head} It has ${outcome.allowed.join(', ')}: every patron of ${outcome.tierTitle} gets that power (you allowed it by mapping it; /allow-role role:@${outcome.roleName} allowed:false takes that back).`
          : head;
      if (!outcome.changed) return interaction.editReply({ content: powers, allowedMentions: NO_PINGS });
      await interaction.editReply(`${powers} Updating members’ roles…`);
      try {
        await interaction.editReply(`${powers} ${describeGuildApply(await outcome.followUp)}`);
      } catch (error) {
        ctx.logger.error({ err: error }, `roles update after /${verb} failed`);
        await interaction.editReply(
          `${powers} Updating members’ roles failed; the nightly sync will catch up. Run /doctor if this repeats.`,
        );
      }
      return;
    }
  }
}

/**
 * `/map tier role` (Manage Roles): a tier grants a role, on top of its own `chat_role_ids`; only a
 * role the member could grant themselves (src/core/authority.ts).
 */
export const mapCommand: Command = {
  data: build('map', 'Make a tier grant a Discord role'),
  permission: { bit: PermissionFlagsBits.ManageRoles, name: 'Manage Roles' },
  async execute(interaction, ctx) {
    const outcome = await ctx.services.mapping.map(
      { guildId: interaction.guildId!, userId: interaction.user.id },
      interaction.options.getString('tier', true),
      interaction.options.getRole('role', true).id,
    );
    await answer(interaction, 'map', outcome, ctx);
  },
  async autocomplete(interaction, { services }) {
    await interaction.respond(await services.tiers.autocomplete(interaction.guildId!, String(interaction.options.getFocused())));
  },
};

/** `/unmap tier role` (Manage Roles): removes such a mapping. */
export const unmapCommand: Command = {
  data: build('unmap', 'Stop a tier from granting a Discord role (mappings made with /map)'),
  permission: { bit: PermissionFlagsBits.ManageRoles, name: 'Manage Roles' },
  async execute(interaction, ctx) {
    const outcome = await ctx.services.mapping.unmap(
      { guildId: interaction.guildId!, userId: interaction.user.id },
      interaction.options.getString('tier', true),
      interaction.options.getRole('role', true).id,
    );
    await answer(interaction, 'unmap', outcome, ctx);
  },
  autocomplete: (interaction, ctx) => mapCommand.autocomplete!(interaction, ctx),
};
