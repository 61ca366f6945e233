import type { HeldWhy } from '../../../../core/sync-report';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../database';
import { syncRuns } from '../schema';

/**
 * The full sync's own rows (`sync_runs`): one per guild and run, written when it starts, as it goes
 * (its progress, which `/sync` and `/doctor` show and a restart reads) and when it ends.
 */
export interface SyncRunRepository {
  start(run: SyncRunStart): Promise<number>;
  /** Records how far a running sync is (one statement; the counts are absolute, not increments). */
  progress(id: number, progress: SyncRunProgress, now: Date): Promise<void>;
  /** Runs in progress (on any instance), oldest first; of one guild when given. */
  running(guildId?: string): Promise<SyncRunRow[]>;
  finish(id: number, outcome: SyncRunOutcome): Promise<void>;
  /** A run that did not start because another held the lock (logged as well). */
  recordSkipped(run: SyncRunStart, reason: string): Promise<number>;
  get(id: number): Promise<SyncRunRow | null>;
  /** The newest runs of a guild (skipped runs, which have no guild, are not among them), newest first. */
  recent(guildId: string, limit?: number): Promise<SyncRunRow[]>;
  /** The newest run of a guild that was not a dry run and finished, for `/doctor` ("last sync"). */
  lastFinished(guildId: string): Promise<SyncRunRow | null>;
  /** Every run, oldest first (tests and diagnostics). */
  all(): Promise<SyncRunRow[]>;
  /**
   * Runs left `running` by a process that died, closed as failed (with how far they got, which
   * their progress kept), and answered so that the next run can say it takes them over. Call it
   * only while holding the full-sync lock: then no other run is in progress anywhere.
   */
  closeAbandoned(now: Date): Promise<SyncRunRow[]>;
  /** Runs a stopped process left `running`, without closing them (whether a restart has a run to resume). */
  abandoned(): Promise<SyncRunRow[]>;
}
/** One full sync of a guild (or dry run), with what it read, planned, did and held. */
export type SyncRunStatus = 'running' | 'ok' | 'held' | 'failed' | 'skipped';
/**
 * Where a running sync is (`campaigns`: reading the service's members, `members`: reading and
 * planning the server's, `applying`, `finishing`).
 */
export type SyncRunPhase = 'campaigns' | 'members' | 'applying' | 'finishing';

/** A run as stored: what it knew when it started, its progress, and (once ended) its outcome. */
export interface SyncRunRow
  extends Omit<SyncRunStart, 'resumedFrom' | 'attempt'>, Omit<SyncRunOutcome, 'status' | 'finishedAt' | 'heldWhy'> {
  id: number;
  status: SyncRunStatus;
  finishedAt: Date | null;
  /** `heldReason` as facts, for readers of another language; null on runs recorded before them. */
  heldWhy: HeldWhy | null;
  /**
   * Kept with the counts as the run goes, so `/sync` and `/doctor` on any instance show its
   * progress and a restart knows what stopped.
   */
  phase: SyncRunPhase | null;
  /** Members of the server listed so far (`membersSeen` counts the service's). */
  membersRead: number;
  progressAt: Date | null;
  /** When the applying is expected to end, from the pace so far (or the member-role bucket's floor before any). */
  estimatedEndAt: Date | null;
  /** The run a stopped process left `running` that this one took over. */
  resumedFrom: number | null;
  /** 1 for a fresh run; a run resuming attempt n is attempt n + 1 (a restart resumes at most up to 3). */
  attempt: number;
}

/** What a run knows when it starts: one row per guild (or a single `skipped` row with no guild). */
export interface SyncRunStart {
  trigger: string;
  guildId: string | null;
  campaignId: string | null;
  dryRun: boolean;
  forced: boolean;
  startedAt: Date;
  /** The run a stopped process left running that this one takes over, and this run's attempt. */
  resumedFrom?: number | null;
  attempt?: number;
}

/** Where a running sync of a guild is; only the values given are written. */
export interface SyncRunProgress {
  phase?: SyncRunPhase;
  membersSeen?: number;
  membersRead?: number;
  links?: number;
  plannedAdds?: number;
  plannedRemoves?: number;
  appliedAdds?: number;
  appliedRemoves?: number;
  failedChanges?: number;
  estimatedEndAt?: Date | null;
}

