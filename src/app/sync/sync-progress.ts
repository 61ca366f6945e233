import type { GuildSyncReport } from '../../core/sync-report';
import type { Metrics } from '../../edges/outbound/observability/metrics';
import type { SyncRunProgress, SyncRunRepository } from '../../edges/outbound/store/repositories/sync-run-repository';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';

export interface RunProgressDeps {
  syncRuns: Pick<SyncRunRepository, 'progress'>;
  metrics: Pick<Metrics, 'syncProgress'>;
  clock: Clock;
  logger: Logger;
}

/**
 * The progress of one guild's run, kept in its `sync_runs` row as the run goes (so `/sync` and
 * `/doctor` on any instance show it, and a restart knows how far a stopped run got) and in the
 * `tierlink_sync_progress` gauge. A failed write is logged and the run goes on.
 *
 * The estimated end comes from the pace of the applying so far: changes left divided by changes
 * done per second since the applying began, so it follows whatever Discord's member-role bucket
 * allows (10 per 10 s per server, docs/discord-api-notes.md §6) without assuming it.
 */
/** How often the reading phases record their progress, at most. */
export const READ_PROGRESS_MS = 2000;

export function createRunProgress(deps: RunProgressDeps, runId: number | null, guildId: string): RunProgress {
  const { clock, metrics } = deps;
  let applyingSince: number | null = null;
  let planned = 0;
  let lastReadWrite = -Infinity;
  /** The reading phases write at most every {@link READ_PROGRESS_MS} (a page can take a few milliseconds). */
  const due = (): boolean => {
    const now = clock.now().getTime();
    if (now - lastReadWrite < READ_PROGRESS_MS) return false;
    lastReadWrite = now;
    return true;
  };

  const gauge = (what: string, value: number) => metrics.syncProgress.set({ guild: guildId, what }, value);

  async function write(progress: SyncRunProgress): Promise<void> {
    if (runId === null) return;
    try {
      await deps.syncRuns.progress(runId, progress, clock.now());
    } catch (error) {
      deps.logger.warn({ err: error, guildId, runId }, 'full sync: its progress could not be recorded');
    }
  }

  return {
    async campaigns(membersSeen: number, links: number): Promise<void> {
      if (due()) await write({ phase: 'campaigns', membersSeen, links });
    },

    async members(report: GuildSyncReport, membersSeen: number): Promise<void> {
      gauge('members_read', report.discord.members);
      if (due()) await write({ phase: 'members', membersSeen, membersRead: report.discord.members, links: report.linkedMembers });
    },

    applying(report: GuildSyncReport, changes: number, membersSeen: number): Promise<void> {
      applyingSince = clock.now().getTime();
      planned = changes;
      gauge('changes_planned', changes);
      gauge('changes_applied', 0);
      return write({
        phase: 'applying',
        membersSeen,
        membersRead: report.discord.members,
        plannedAdds: report.planned.adds,
        plannedRemoves: report.planned.removes,
        appliedAdds: 0,
        appliedRemoves: 0,
        failedChanges: 0,
      });
    },

    applied(report: GuildSyncReport, done: number): Promise<void> {
      const now = clock.now().getTime();
      const elapsed = applyingSince === null ? 0 : now - applyingSince;
      const left = Math.max(0, planned - done);
      const estimatedEndAt = done > 0 && elapsed > 0 ? new Date(now + (left * elapsed) / done) : null;
      gauge('changes_applied', done);
      gauge('estimated_end_seconds', estimatedEndAt ? Math.round(estimatedEndAt.getTime() / 1000) : 0);
      return write({
        phase: 'applying',
        appliedAdds: report.applied.adds,
        appliedRemoves: report.applied.removes,
        failedChanges: report.failed,
        estimatedEndAt,
      });
    },

    done(): void {
      for (const what of ['members_read', 'changes_planned', 'changes_applied', 'estimated_end_seconds']) gauge(what, 0);
    },
  };
}

export interface RunProgress {
  /** The campaign pass read another page. */
  campaigns(membersSeen: number, links: number): Promise<void>;
  /** The guild pass read and planned another page. */
  members(report: GuildSyncReport, membersSeen: number): Promise<void>;
  /** Everything is planned; `changes` will be applied. */
  applying(report: GuildSyncReport, changes: number, membersSeen: number): Promise<void>;
  /** A batch of members was applied: `done` changes so far (applied or failed). */
  applied(report: GuildSyncReport, done: number): Promise<void>;
  /** The run ended: the gauge goes back to zero (the row gets its outcome from `finish`). */
  done(): void;
}
