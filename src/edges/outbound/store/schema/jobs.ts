import { sql } from 'drizzle-orm';
import { bigserial, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { ts } from './columns';

// Durable background work other than webhook deliveries.

/** Durable background work other than deliveries (member re-checks, campaign syncs, mapping reconciles). */
export const jobs = pgTable(
  'jobs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    kind: text('kind').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    /** At most one pending job per key: queueing the same re-check twice is one job. */
    dedupeKey: text('dedupe_key'),
    status: text('status').$type<'pending' | 'done' | 'dead'>().notNull().default('pending'),
    runAt: ts('run_at').notNull().defaultNow(),
    attempts: integer('attempts').notNull().default(0),
    lockedUntil: ts('locked_until'),
    lastError: text('last_error'),
    createdAt: ts('created_at').notNull().defaultNow(),
    finishedAt: ts('finished_at'),
  },
  (t) => [
    index('jobs_due_idx').on(t.status, t.runAt),
    uniqueIndex('jobs_pending_dedupe_idx')
      .on(t.dedupeKey)
      .where(sql`status = 'pending'`),
  ],
);
