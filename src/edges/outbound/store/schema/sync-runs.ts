import { sql } from 'drizzle-orm';
import { bigserial, boolean, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import type { HeldWhy } from '../../../../core/sync-report';
import { ts } from './columns';

// The record of each full sync of a guild.

/** One row per full sync of a guild (or dry run), with what it read, planned, did and held. */
export const syncRuns = pgTable(
  'sync_runs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    trigger: text('trigger').notNull(),
    guildId: text('guild_id'),
    campaignId: text('campaign_id'),
    dryRun: boolean('dry_run').notNull().default(false),
    forced: boolean('forced').notNull().default(false),
    status: text('status').$type<'running' | 'ok' | 'held' | 'failed' | 'skipped'>().notNull(),
    startedAt: ts('started_at').notNull(),
    finishedAt: ts('finished_at'),
    pagesRead: integer('pages_read').notNull().default(0),
    membersSeen: integer('members_seen').notNull().default(0),
    links: integer('links').notNull().default(0),
    plannedAdds: integer('planned_adds').notNull().default(0),
    plannedRemoves: integer('planned_removes').notNull().default(0),
    appliedAdds: integer('applied_adds').notNull().default(0),
    appliedRemoves: integer('applied_removes').notNull().default(0),
    heldRemovals: integer('held_removals').notNull().default(0),
    failedChanges: integer('failed_changes').notNull().default(0),
    errors: jsonb('errors')
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    apiCalls: jsonb('api_calls')
      .$type<Record<string, number>>()
      .notNull()
      .default(sql`'{}'::jsonb`),
    heldReason: text('held_reason'),
    /** `held_reason` as facts, for readers of another language; null on runs recorded before them. */
    heldWhy: jsonb('held_why').$type<HeldWhy>(),
    /**
     * Where a running sync is (`campaigns`: reading the service's members, `members`: reading and
     * planning the server's, `applying`, `finishing`); kept with the counts above as the run goes,
     * so `/sync` and `/doctor` on any instance show its progress and a restart knows what stopped.
     */
    phase: text('phase').$type<'campaigns' | 'members' | 'applying' | 'finishing'>(),
    /** Members of the server listed so far (`members_seen` counts the service's). */
    membersRead: integer('members_read').notNull().default(0),
    progressAt: ts('progress_at'),
    /** When the applying is expected to end, from the pace so far (or the member-role bucket's floor before any). */
    estimatedEndAt: ts('estimated_end_at'),
    /** The run a stopped process left `running` that this one took over. */
    resumedFrom: integer('resumed_from'),
    /** 1 for a fresh run; a run resuming attempt n is attempt n + 1 (a restart resumes at most up to 3). */
    attempt: integer('attempt').notNull().default(1),
  },
  (t) => [index('sync_runs_guild_idx').on(t.guildId, t.startedAt), index('sync_runs_running_idx').on(t.status)],
);
