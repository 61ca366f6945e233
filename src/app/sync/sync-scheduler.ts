import { type ScheduledTask, createTask } from 'node-cron';
import type { Database } from '../../edges/outbound/store/database';
import type { SyncRunRepository, SyncRunRow } from '../../edges/outbound/store/repositories/sync-run-repository';
import { type Clock, systemClock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { FullSync, FullSyncOptions } from './full-sync';
import type { SkippedSync, SyncProgress, SyncReport } from '../../core/sync-report';

/** The lock every full sync takes, whoever starts it. */
export const FULL_SYNC_LOCK = 'full-sync';

export interface SyncSchedulerDeps {
  /** SYNC_SCHEDULE: a cron expression (node-cron 4; five fields, or six with seconds). */
  schedule: string;
  database: Pick<Database, 'tryWithLock'>;
  fullSync: Pick<FullSync, 'run'>;
  logger: Logger;
  /** When given: runs left `running` by a dead process are closed, and skipped runs are recorded. */
  runs?: Pick<SyncRunRepository, 'closeAbandoned' | 'recordSkipped' | 'running' | 'abandoned'>;
  clock?: Clock;
  /** IANA time zone of the schedule; the process's when absent. */
  timezone?: string;
}

export type SyncOutcome = SyncReport | SkippedSync;

export function isSkipped(outcome: SyncOutcome): outcome is SkippedSync {
  return 'skipped' in outcome;
}

/** A stopped run is resumed by a restart at most this many attempts deep (a run that kills its process is not retried forever). */
export const MAX_RESUME_ATTEMPTS = 3;

/** A `sync_runs` row of a running sync as the progress `/sync`, `/doctor` and the CLI show. */
export function progressOf(row: SyncRunRow): SyncProgress {
  return {
    runId: row.id,
    guildId: row.guildId,
    startedAt: row.startedAt.toISOString(),
    phase: row.phase,
    campaignMembersRead: row.membersSeen,
    serverMembersRead: row.membersRead,
    changesPlanned: row.plannedAdds + row.plannedRemoves,
    changesDone: row.appliedAdds + row.appliedRemoves + row.failedChanges,
    estimatedEndAt: row.estimatedEndAt?.toISOString() ?? null,
    updatedAt: row.progressAt?.toISOString() ?? null,
  };
}

export function createSyncScheduler(deps: SyncSchedulerDeps): SyncScheduler {
  const { logger } = deps;
  const clock = deps.clock ?? systemClock;
  const now = () => clock.now();
  let task: ScheduledTask | null = null;

  async function runNow(options: FullSyncOptions): Promise<SyncOutcome> {
    const outcome = await deps.database.tryWithLock(FULL_SYNC_LOCK, async () => {
      let resumes: SyncRunRow[] = [];
      if (deps.runs) {
        // Under the lock no other run is in progress anywhere: a `running` row is a dead process's.
        resumes = await deps.runs.closeAbandoned(now());
        if (resumes.length > 0)
          logger.warn(
            { abandoned: resumes.map((r) => r.id) },
            'full sync: closed runs that a stopped process left running; this run takes them over',
          );
      }
      return deps.fullSync.run(resumes.length > 0 ? { ...options, resumes } : options);
    });
    if (outcome.acquired) return outcome.value;
    const reason = 'another full sync is running (on this or another instance); this one was skipped';
    let running: SyncProgress[] = [];
    try {
      running = (await deps.runs?.running(options.guildId))?.map(progressOf) ?? [];
    } catch (error) {
      logger.warn({ err: error }, 'full sync: the running sync could not be read');
    }
    logger.warn({ trigger: options.trigger, guildId: options.guildId, dryRun: options.dryRun === true }, `full sync skipped: ${reason}`);
    if (deps.runs) {
      try {
        await deps.runs.recordSkipped(
          {
            trigger: options.trigger,
            guildId: null,
            campaignId: options.campaignId ?? null,
            dryRun: options.dryRun === true,
            forced: options.force === true,
            startedAt: now(),
          },
          reason,
        );
      } catch (error) {
        logger.error({ err: error }, 'full sync: the skipped run could not be recorded');
      }
    }
    return { skipped: true, reason, ...(running.length > 0 ? { running } : {}) };
  }

  /**
   * At start: a sync that a stopped process left running (killed, or the machine went down) is
   * resumed now rather than at the next night. What it applied is not sent again: the plan is made
   * from the server as it is, where those changes show. Up to {@link MAX_RESUME_ATTEMPTS} attempts
   * deep. Never throws; answers the outcome, or null when there was nothing to resume.
   */
  async function resumeAbandoned(): Promise<SyncOutcome | null> {
    try {
      const stopped = (await deps.runs?.abandoned()) ?? [];
      const resumable = stopped.filter((r) => !r.dryRun && r.guildId !== null && r.attempt < MAX_RESUME_ATTEMPTS);
      if (resumable.length === 0) return null;
      logger.info({ runs: resumable.map((r) => r.id) }, 'full sync: resuming the run a stopped process left');
      // Every binding: the stopped run may have been any of them, and a run over all is what the night would do.
      return await runNow({ trigger: 'resume' });
    } catch (error) {
      logger.error({ err: error }, 'full sync: resuming the stopped run failed');
      return null;
    }
  }

  /** What the cron job runs: a scheduled run that never throws (a failure is logged and recorded). */
  async function runScheduled(): Promise<SyncOutcome | null> {
    try {
      return await runNow({ trigger: 'schedule' });
    } catch (error) {
      logger.error({ err: error }, 'full sync: the scheduled run failed');
      return null;
    }
  }

  return {
    runNow,
    runScheduled,
    resumeAbandoned,

    start(): void {
      if (task) return;
      task = createTask(deps.schedule, () => runScheduled(), {
        name: 'tierlink-full-sync',
        ...(deps.timezone !== undefined ? { timezone: deps.timezone } : {}),
      });
      Promise.resolve(task.start()).catch((error: unknown) => logger.error({ err: error }, 'the full-sync schedule did not start'));
      logger.info(
        { schedule: deps.schedule, timezone: deps.timezone ?? null, next: task.getNextRun()?.toISOString() ?? null },
        'full sync scheduled',
      );
    },

    async stop(): Promise<void> {
      const current = task;
      task = null;
      if (current) await current.destroy();
    },

    nextRun(): Date | null {
      return task?.getNextRun() ?? null;
    },
  };
}

/**
 * Runs the full sync on SYNC_SCHEDULE, and on demand (`/sync`, `npm run sync`), one run at a time
 * across every instance: each run holds {@link FULL_SYNC_LOCK} through `Database.tryWithLock` (an
 * advisory lock on PostgreSQL, docs/tech-facts.md §6; the single process on PGlite). A run that
 * finds the lock taken does not wait: it is skipped, logged and (with `runs`) recorded.
 */
export interface SyncScheduler {
  runNow(options: FullSyncOptions): Promise<SyncOutcome>;
  runScheduled(): Promise<SyncOutcome | null>;
  resumeAbandoned(): Promise<SyncOutcome | null>;
  /** Starts the cron job (idempotent). */
  start(): void;
  /** Stops the cron job; a run in progress finishes. */
  stop(): Promise<void>;
  nextRun(): Date | null;
}
