import { InteractionContextType, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import type { CompGrantOutcome, CompRevokeOutcome } from '../../../../app/comps/comp-service';
import type { Command } from '../command';
import { NO_PINGS, fitMessage } from '../format';

/** A comp's end as people read it: "2027-01-01 00:00 UTC" (a comp given until a date runs through that day). */
const ends = (at: Date): string => `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

const TIER_HINT = 'That tier is not one of this server’s campaigns. Pick one from the list (run /tiers to see them).';

function changesLine(outcome: { result: { applied: ReadonlyArray<{ op: string }> } | null; inGuild: boolean }): string {
  if (!outcome.inGuild) return 'They are not in the server yet: the roles are theirs when they join.';
  const applied = outcome.result?.applied ?? [];
  const adds = applied.filter((c) => c.op === 'add').length;
  const removes = applied.filter((c) => c.op === 'remove').length;
  if (adds + removes === 0) return 'Their roles were already right.';
  return `Roles: ${[adds > 0 ? `${adds} given` : '', removes > 0 ? `${removes} taken away` : ''].filter(Boolean).join(', ')}.`;
}

function grantReply(userId: string, outcome: CompGrantOutcome): string {
  switch (outcome.kind) {
    case 'unknown_tier':
      return TIER_HINT;
    case 'bad_until':
    case 'bad_reason':
      return `No comp was given: ${outcome.message}`;
    case 'not_allowed':
      return `No comp was given: ${outcome.message}\n**What to do:** ${outcome.fix}`;
    case 'granted': {
      const roles = outcome.roleNames.length > 0 ? ` (${outcome.roleNames.map((n) => `**${n}**`).join(', ')})` : '';
      return [
        `<@${userId}> has **${outcome.tierTitle}**${roles} as a comp until **${ends(outcome.comp.until)}**, whatever their membership says. It ends by itself then.`,
        changesLine(outcome.outcome),
      ].join('\n');
    }
  }
}

function revokeReply(userId: string, outcome: CompRevokeOutcome): string {
  switch (outcome.kind) {
    case 'unknown_tier':
      return TIER_HINT;
    case 'not_allowed':
      return `The comp was not ended: ${outcome.message}\n**What to do:** ${outcome.fix}`;
    case 'none':
      return `<@${userId}> has no comp of **${outcome.tierTitle}** in force.`;
    case 'revoked':
      return [
        `The comp of **${outcome.tierTitle}** for <@${userId}> has ended. Roles that their membership still justifies stay.`,
        changesLine(outcome.outcome),
      ].join('\n');
  }
}

/**
 * `/comp grant|revoke|list` (Manage Roles, and authority over the tier's roles, as `/map`): a tier
 * given to a member for a while (staff, collaborators, giveaways). Replies name members by mention
 * without pinging them.
 */
export const compCommand: Command = {
  data: new SlashCommandBuilder()
    .setName('comp')
    .setDescription('Give a member a tier for a while, whatever their membership says')
    .setContexts(InteractionContextType.Guild)
    .setDefaultMemberPermissions(PermissionFlagsBits.ManageRoles)
    .addSubcommand((s) =>
      s
        .setName('grant')
        .setDescription('Give a member a tier until a date')
        .addUserOption((o) => o.setName('member').setDescription('Who gets the tier').setRequired(true))
        .addStringOption((o) => o.setName('tier').setDescription('The tier').setRequired(true).setAutocomplete(true))
        .addStringOption((o) =>
          o.setName('until').setDescription('Last day, as 2026-12-31 (UTC), or a date and time, as 2026-12-31T18:00Z').setRequired(true),
        )
        .addStringOption((o) =>
          o.setName('reason').setDescription('Why (shown to staff and in the audit log)').setRequired(true).setMaxLength(200),
        ),
    )
    .addSubcommand((s) =>
      s
        .setName('revoke')
        .setDescription('End a member’s comp now')
        .addUserOption((o) => o.setName('member').setDescription('Whose comp').setRequired(true))
        .addStringOption((o) => o.setName('tier').setDescription('The tier').setRequired(true).setAutocomplete(true)),
    )
    .addSubcommand((s) =>
      s
        .setName('list')
        .setDescription('The comps in force')
        .addUserOption((o) => o.setName('member').setDescription('Only this member’s')),
    )
    .toJSON(),
  permission: { bit: PermissionFlagsBits.ManageRoles, name: 'Manage Roles' },
  async execute(interaction, { services }) {
    const actor = { guildId: interaction.guildId!, userId: interaction.user.id };
    const sub = interaction.options.getSubcommand(true);
    if (sub === 'grant') {
      const member = interaction.options.getUser('member', true);
      const outcome = await services.comps.grant(
        actor,
        member.id,
        interaction.options.getString('tier', true),
        interaction.options.getString('until', true),
        interaction.options.getString('reason', true),
      );
      await interaction.editReply({ content: grantReply(member.id, outcome), allowedMentions: NO_PINGS });
      return;
    }
    if (sub === 'revoke') {
      const member = interaction.options.getUser('member', true);
      const outcome = await services.comps.revoke(actor, member.id, interaction.options.getString('tier', true));
      await interaction.editReply({ content: revokeReply(member.id, outcome), allowedMentions: NO_PINGS });
      return;
    }
    const member = interaction.options.getUser('member');
    const entries = await services.comps.list(actor.guildId, member?.id);
    const lines =
      entries.length === 0
        ? [member ? `<@${member.id}> has no comp in force.` : 'No comp is in force in this server.']
        : [
            `**Comps in force** (${entries.length})`,
            ...entries.map(
              ({ comp, tierTitle }) =>
                `• <@${comp.discordUserId}>: **${tierTitle}** until ${ends(comp.until)}, given by <@${comp.grantedBy}>: ${comp.reason}`,
            ),
          ];
    await interaction.editReply({ content: fitMessage(lines), allowedMentions: NO_PINGS });
  },
  async autocomplete(interaction, { services }) {
    await interaction.respond(await services.tiers.autocomplete(interaction.guildId!, String(interaction.options.getFocused())));
  },
};
