import { and, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../database';
import { memberSnapshots, syncRuns } from '../schema';

export type SyncRunRepository = ReturnType<typeof createSyncRunRepository>;
export type SyncRunRow = typeof syncRuns.$inferSelect;
export type SyncRunStatus = SyncRunRow['status'];

/** What a run knows when it starts: one row per guild (or a single `skipped` row with no guild). */
export interface SyncRunStart {
  trigger: string;
  guildId: string | null;
  campaignId: string | null;
  dryRun: boolean;
  forced: boolean;
  startedAt: Date;
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
}

/**
 * A link read from `social_connections.discord.user_id`: created only when neither side is
 * linked yet, exactly as {@link createLinkRepository}'s `linkSocial` does it, but for a page at once.
 */

/**
 * The full sync's own rows (`sync_runs`) and the bulk writes only the full sync makes: a page of
 * snapshots, tiers seen on member pages, social links for a page at once, the ledger and audit rows
 * of many changes, and the removal of snapshots a complete listing no longer contains. Bulk rows
 * travel as one JSON parameter (`jsonb_to_recordset`): cheap to build, cheap for PGlite to bind.
 */
export function createSyncRunRepository(db: Db) {
  return {
    async start(run: SyncRunStart): Promise<number> {
      const [row] = await db
        .insert(syncRuns)
        .values({ ...run, status: 'running' })
        .returning({ id: syncRuns.id });
      return row!.id;
    },

    async finish(id: number, outcome: SyncRunOutcome): Promise<void> {
      await db.update(syncRuns).set(outcome).where(eq(syncRuns.id, id));
    },

    /** A run that did not start because another held the lock (logged as well). */
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

    /** The newest runs of a guild (skipped runs, which have no guild, are not among them), newest first. */
    async recent(guildId: string, limit = 5): Promise<SyncRunRow[]> {
      return db
        .select()
        .from(syncRuns)
        .where(eq(syncRuns.guildId, guildId))
        .orderBy(desc(syncRuns.startedAt), desc(syncRuns.id))
        .limit(limit);
    },

    /** The newest run of a guild that was not a dry run and finished, for `/doctor` ("last sync"). */
    async lastFinished(guildId: string): Promise<SyncRunRow | null> {
      const [row] = await db
        .select()
        .from(syncRuns)
        .where(and(eq(syncRuns.guildId, guildId), eq(syncRuns.dryRun, false), inArray(syncRuns.status, ['ok', 'held', 'failed'])))
        .orderBy(desc(syncRuns.startedAt), desc(syncRuns.id))
        .limit(1);
      return row ?? null;
    },

    /** Every run, oldest first (tests and diagnostics). */
    async all(): Promise<SyncRunRow[]> {
      return db.select().from(syncRuns).orderBy(syncRuns.id);
    },

    /**
     * Deletes the campaign's snapshots not written since `before`: after a listing that finished
     * without error, those members are gone from the campaign (a deletion the webhook missed).
     * Snapshots a webhook wrote while the listing ran are newer and stay.
     */
    async deleteStaleSnapshots(campaignId: string, before: Date): Promise<number> {
      const deleted = await db
        .delete(memberSnapshots)
        .where(and(eq(memberSnapshots.campaignId, campaignId), lt(memberSnapshots.fetchedAt, before)))
        .returning({ memberId: memberSnapshots.memberId });
      return deleted.length;
    },

    /**
     * Runs left `running` by a process that died, closed as failed. Call it only while holding the
     * full-sync lock: then no other run is in progress anywhere.
     */
    async closeAbandoned(now: Date): Promise<number> {
      const rows = await db
        .update(syncRuns)
        .set({
          status: 'failed',
          finishedAt: now,
          errors: sql`${syncRuns.errors} || '["the process running this sync stopped before it finished"]'::jsonb`,
        })
        .where(eq(syncRuns.status, 'running'))
        .returning({ id: syncRuns.id });
      return rows.length;
    },
  };
}

/**
 * One pair per Discord user and per service user within a batch: a multi-row insert that
 * conflicts with itself on the unique index would fail where one-by-one inserts keep the first.
 */
