import type { SyncRunRepository } from '../../edges/outbound/store/repositories/sync-run-repository';
import type { GuildSyncReport } from '../../core/sync-report';
import type { Logger } from '../../shared/logger';
import { type SyncOutcome, isSkipped } from '../sync/sync-scheduler';
import type { AuditBrowser } from './audit';
import { type AuditEntry, type SyncRun, toSyncRun } from './views';

/** Runs listed on the Syncs page. */
export const HISTORY_SIZE = 30;
/** Held removals listed before the confirm button (the button applies them all). */
export const MAX_HELD_SHOWN = 200;
/** How long a page waits for a sync it started before it says "still running". */
export const APPLY_WAIT_MS = 5_000;

export type RunSync = (options: { guildId: string; dryRun: boolean; force: boolean; trigger: 'manual' }) => Promise<SyncOutcome>;

export type PreviewOutcome =
  { kind: 'preview'; report: GuildSyncReport } | { kind: 'busy'; reason: string } | { kind: 'nothing'; errors: string[] };

export type ApplyOutcome =
  | { kind: 'done'; report: GuildSyncReport }
  | { kind: 'busy'; reason: string }
  | { kind: 'running' }
  | { kind: 'nothing'; errors: string[] };

export interface HeldRemovals {
  run: SyncRun;
  removals: AuditEntry[];
  /** More were held than are listed. */
  more: boolean;
}

export interface SyncsDeps {
  syncRuns: Pick<SyncRunRepository, 'recent' | 'lastFinished'>;
  audit: Pick<AuditBrowser, 'page'>;
  runSync: RunSync;
  logger: Logger;
  sleep?: (ms: number) => Promise<void>;
}

export function createSyncDesk(deps: SyncsDeps): SyncDesk {
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref()));

  function guildReport(outcome: SyncOutcome, guildId: string) {
    if (isSkipped(outcome)) return { kind: 'busy' as const, reason: outcome.reason };
    const report = outcome.guilds.find((g) => g.guildId === guildId);
    return report ? { kind: 'report' as const, report } : { kind: 'nothing' as const, errors: outcome.errors.slice(0, 5) };
  }

  return {
    async history(guildId: string): Promise<SyncRun[]> {
      return (await deps.syncRuns.recent(guildId, HISTORY_SIZE)).map(toSyncRun);
    },

    async held(guildId: string): Promise<HeldRemovals | null> {
      const run = await deps.syncRuns.lastFinished(guildId);
      if (!run || run.status !== 'held' || run.heldRemovals === 0) return null;
      const to = new Date((run.finishedAt ?? run.startedAt).getTime() + 1);
      const page = await deps.audit.page(
        guildId,
        { outcome: 'held', action: 'remove', from: run.startedAt, to },
        { cursor: null, direction: 'older', size: MAX_HELD_SHOWN },
      );
      const removals = page.entries;
      return { run: toSyncRun(run), removals, more: run.heldRemovals > removals.length };
    },

    async preview(guildId: string): Promise<PreviewOutcome> {
      const outcome = guildReport(await deps.runSync({ guildId, dryRun: true, force: false, trigger: 'manual' }), guildId);
      return outcome.kind === 'report' ? { kind: 'preview', report: outcome.report } : outcome;
    },

    async apply(guildId: string, force: boolean): Promise<ApplyOutcome> {
      const run = deps.runSync({ guildId, dryRun: false, force, trigger: 'manual' }).then((outcome) => guildReport(outcome, guildId));
      run.catch((error: unknown) => deps.logger.error({ err: error, guildId, force }, 'a sync started on the dashboard failed'));
      const first = await Promise.race([run, sleep(APPLY_WAIT_MS).then(() => null)]);
      if (first === null) return { kind: 'running' };
      return first.kind === 'report' ? { kind: 'done', report: first.report } : first;
    },
  };
}

/**
 * The Syncs page: the history of `sync_runs`, a dry run (the plan, changing nothing), a sync on
 * demand, and the removals the mass-removal guard held with a button that applies them (the full
 * sync's `force`, as `/sync force:true`). Every run goes through the one full-sync path and its lock.
 */
export interface SyncDesk {
  history(guildId: string): Promise<SyncRun[]>;
  /** The removals the last finished sync held back, when it held some; null otherwise. */
  held(guildId: string): Promise<HeldRemovals | null>;
  /** A dry run of the server: what a sync would change now. Reads only. */
  preview(guildId: string): Promise<PreviewOutcome>;
  /**
   * A sync of the server now, with `force` applying removals the guard would hold. The page waits a
   * few seconds for it; a longer run goes on in the background and shows up in the history.
   */
  apply(guildId: string, force: boolean): Promise<ApplyOutcome>;
}
