import type { Locale } from '../../../core/i18n';
import { heldReasonText, reasonText } from '../../../core/reason-text';
import type { GuildSyncReport, SkippedSync, SyncChange, SyncReport } from '../../../core/sync-report';
import { fitMessage } from './format';
import { type Speaker, speakerFor } from './speak';

/** Changes listed per server in a `/sync` reply (the audit log has them all). */
const LISTED = 20;

function seconds(locale: Locale, ms: number): string {
  return new Intl.NumberFormat(locale, { maximumFractionDigits: ms < 10_000 ? 1 : 0, minimumFractionDigits: ms < 10_000 ? 1 : 0 }).format(
    ms / 1000,
  );
}

function changeLine({ t }: Speaker, change: SyncChange): string {
  const who = change.username ?? change.userId;
  const role = change.roleName ?? change.roleId;
  const head = t(`sync.change.${change.op}`, { role, who });
  const tag =
    change.outcome === 'applied' || change.outcome === 'planned'
      ? ''
      : ` [${t(`sync.outcome.${change.outcome}`)}${change.problem ? `: ${change.problem}` : ''}]`;
  return `${head}: ${reasonText(t, change)}${tag}`;
}

function guildLines(speaker: Speaker, guild: GuildSyncReport, dryRun: boolean): string[] {
  const { t } = speaker;
  const status = guild.status === 'ok' ? t('sync.guildOk') : t(`sync.status.${guild.status}`);
  const lines = [t('sync.guild', { server: guild.guildName ?? guild.guildId, status })];
  lines.push(t('sync.members', { count: guild.discord.members, linked: guild.linkedMembers }));
  if (guild.pendingMembers) lines.push(t('sync.pending', { count: guild.pendingMembers }));
  const p = guild.planned;
  lines.push(t(dryRun ? 'sync.wouldChange' : 'sync.planned', { adds: p.adds, removes: p.removes, blocked: p.blocked }));
  if (!dryRun) lines.push(t('sync.applied', { adds: guild.applied.adds, removes: guild.applied.removes, failed: guild.failed }));
  if (guild.held)
    lines.push(t(dryRun ? 'sync.wouldHold' : 'sync.held', { count: guild.held.removals, reason: heldReasonText(t, guild.held) }));
  if (guild.adoptions)
    lines.push(dryRun ? t('sync.wouldAdopt', { count: guild.adoptions.planned }) : t('sync.adopted', { count: guild.adoptions.recorded }));
  for (const error of guild.errors) lines.push(t('sync.error', { error }));
  if (guild.changes.length > 0) {
    const shown = guild.changes.slice(0, LISTED);
    const total = Math.max(guild.changeCount, guild.changes.length);
    lines.push(shown.length < total ? t('sync.changesFirst', { shown: shown.length, total }) : t('sync.changes'));
    for (const change of shown) lines.push(changeLine(speaker, change));
  }
  return lines;
}

/**
 * A `/sync` run for the member who asked, in their language: the outcome, each server's counts,
 * what was held and the first changes. The planner's reasons and a held removal's reason are said
 * from their codes (src/core/reason-text.ts); errors are English data (the audit log's) and stay so; English readers get the full report of the command
 * line (`formatSyncReport`), which also lists pages, API waits and campaign reads.
 */
export function renderSyncReply(report: SyncReport | SkippedSync, locale: Locale): string {
  const speaker = speakerFor({ locale });
  const { t } = speaker;
  if ('skipped' in report) return t('sync.skipped', { reason: report.reason });
  const title = t(report.dryRun ? 'sync.titleDry' : report.forced ? 'sync.titleForced' : 'sync.title');
  const lines = [
    report.status === 'ok'
      ? t('sync.ok', { title, seconds: seconds(locale, report.timing.wallMs) })
      : t('sync.notOk', { title, status: t(`sync.status.${report.status}`), seconds: seconds(locale, report.timing.wallMs) }),
  ];
  for (const c of report.campaigns) if (c.error) lines.push(t('sync.error', { error: c.error }));
  for (const error of report.errors) lines.push(t('sync.error', { error }));
  if (report.guilds.length === 0 && report.errors.length === 0) lines.push(t('sync.noCampaign'));
  for (const guild of report.guilds) lines.push(...guildLines(speaker, guild, report.dryRun));
  return fitMessage(lines, 1900, t);
}