/** What a run writes when it ends. */
export interface SyncRunOutcome {
  status: SyncRunStatus;
  finishedAt: Date;
  pagesRead: number;
  membersSeen: number;
  links: number;
  plannedAdds: number;
  plannedRemoves: number;
  appliedAdds: number;
  appliedRemoves: number;
  heldRemovals: number;
  failedChanges: number;
  errors: string[];
  apiCalls: Record<string, number>;
  heldReason: string | null;
  /** `heldReason` as facts, for readers of another language; absent: none recorded. */
  heldWhy?: HeldWhy | null;
}

/**
 * A link read from `social_connections.discord.user_id`: created only when neither side is
 * linked yet, exactly as {@link createLinkRepository}'s `linkSocial` does it, but for a page at once.
 */

export function createSyncRunRepository(db: Db): SyncRunRepository {
  return {
    async start(run: SyncRunStart): Promise<number> {
      const [row] = await db
        .insert(syncRuns)
        .values({ ...run, status: 'running', phase: 'campaigns', progressAt: run.startedAt })
        .returning({ id: syncRuns.id });
      return row!.id;
    },

    async progress(id: number, progress: SyncRunProgress, now: Date): Promise<void> {
      await db
        .update(syncRuns)
        .set({ ...progress, progressAt: now })
        .where(and(eq(syncRuns.id, id), eq(syncRuns.status, 'running')));
    },

    async running(guildId?: string): Promise<SyncRunRow[]> {
      return db
        .select()
        .from(syncRuns)
        .where(guildId === undefined ? eq(syncRuns.status, 'running') : and(eq(syncRuns.status, 'running'), eq(syncRuns.guildId, guildId)))
        .orderBy(syncRuns.startedAt, syncRuns.id);
    },

    async finish(id: number, outcome: SyncRunOutcome): Promise<void> {
      await db
        .update(syncRuns)
        .set({ ...outcome, phase: null, estimatedEndAt: null, progressAt: outcome.finishedAt })
        .where(eq(syncRuns.id, id));
    },

    async recordSkipped(run: SyncRunStart, reason: string): Promise<number> {
      const [row] = await db
        .insert(syncRuns)
        .values({ ...run, status: 'skipped', finishedAt: run.startedAt, errors: [reason] })
        .returning({ id: syncRuns.id });
      return row!.id;
    },

    async get(id: number): Promise<SyncRunRow | null> {
      const [row] = await db.select().from(syncRuns).where(eq(syncRuns.id, id));
      return row ?? null;
    },

    async recent(guildId: string, limit = 5): Promise<SyncRunRow[]> {
      return db
        .select()
        .from(syncRuns)
        .where(eq(syncRuns.guildId, guildId))
        .orderBy(desc(syncRuns.startedAt), desc(syncRuns.id))
        .limit(limit);
    },

    async lastFinished(guildId: string): Promise<SyncRunRow | null> {
      const [row] = await db
        .select()
        .from(syncRuns)
        .where(and(eq(syncRuns.guildId, guildId), eq(syncRuns.dryRun, false), inArray(syncRuns.status, ['ok', 'held', 'failed'])))
        .orderBy(desc(syncRuns.startedAt), desc(syncRuns.id))
        .limit(1);
      return row ?? null;
    },

    async all(): Promise<SyncRunRow[]> {
      return db.select().from(syncRuns).orderBy(syncRuns.id);
    },

    async closeAbandoned(now: Date): Promise<SyncRunRow[]> {
      return db
        .update(syncRuns)
        .set({
          status: 'failed',
          finishedAt: now,
          phase: null,
          estimatedEndAt: null,
          errors: sql`${syncRuns.errors} || '["the process running this sync stopped before it finished"]'::jsonb`,
        })
        .where(eq(syncRuns.status, 'running'))
        .returning();
    },

    async abandoned(): Promise<SyncRunRow[]> {
      return db.select().from(syncRuns).where(eq(syncRuns.status, 'running')).orderBy(syncRuns.id);
    },
  };
}

/**
 * One pair per Discord user and per service user within a batch: a multi-row insert that
 * conflicts with itself on the unique index would fail where one-by-one inserts keep the first.
 */
