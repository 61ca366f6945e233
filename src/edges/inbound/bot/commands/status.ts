import { InteractionContextType, MessageFlags, SlashCommandBuilder } from 'discord.js';
import { type StatusReport, tierKey } from '../../../../app/linking/status-service';
import { reasonText } from '../../../../core/reason-text';
import type { Command } from '../command';
import { NO_PINGS, STAFF_ONLY, fitMessage, roleMention } from '../format';
import { ENGLISH_SPEAKER, type Speaker, dayFor, grantReasonFor, noteReasonFor, speakerFor, standingFor } from '../speak';

/**
 * The `/status` text: link, standing per campaign, each role and why, each role not given and why.
 * With `about` (staff asking about another member, `/status member:`), it speaks of that member.
 * In the asker's language (`speaker`): the reasons for a role not given are said from the
 * planner's fields, a removal's reason from its code; the problems that block one are English data.
 */
export function renderStatus(report: StatusReport, about: { userId: string } | null = null, speaker: Speaker = ENGLISH_SPEAKER): string {
  const { t } = speaker;
  const lines: string[] = [];
  const { outcome } = report;
  const who = about ? `<@${about.userId}>` : null;
  const title = (campaignId: string, tierId: string) => report.tierTitles.get(tierKey(campaignId, tierId)) ?? null;
  if (who) lines.push(t('status.of', { who }));
  if (report.linked) {
    lines.push(t(report.method === 'social' ? (who ? 'status.linkedSocialThem' : 'status.linkedSocialYou') : 'status.linked'));
  } else if (report.lastEvent?.kind === 'moved_away') {
    lines.push(t(who ? 'status.movedThem' : 'status.movedYou', { date: dayFor(speaker, report.lastEvent.at) }));
  } else if (report.lastEvent?.kind === 'unlinked') {
    lines.push(t(who ? 'status.unlinkedThem' : 'status.unlinkedYou', { date: dayFor(speaker, report.lastEvent.at) }));
  } else {
    lines.push(t(who ? 'status.neverThem' : 'status.neverYou'));
  }
  if (outcome.entitlements.length === 0) lines.push(t('reply.notConnected'));
  if (report.linked) {
    for (const c of report.campaigns) lines.push(`**${c.name}** — ${standingFor(speaker, c.entitlement, c.tierTitles)}`);
  }
  if (outcome.pending) lines.push(t(who ? 'status.screeningThem' : 'status.screeningYou'));
  else if (!outcome.inGuild) lines.push(t(who ? 'status.notInGuildThem' : 'status.notInGuildYou'));

  const grants = [...outcome.desired.grants.values()];
  if (grants.length > 0) {
    lines.push('', t('status.rolesHeading'));
    for (const g of grants) {
      const blocked = outcome.plan.blocked.find((b) => b.roleId === g.roleId);
      const pending = outcome.plan.changes.some((c) => c.op === 'add' && c.roleId === g.roleId);
      const suffix = blocked
        ? ` — ${t('status.blocked', { problem: blocked.problem.message })}`
        : pending
          ? ` — ${t('status.pending')}`
          : '';
      lines.push(`• ${roleMention(g.roleId)} — ${grantReasonFor(speaker, g, title)}${suffix}`);
    }
  }
  const notes = outcome.desired.notes.filter((n) => n.roleId !== '');
  const tierNotes = outcome.desired.notes.filter((n) => n.roleId === '');
  if (!report.linked) {
    // Without a link there is no membership to judge (the planner sees "not a member"): every
    // mapped role waits on /link, whatever the user's pledge.
    const waiting = notes.filter((n) => n.roleName !== null);
    if (waiting.length > 0) {
      lines.push('', t(who ? 'status.missingThem' : 'status.missingYou'));
      for (const n of waiting) {
        const tier = n.campaignId && n.tierId ? title(n.campaignId, n.tierId) : null;
        lines.push(`• ${roleMention(n.roleId)} — ${tier ? t('status.needsLinkTier', { tier }) : t('status.needsLink')}`);
      }
    }
  } else if (notes.length > 0 || tierNotes.length > 0) {
    lines.push('', t(who ? 'status.missingThem' : 'status.missingYou'));
    for (const n of notes)
      lines.push(`• ${n.roleName ? roleMention(n.roleId) : t('status.role', { id: n.roleId })} — ${noteReasonFor(speaker, n)}`);
    for (const n of tierNotes) lines.push(`• ${noteReasonFor(speaker, n)}`);
  }
  const leaving = outcome.plan.changes.filter((c) => c.op === 'remove');
  if (leaving.length > 0) {
    lines.push('', t('status.leavingHeading'));
    for (const c of leaving) lines.push(`• ${roleMention(c.roleId)} — ${reasonText(t, c)}`);
  }
  return fitMessage(lines, undefined, t);
}

/**
 * `/status`: linked or not, standing, roles and why (a dry run: nothing changes). With `member`,
 * staff see another member's: that needs Manage Roles, checked on the server from the member's
 * roles (an interaction's permissions are the channel's, and a server can relax the default).
 */
export const statusCommand: Command = {
  data: new SlashCommandBuilder()
    .setName('status')
    .setDescription('See your Patreon link, your tiers, and why you have (or lack) each role')
    .setContexts(InteractionContextType.Guild)
    .addUserOption((o) => o.setName('member').setDescription('Staff (Manage Roles): see this member’s status instead'))
    .toJSON(),
  async execute(interaction, { services }) {
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const speaker = speakerFor(interaction);
    const guildId = interaction.guildId!;
    const member = interaction.options.getUser('member');
    if (member && member.id !== interaction.user.id) {
      if (!(await services.staff.canManageRoles(guildId, interaction.user.id))) {
        await interaction.editReply({ content: STAFF_ONLY('/status member', speaker.t), allowedMentions: NO_PINGS });
        return;
      }
      const report = await services.status.explain(guildId, member.id);
      await interaction.editReply({ content: renderStatus(report, { userId: member.id }, speaker), allowedMentions: NO_PINGS });
      return;
    }
    const report = await services.status.explain(guildId, interaction.user.id);
    await interaction.editReply({ content: renderStatus(report, null, speaker), allowedMentions: NO_PINGS });
  },
};
