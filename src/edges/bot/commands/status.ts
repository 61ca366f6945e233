import { InteractionContextType, MessageFlags, SlashCommandBuilder } from 'discord.js';
import { type StatusReport, tierKey } from '../../../app/linking/status-service';
import type { Command } from '../command';
import { NO_PINGS, day, fitMessage, roleMention } from '../format';

/** The `/status` text: link, standing per campaign, each role and why, each role not given and why. */
export function renderStatus(report: StatusReport): string {
  const lines: string[] = [];
  const { outcome } = report;
  if (report.linked) {
    lines.push(`**Linked** to Patreon${report.source === 'social' ? ' (through the Discord connection on your Patreon account)' : ''}.`);
  } else if (report.lastEvent?.kind === 'moved_away') {
    lines.push(
      `**Not linked.** Your Patreon membership was linked to another Discord account on ${day(report.lastEvent.at)}, so its roles moved there. Run /link here to move them back.`,
    );
  } else if (report.lastEvent?.kind === 'unlinked') {
    lines.push(`**Not linked.** You unlinked on ${day(report.lastEvent.at)}. Run /link to link again.`);
  } else {
    lines.push('**Not linked.** Run /link to link your Patreon membership.');
  }
  if (outcome.entitlements.length === 0) {
    lines.push(
      'This server is not connected to a Patreon campaign yet, so Tierlink grants no roles here. The server’s owner can connect one with /connect.',
    );
  }
  if (report.linked) {
    for (const c of report.campaigns) {
      const tiers = c.tierTitles.length > 0 ? `: ${c.tierTitles.join(', ')}` : '';
      lines.push(`**${c.name}** — ${c.entitlement.reason}${tiers}`);
    }
  }
  if (!outcome.inGuild) lines.push('You are not a member of this server yet; your roles arrive when you join.');

  const grants = [...outcome.desired.grants.values()];
  if (grants.length > 0) {
    lines.push('', '**Roles from Tierlink**');
    for (const g of grants) {
      const blocked = outcome.plan.blocked.find((b) => b.roleId === g.roleId);
      const pending = outcome.plan.changes.some((c) => c.op === 'add' && c.roleId === g.roleId);
      const suffix = blocked ? ` — cannot be granted: ${blocked.problem.message}` : pending ? ' — on its way' : '';
      lines.push(`• ${roleMention(g.roleId)} — ${g.reason}${suffix}`);
    }
  }
  const notes = outcome.desired.notes.filter((n) => n.roleId !== '');
  const tierNotes = outcome.desired.notes.filter((n) => n.roleId === '');
  if (!report.linked) {
    // Without a link there is no membership to judge (the planner sees "not a member"): every
    // mapped role waits on /link, whatever the user's pledge.
    const waiting = notes.filter((n) => n.roleName !== null);
    if (waiting.length > 0) {
      lines.push('', '**Roles you do not get, and why**');
      for (const n of waiting) {
        const title = n.campaignId && n.tierId ? (report.tierTitles.get(tierKey(n.campaignId, n.tierId)) ?? null) : null;
        lines.push(`• ${roleMention(n.roleId)} — ${title ? `${title} tier: ` : ''}needs a linked Patreon membership`);
      }
    }
  } else if (notes.length > 0 || tierNotes.length > 0) {
    lines.push('', '**Roles you do not get, and why**');
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

/** `/status`: linked or not, standing, roles and why (a dry run: nothing changes). */
export const statusCommand: Command = {
  data: new SlashCommandBuilder()
    .setName('status')
    .setDescription('See your Patreon link, your tiers, and why you have (or lack) each role')
    .setContexts(InteractionContextType.Guild)
    .toJSON(),
  async execute(interaction, { services }) {
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const report = await services.status.explain(interaction.guildId!, interaction.user.id);
    await interaction.editReply({ content: renderStatus(report), allowedMentions: NO_PINGS });
  },
};
