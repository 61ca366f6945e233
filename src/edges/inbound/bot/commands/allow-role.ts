import { InteractionContextType, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import { ALLOW_REFUSAL, type AllowOutcome, recipientsOf } from '../../../../app/admin/role-allowances';
import { listed } from '../../../../core/authority';
import type { Command } from '../command';
import { NO_PINGS, describeGuildApply } from '../format';

function headOf(outcome: Extract<AllowOutcome, { kind: 'allowed' }>): string {
  return (
    `Tierlink may now give **${outcome.roleName}** (${listed(outcome.permissions)}) ${recipientsOf(outcome)}. Everyone it goes to has that power. ` +
    `Take it back with /allow-role role:@${outcome.roleName} allowed:false.`
  );
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
  permission: { bit: PermissionFlagsBits.Administrator, name: 'Administrator', refusal: `${ALLOW_REFUSAL.message} ${ALLOW_REFUSAL.fix}` },
  async execute(interaction, ctx) {
    const outcome = await ctx.services.allowances.set(
      { guildId: interaction.guildId!, userId: interaction.user.id },
      interaction.options.getRole('role', true).id,
      interaction.options.getBoolean('allowed') ?? true,
    );
    const reply = (content: string) => interaction.editReply({ content, allowedMentions: NO_PINGS });
    switch (outcome.kind) {
      case 'not_allowed':
        return void (await reply(`${outcome.message} ${outcome.fix}`));
      case 'role_refused':
        return void (await reply(`Nothing was allowed: ${outcome.message}\n**Fix:** ${outcome.fix}`));
      case 'not_dangerous':
        return void (await reply(`**${outcome.roleName}** has no powerful permission: Tierlink gives it without being allowed.`));
      case 'not_allowed_before':
        return void (await reply(`**${outcome.roleName}** was not allowed, so there was nothing to take back.`));
      case 'withdrawn':
        return void (await reply(
          `Tierlink no longer gives **${outcome.roleName}**: it is held back again. Members who hold it keep it; remove it by hand where it should go.`,
        ));
      case 'allowed': {
        const head = headOf(outcome);
        await reply(`${head}\nUpdating members’ roles…`);
        try {
          await reply(`${head}\n${describeGuildApply(await outcome.followUp)}`);
        } catch (error) {
          ctx.logger.error({ err: error }, 'roles update after /allow-role failed');
          await reply(`${head}\nUpdating members’ roles failed; the nightly sync will catch up. Run /doctor if this repeats.`);
        }
      }
    }
  },
};
