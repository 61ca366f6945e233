import { sql } from 'drizzle-orm';
import { type Db, queryRows } from './database';

/**
 * The claim/complete/retry cycle shared by the webhook inbox and the jobs table: both have
 * `status`, `run_at`, `locked_until`, `attempts`, `last_error` and `finished_at`.
 *
 * A claim sets a lease (`locked_until`) instead of holding a transaction open while the work runs:
 * the work calls Discord and the service, and a transaction held across those calls would pin a
 * connection (and PGlite's only one). A worker that dies leaves a lease that expires, and the next
 * sweep takes the row again. `FOR UPDATE SKIP LOCKED` keeps two instances from claiming one row.
 */
export type QueueTable = 'jobs' | 'webhook_inbox';

export interface ClaimedRow {
  id: number;
  attempts: number;
  [column: string]: unknown;
}

export interface DurableQueue {
  /** Claims up to `limit` due rows (or the one row `id` if due and free) for `lockMs`. */
  claim(options: { limit: number; lockMs: number; now: Date; id?: number }): Promise<ClaimedRow[]>;
  /**
   * Extends the lease of a row this worker still holds (claimed with `attempts`) to `until`; false
   * when the row is no longer ours (finished, or claimed again after the lease ran out).
   */
  renew(id: number, attempts: number, until: Date): Promise<boolean>;
  /**
   * Finishing a row (done, retry later, dead) is conditional on the claim it was worked under
   * (`attempts`, the row's fencing token: docs/outages-and-fencing.md): a worker that was paused past its
   * lease and resumes cannot undo the claim of the worker that took the row over.
   */
  complete(id: number, attempts: number, now: Date): Promise<void>;
  retry(id: number, attempts: number, error: string, runAt: Date): Promise<void>;
  kill(id: number, attempts: number, error: string, now: Date): Promise<void>;
  /**
   * Frees every row a claim still holds (the embedded database at start: its one process is this
   * one, so whatever an earlier process was working is free now, not after its lease). Answers how many.
   */
  reclaimAll(): Promise<number>;
  /** Rows waiting (due or scheduled), for metrics. */
  depth(): Promise<number>;
  /** Deletes finished rows older than `before`. */
  prune(before: Date): Promise<number>;
}

export function createDurableQueue(db: Db, table: QueueTable): DurableQueue {
  const t = sql.identifier(table);
  return {
    async claim({ limit, lockMs, now, id }) {
      const until = new Date(now.getTime() + lockMs);
      const only = id === undefined ? sql`` : sql`and id = ${id}`;
      const rows = await queryRows<ClaimedRow>(
        db,
        sql`update ${t} set locked_until = ${until}, attempts = attempts + 1
            where id in (
              select id from ${t}
              where status = 'pending' and run_at <= ${now} and (locked_until is null or locked_until < ${now}) ${only}
              order by run_at, id
              limit ${limit}
              for update skip locked)
            returning *`,
      );
      // int8 comes back as a string from node-postgres.
      return rows.map((row) => ({ ...row, id: Number(row.id), attempts: Number(row.attempts) }));
    },
    async renew(id, attempts, until) {
      const rows = await queryRows<{ id: number }>(
        db,
        sql`update ${t} set locked_until = ${until} where id = ${id} and attempts = ${attempts} and status = 'pending' returning id`,
      );
      return rows.length > 0;
    },
    async complete(id, attempts, now) {
      await db.execute(
        sql`update ${t} set status = 'done', finished_at = ${now}, locked_until = null, last_error = null
            where id = ${id} and attempts = ${attempts} and status = 'pending'`,
      );
    },
    async retry(id, attempts, error, runAt) {
      await db.execute(
        sql`update ${t} set locked_until = null, run_at = ${runAt}, last_error = ${error.slice(0, 2000)}
            where id = ${id} and attempts = ${attempts} and status = 'pending'`,
      );
    },
    async kill(id, attempts, error, now) {
      await db.execute(
        sql`update ${t} set status = 'dead', finished_at = ${now}, locked_until = null, last_error = ${error.slice(0, 2000)}
            where id = ${id} and attempts = ${attempts} and status = 'pending'`,
      );
    },
    async reclaimAll() {
      const rows = await queryRows<{ id: number }>(
        db,
        sql`update ${t} set locked_until = null where status = 'pending' and locked_until is not null returning id`,
      );
      return rows.length;
    },
    async depth() {
      const [row] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from ${t} where status = 'pending'`);
      return row?.n ?? 0;
    },
    async prune(before) {
      const rows = await queryRows<{ id: number }>(
        db,
        sql`delete from ${t} where status in ('done', 'dead') and finished_at < ${before} returning id`,
      );
      return rows.length;
    },
  };
}

/** The webhook inbox's claim cycle: all the database the webhook processor gets. */
export function createInboxQueue(db: Db): DurableQueue {
  return createDurableQueue(db, 'webhook_inbox');
}
