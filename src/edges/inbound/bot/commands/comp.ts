import { InteractionContextType, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import type { CompGrantOutcome, CompRevokeOutcome } from '../../../../app/comps/comp-service';
import type { Command } from '../command';
import { NO_PINGS, fitMessage } from '../format';
import { type Speaker, momentFor, speakerFor } from '../speak';
import { refusalWords } from '../../../../core/refusal-text';
import { compInputWords } from '../../../../core/comp-input-text';

/** A comp's end: "2027-01-01 00:00 UTC" in English (a comp given until a date runs through that day). */
const ends = momentFor;

function changesLine(
  { t }: Speaker,
  outcome: { result: { applied: ReadonlyArray<{ op: string }> } | null; inGuild: boolean; pending?: boolean },
): string {
  if (outcome.pending) return t('comp.screening');
  if (!outcome.inGuild) return t('comp.notInGuild');
  const applied = outcome.result?.applied ?? [];
  const adds = applied.filter((c) => c.op === 'add').length;
  const removes = applied.filter((c) => c.op === 'remove').length;
  if (adds + removes === 0) return t('comp.alreadyRight');
  const parts = [adds > 0 ? t('comp.given', { count: adds }) : '', removes > 0 ? t('comp.taken', { count: removes }) : ''];
  return t('comp.rolesChanged', { changes: parts.filter(Boolean).join(', ') });
}

/** A comp's answer in the reader's language; a refusal is said from its facts (English as the service wrote it). */
function grantReply(speaker: Speaker, userId: string, outcome: CompGrantOutcome): string {
  const { t } = speaker;
  switch (outcome.kind) {
    case 'unknown_tier':
      return t('comp.tierHint');
    case 'bad_until':
    case 'bad_reason':
      return t('comp.notGiven', { message: compInputWords(t, outcome) });
    case 'not_allowed': {
      const { message, fix } = refusalWords(t, outcome);
      return `${t('comp.notGiven', { message })}\n${t('comp.whatToDo', { fix })}`;
    }
    case 'granted': {
      const roles = outcome.roleNames.length > 0 ? ` (${outcome.roleNames.map((n) => `**${n}**`).join(', ')})` : '';
      return [
        t('comp.granted', { who: `<@${userId}>`, tier: outcome.tierTitle, roles, until: ends(speaker, outcome.comp.until) }),
        changesLine(speaker, outcome.outcome),
      ].join('\n');
    }
  }
}

function revokeReply(speaker: Speaker, userId: string, outcome: CompRevokeOutcome): string {
  const { t } = speaker;
  switch (outcome.kind) {
    case 'unknown_tier':
      return t('comp.tierHint');
    case 'not_allowed': {
      const { message, fix } = refusalWords(t, outcome);
      return `${t('comp.notEnded', { message })}\n${t('comp.whatToDo', { fix })}`;
    }
    case 'none':
      return t('comp.noneOf', { who: `<@${userId}>`, tier: outcome.tierTitle });
    case 'revoked':
      return [t('comp.revoked', { who: `<@${userId}>`, tier: outcome.tierTitle }), changesLine(speaker, outcome.outcome)].join('\n');
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
    const speaker = speakerFor(interaction);
    const { t } = speaker;
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
      await interaction.editReply({ content: grantReply(speaker, member.id, outcome), allowedMentions: NO_PINGS });
      return;
    }
    if (sub === 'revoke') {
      const member = interaction.options.getUser('member', true);
      const outcome = await services.comps.revoke(actor, member.id, interaction.options.getString('tier', true));
      await interaction.editReply({ content: revokeReply(speaker, member.id, outcome), allowedMentions: NO_PINGS });
      return;
    }
    const member = interaction.options.getUser('member');
    const entries = await services.comps.list(actor.guildId, member?.id);
    const lines =
      entries.length === 0
        ? [member ? t('comp.noneFor', { who: `<@${member.id}>` }) : t('comp.noneHere')]
        : [
            t('comp.listHeading', { count: entries.length }),
            ...entries.map(
              ({ comp, tierTitle }) =>
                `• ${t('comp.entry', { who: `<@${comp.discordUserId}>`, tier: tierTitle, until: ends(speaker, comp.until), giver: `<@${comp.grantedBy}>`, reason: comp.reason })}`,
            ),
          ];
    await interaction.editReply({ content: fitMessage(lines, undefined, t), allowedMentions: NO_PINGS });
  },
  async autocomplete(interaction, { services }) {
    await interaction.respond(await services.tiers.autocomplete(interaction.guildId!, String(interaction.options.getFocused())));
  },
};
