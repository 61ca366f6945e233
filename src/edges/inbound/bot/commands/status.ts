import { grantReason } from '../../../../core/planner';
import { InteractionContextType, MessageFlags, SlashCommandBuilder } from 'discord.js';
import { type StatusReport, tierKey } from '../../../../app/linking/status-service';
import type { Command } from '../command';
import { NO_PINGS, STAFF_ONLY, day, fitMessage, roleMention } from '../format';

/**
 * The `/status` text: link, standing per campaign, each role and why, each role not given and why.
 * With `about` (staff asking about another member, `/status member:`), it speaks of that member.
 */
export function renderStatus(report: StatusReport, about: { userId: string } | null = null): string {
  const lines: string[] = [];
  const { outcome } = report;
  const who = about ? `<@${about.userId}>` : null;
  if (who) lines.push(`**Status of ${who}**`);
  if (report.linked) {
    lines.push(
      `**Linked** to Patreon${report.method === 'social' ? ` (through the Discord connection on ${who ? 'their' : 'your'} Patreon account)` : ''}.`,
    );
  } else if (report.lastEvent?.kind === 'moved_away') {
    lines.push(
      who
        ? `**Not linked.** Their Patreon membership was linked to another Discord account on ${day(report.lastEvent.at)}, so its roles moved there.`
        : `**Not linked.** Your Patreon membership was linked to another Discord account on ${day(report.lastEvent.at)}, so its roles moved there. Run /link here to move them back.`,
    );
  } else if (report.lastEvent?.kind === 'unlinked') {
    lines.push(
      who
        ? `**Not linked.** They unlinked on ${day(report.lastEvent.at)}.`
        : `**Not linked.** You unlinked on ${day(report.lastEvent.at)}. Run /link to link again.`,
    );
  } else {
    lines.push(who ? '**Not linked.** They have not run /link yet.' : '**Not linked.** Run /link to link your Patreon membership.');
  }
  if (outcome.entitlements.length === 0) {
    lines.push(
      'This server is not connected to a Patreon campaign yet, so Tierlink grants no roles here. The server’s owner or an administrator can connect one with /connect.',
    );
  }
  if (report.linked) {
    for (const c of report.campaigns) {
      const tiers = c.tierTitles.length > 0 ? `: ${c.tierTitles.join(', ')}` : '';
      lines.push(`**${c.name}** — ${c.entitlement.reason}${tiers}`);
    }
  }
  if (!outcome.inGuild) {
    lines.push(
      who
        ? 'They are not a member of this server now; their roles arrive when they join.'
        : 'You are not a member of this server yet; your roles arrive when you join.',
    );
  }

  const grants = [...outcome.desired.grants.values()];
  if (grants.length > 0) {
    lines.push('', '**Roles from Tierlink**');
    for (const g of grants) {
      const blocked = outcome.plan.blocked.find((b) => b.roleId === g.roleId);
      const pending = outcome.plan.changes.some((c) => c.op === 'add' && c.roleId === g.roleId);
      const suffix = blocked ? ` — cannot be granted: ${blocked.problem.message}` : pending ? ' — on its way' : '';
      lines.push(`• ${roleMention(g.roleId)} — ${grantReason(g)}${suffix}`);
    }
  }
  const notes = outcome.desired.notes.filter((n) => n.roleId !== '');
  const tierNotes = outcome.desired.notes.filter((n) => n.roleId === '');
  if (!report.linked) {
    // Without a link there is no membership to judge (the planner sees "not a member"): every
    // mapped role waits on /link, whatever the user's pledge.
    const waiting = notes.filter((n) => n.roleName !== null);
    if (waiting.length > 0) {
      lines.push('', who ? '**Roles they do not get, and why**' : '**Roles you do not get, and why**');
      for (const n of waiting) {
        const title = n.campaignId && n.tierId ? (report.tierTitles.get(tierKey(n.campaignId, n.tierId)) ?? null) : null;
        lines.push(`• ${roleMention(n.roleId)} — ${title ? `${title} tier: ` : ''}needs a linked Patreon membership`);
      }
    }
  } else if (notes.length > 0 || tierNotes.length > 0) {
    lines.push('', who ? '**Roles they do not get, and why**' : '**Roles you do not get, and why**');
    for (const n of notes) lines.push(`• ${n.roleName ? roleMention(n.roleId) : `role ${n.roleId}`} — ${n.reason}`);
    for (const n of tierNotes) lines.push(`• ${n.reason}`);
  }
  const leaving = outcome.plan.changes.filter((c) => c.op === 'remove');
  if (leaving.length > 0) {
    lines.push('', '**Roles on their way out**');
    for (const c of leaving) lines.push(`• ${roleMention(c.roleId)} — ${c.reason}`);
  }
  return fitMessage(lines);
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
    const guildId = interaction.guildId!;
    const member = interaction.options.getUser('member');
    if (member && member.id !== interaction.user.id) {
      if (!(await services.staff.canManageRoles(guildId, interaction.user.id))) {
        await interaction.editReply({ content: STAFF_ONLY('/status member'), allowedMentions: NO_PINGS });
        return;
      }
      const report = await services.status.explain(guildId, member.id);
      await interaction.editReply({ content: renderStatus(report, { userId: member.id }), allowedMentions: NO_PINGS });
      return;
    }
    const report = await services.status.explain(guildId, interaction.user.id);
    await interaction.editReply({ content: renderStatus(report), allowedMentions: NO_PINGS });
  },
};
