import { type ScheduledTask, createTask } from 'node-cron';
import type { AppStateRepository } from '../../edges/outbound/store/repositories/app-state-repository';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { DoctorCheck } from '../admin/doctor';
import { says, withSaid } from '../admin/doctor-says';

/** One backup run: writes `file` (the same code as `npm run backup`); `signal` ends it, leaving no file. */
export type RunBackup = (file: string, signal: AbortSignal) => Promise<{ bytes: number }>;

/** The backups folder: the scheduled backups in it, and removing one. */
export interface BackupFolder {
  /** Names of the files in the folder (those not named like a scheduled backup are left alone). */
  list(): Promise<string[]>;
  remove(name: string): Promise<void>;
  /** The path of a file of that name in the folder. */
  path(name: string): string;
}

export interface ScheduledBackupsDeps {
  /** BACKUP_DIR, as the operator wrote it (for messages). */
  dir: string;
  /** BACKUP_KEEP: the newest this many scheduled backups are kept. */
  keep: number;
  /** BACKUP_SCHEDULE, read in `timezone` (SYNC_TIMEZONE). */
  schedule: string;
  timezone: string;
  run: RunBackup;
  folder: BackupFolder;
  state: Pick<AppStateRepository, 'get' | 'set'>;
  /** `Database.tryWithLock`: with several instances, one takes each backup. */
  withLock<T>(name: string, fn: () => Promise<T>): Promise<{ acquired: true; value: T } | { acquired: false }>;
  clock: Clock;
  logger: Logger;
}

/** What the last scheduled backup did, shared by every instance (app_state). */
export interface BackupRecord {
  at: string;
  ok: boolean;
  file: string | null;
  bytes: number | null;
  error: string | null;
  lastOkAt: string | null;
  lastOkFile: string | null;
}

export const BACKUP_STATE_KEY = 'scheduled-backup';
export const BACKUP_LOCK = 'scheduled-backup';
/** `tierlink-backup-20261127T033000Z.jsonl.gz`: sorted by name is sorted by time. */
export const BACKUP_NAME = /^tierlink-backup-\d{8}T\d{6}Z\.jsonl\.gz$/;

export function backupName(at: Date): string {
  return `tierlink-backup-${at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}.jsonl.gz`;
}

const utc = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;
const size = (bytes: number | null) => (bytes === null ? '' : ` (${Math.max(1, Math.round(bytes / 1024)).toLocaleString('en-US')} KB)`);

