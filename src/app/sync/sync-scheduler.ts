import { type ScheduledTask, createTask } from 'node-cron';
import type { Database } from '../../edges/store/database';
import type { SyncRunRepository } from '../../edges/store/repositories/sync-run-repository';
import { type Clock, systemClock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { FullSync, FullSyncOptions } from './full-sync';
import type { SkippedSync, SyncReport } from '../../core/sync-report';

/** The lock every full sync takes, whoever starts it. */
export const FULL_SYNC_LOCK = 'full-sync';

export interface SyncSchedulerDeps {
  /** SYNC_SCHEDULE: a cron expression (node-cron 4; five fields, or six with seconds). */
  schedule: string;
  database: Pick<Database, 'tryWithLock'>;
  fullSync: Pick<FullSync, 'run'>;
  logger: Logger;
  /** When given: runs left `running` by a dead process are closed, and skipped runs are recorded. */
  runs?: Pick<SyncRunRepository, 'closeAbandoned' | 'recordSkipped'>;
  clock?: Clock;
  /** IANA time zone of the schedule; the process's when absent. */
  timezone?: string;
}

export type SyncOutcome = SyncReport | SkippedSync;

export function isSkipped(outcome: SyncOutcome): outcome is SkippedSync {
  return 'skipped' in outcome;
}

/**
 * Runs the full sync on SYNC_SCHEDULE, and on demand (`/sync`, `npm run sync`), one run at a time
 * across every instance: each run holds {@link FULL_SYNC_LOCK} through `Database.tryWithLock` (an
 * advisory lock on PostgreSQL, docs/tech-facts.md §6; the single process on PGlite). A run that
 * finds the lock taken does not wait: it is skipped, logged and (with `runs`) recorded.
 */
export function createSyncScheduler(deps: SyncSchedulerDeps) {
  const { logger } = deps;
  const clock = deps.clock ?? systemClock;
  const now = () => clock.now();
  let task: ScheduledTask | null = null;

  async function runNow(options: FullSyncOptions): Promise<SyncOutcome> {
    const outcome = await deps.database.tryWithLock(FULL_SYNC_LOCK, async () => {
      if (deps.runs) {
        // Under the lock no other run is in progress anywhere: a `running` row is a dead process's.
        const abandoned = await deps.runs.closeAbandoned(now());
        if (abandoned > 0) logger.warn({ abandoned }, 'full sync: closed runs that a stopped process left running');
      }
      return deps.fullSync.run(options);
    });
    if (outcome.acquired) return outcome.value;
    const reason = 'another full sync is running (on this or another instance); this one was skipped';
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
    return { skipped: true, reason };
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

    /** Starts the cron job (idempotent). */
    start(): void {
      if (task) return;
      task = createTask(deps.schedule, () => runScheduled(), {
        name: 'tierlink-full-sync',
        ...(deps.timezone !== undefined ? { timezone: deps.timezone } : {}),
      });
      Promise.resolve(task.start()).catch((error: unknown) => logger.error({ err: error }, 'the full-sync schedule did not start'));
      logger.info({ schedule: deps.schedule, next: task.getNextRun()?.toISOString() ?? null }, 'full sync scheduled');
    },

    /** Stops the cron job; a run in progress finishes. */
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

export type SyncScheduler = ReturnType<typeof createSyncScheduler>;
