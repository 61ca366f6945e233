import { and, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../database';
import { memberSnapshots, syncRuns } from '../schema';
import type { GrantKind } from '../../../core/planner/types';
import type { AuditEntry } from './ledger-repository';

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

/** Rows per multi-row statement: well under PostgreSQL's 65,535 bind parameters for every table here. */
const CHUNK = 1000;

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
     * Ledger writes of many applied changes at once (the full sync's, see `applyInBatches` in
     * src/sync/full-sync.ts): grants Discord accepted are recorded as `ledger.record` does, and
     * grants Discord removed (or that were already gone) are dropped as `ledger.remove` does.
     */
    async writeLedger(
      guildId: string,
      recorded: ReadonlyArray<{
        discordUserId: string;
        roleId: string;
        campaignId: string | null;
        tierId: string | null;
        kind: GrantKind;
        reason: string;
      }>,
      removed: ReadonlyArray<{ discordUserId: string; roleId: string }>,
      now: Date,
    ): Promise<void> {
      for (let i = 0; i < recorded.length; i += CHUNK) {
        const rows = recorded
          .slice(i, i + CHUNK)
          .map((g) => ({ u: g.discordUserId, r: g.roleId, c: g.campaignId, t: g.tierId, k: g.kind, why: g.reason }));
        await db.execute(sql`
          insert into role_grants (guild_id, discord_user_id, role_id, campaign_id, tier_id, kind, reason, granted_at)
          select ${guildId}, r.u, r.r, r.c, r.t, r.k, r.why, ${now.toISOString()}::timestamptz
          from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(u text, r text, c text, t text, k text, why text)
          on conflict (guild_id, discord_user_id, role_id) do update set
            campaign_id = excluded.campaign_id, tier_id = excluded.tier_id, kind = excluded.kind, reason = excluded.reason
        `);
      }
      for (let i = 0; i < removed.length; i += CHUNK) {
        const rows = removed.slice(i, i + CHUNK).map((g) => ({ u: g.discordUserId, r: g.roleId }));
        await db.execute(sql`
          delete from role_grants g
          using jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(u text, r text)
          where g.guild_id = ${guildId} and g.discord_user_id = r.u and g.role_id = r.r
        `);
      }
    },

    /** Audit rows in one statement per thousand (the ledger's `audit` binds nine parameters a row). */
    async auditMany(entries: readonly AuditEntry[]): Promise<void> {
      for (let i = 0; i < entries.length; i += CHUNK) {
        const rows = entries.slice(i, i + CHUNK).map((e) => ({
          at: (e.at ?? new Date()).toISOString(),
          g: e.guildId,
          u: e.discordUserId,
          r: e.roleId,
          a: e.action,
          o: e.outcome,
          t: e.trigger,
          why: e.reason,
          err: e.error ?? null,
        }));
        await db.execute(sql`
          insert into audit_log (at, guild_id, discord_user_id, role_id, action, outcome, trigger, reason, error)
          select r.at, r.g, r.u, r.r, r.a, r.o, r.t, r.why, r.err
          from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
            as r(at timestamptz, g text, u text, r text, a text, o text, t text, why text, err text)
        `);
      }
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