export function createScheduledBackups(deps: ScheduledBackupsDeps): ScheduledBackups {
  const { logger } = deps;
  let task: ScheduledTask | null = null;
  /** The run in progress, which a stop ends. */
  let current: { controller: AbortController; done: Promise<unknown> } | null = null;

  async function prune(): Promise<string[]> {
    const all = await deps.folder.list();
    // What a run cut short by a crash left behind (one instance writes at a time: the lock).
    for (const name of all)
      if (BACKUP_NAME.test(name.replace(/\.partial$/, '')) && name.endsWith('.partial')) await deps.folder.remove(name);
    const names = all.filter((n) => BACKUP_NAME.test(n)).sort();
    const old = names.slice(0, Math.max(0, names.length - deps.keep));
    for (const name of old) await deps.folder.remove(name);
    return old;
  }

  async function runNow(): Promise<BackupRecord | null> {
    const controller = new AbortController();
    const done = runLocked(controller.signal);
    current = { controller, done };
    try {
      return await done;
    } finally {
      if (current?.done === done) current = null;
    }
  }

  async function runLocked(signal: AbortSignal): Promise<BackupRecord | null> {
    const outcome = await deps.withLock(BACKUP_LOCK, async () => {
      const now = deps.clock.now();
      const name = backupName(now);
      const previous = await deps.state.get<BackupRecord>(BACKUP_STATE_KEY);
      let record: BackupRecord;
      try {
        await deps.folder.list();
        const { bytes } = await deps.run(deps.folder.path(name), signal);
        record = { at: now.toISOString(), ok: true, file: name, bytes, error: null, lastOkAt: now.toISOString(), lastOkFile: name };
        const removed = await prune();
        logger.info({ file: deps.folder.path(name), bytes, removed: removed.length }, 'scheduled backup written');
      } catch (error) {
        // Stopped: nothing was written, and nothing failed.
        if (signal.aborted) return null;
        const message = (error as Error).message.slice(0, 500);
        record = {
          at: now.toISOString(),
          ok: false,
          file: null,
          bytes: null,
          error: message,
          lastOkAt: previous?.lastOkAt ?? null,
          lastOkFile: previous?.lastOkFile ?? null,
        };
        logger.error({ dir: deps.dir }, `scheduled backup failed: ${message}`);
      }
      await deps.state.set(BACKUP_STATE_KEY, record);
      return record;
    });
    return outcome.acquired ? outcome.value : null;
  }

  return {
    runNow,
    start(): void {
      if (task) return;
      task = createTask(deps.schedule, () => runNow().then(() => undefined), { name: 'tierlink-backup', timezone: deps.timezone });
      Promise.resolve(task.start()).catch((error: unknown) => logger.error({ err: error }, 'the backup schedule did not start'));
      logger.info(
        {
          dir: deps.dir,
          keep: deps.keep,
          schedule: deps.schedule,
          timezone: deps.timezone,
          next: task.getNextRun()?.toISOString() ?? null,
        },
        'scheduled backups on',
      );
    },
    async stop(): Promise<void> {
      const scheduled = task;
      task = null;
      if (scheduled) await scheduled.destroy();
      const running = current;
      if (running) {
        running.controller.abort();
        await running.done.catch(() => undefined);
      }
    },
    async doctorCheck(): Promise<DoctorCheck> {
      const name = 'Backups';
      const record = await deps.state.get<BackupRecord>(BACKUP_STATE_KEY);
      const next = task?.getNextRun();
      if (!record) {
        const where = { dir: deps.dir, schedule: deps.schedule, zone: deps.timezone };
        return withSaid(
          {
            name,
            ok: true,
            detail: `scheduled into ${deps.dir} (${deps.schedule}, ${deps.timezone}); none yet${next ? `, the first at ${utc(next.toISOString())}` : ''}`,
            fix: null,
          },
          next ? says('doctorSays.backupFirst', { ...where, when: utc(next.toISOString()) }) : says('doctorSays.backupNone', where),
          null,
        );
      }
      if (!record.ok) {
        const failed = says('doctorSays.backupFailed', { when: utc(record.at), error: record.error ?? '' });
        return withSaid(
          {
            name,
            ok: false,
            detail: `the last scheduled backup (${utc(record.at)}) failed: ${record.error}${record.lastOkAt ? `; the last good one is ${record.lastOkFile} (${utc(record.lastOkAt)})` : ''}`,
            fix: `Check that ${deps.dir} exists, that Tierlink's user may write there, and that the disk has room; \`npm run backup -- --out <file>\` shows the whole error.`,
          },
          record.lastOkAt
            ? says('doctorSays.backupFailedLastGood', { failed, file: record.lastOkFile ?? '', when: utc(record.lastOkAt) })
            : failed,
          says('doctorSays.backupFix', { dir: deps.dir }),
        );
      }
      return withSaid(
        {
          name,
          ok: true,
          detail: `the last at ${utc(record.at)}: ${record.file}${size(record.bytes)} in ${deps.dir}; the newest ${deps.keep} are kept`,
          fix: null,
        },
        record.bytes === null
          ? says('doctorSays.backupLast', { when: utc(record.at), file: record.file ?? '', dir: deps.dir, count: deps.keep })
          : says('doctorSays.backupLastSized', {
              when: utc(record.at),
              file: record.file ?? '',
              kb: Math.max(1, Math.round(record.bytes / 1024)),
              dir: deps.dir,
              count: deps.keep,
            }),
        null,
      );
    },
  };
}

/**
 * Optional scheduled backups (BACKUP_DIR): on BACKUP_SCHEDULE, one instance writes a backup into
 * the folder, then removes all but the newest BACKUP_KEEP of them; the outcome is recorded for
 * `/doctor`. A failed backup leaves the older ones in place.
 */
export interface ScheduledBackups {
  runNow(): Promise<BackupRecord | null>;
  start(): void;
  /** Stops the schedule; a backup in progress is ended and leaves no file. */
  stop(): Promise<void>;
  /** `/doctor`'s line: the last scheduled backup, or what went wrong with it and the fix. */
  doctorCheck(): Promise<DoctorCheck>;
}
