import { sql } from 'drizzle-orm';
import { type Db, queryRows } from './database';
import { type DurableQueue, createDurableQueue } from './durable-queue';
import type { Clock, Random } from '../../../shared/clock';
import type { Logger } from '../../../shared/logger';
import { type QueueWorker, createQueueWorker } from './queue-worker';
import type { FenceScope } from '../../../shared/fence';

export type JobHandler = (payload: Record<string, unknown>) => Promise<void>;

export interface JobQueue {
  /**
   * Queues a job durably and, when it is due now, starts it at once. A job with a `dedupeKey` that
   * is already pending is not queued twice (returns null).
   */
  enqueue(kind: string, payload: Record<string, unknown>, options?: { runAt?: Date; dedupeKey?: string }): Promise<number | null>;
  /** Registers the handler of a kind: each subsystem registers its own kinds when it is built. */
  register(kind: string, handler: JobHandler): void;
  worker: QueueWorker;
  /** The table it works, for work written to run later (`insertMany`). */
  store: JobStore;
}

/** The jobs table as the queue uses it: the claim cycle, and the insert of a job. */
export interface JobStore {
  queue: DurableQueue;
  /**
   * Writes a job durably; one with a `dedupeKey` that is already pending is not written twice
   * (returns null). Nothing starts it: the job queue's sweep takes it when it is due.
   */
  insert(kind: string, payload: Record<string, unknown>, options: { runAt: Date; dedupeKey?: string }): Promise<number | null>;
  /** {@link insert} for many jobs of one kind, in one statement per thousand; answers how many were written. */
  insertMany(kind: string, jobs: ReadonlyArray<{ payload: Record<string, unknown>; runAt: Date; dedupeKey?: string }>): Promise<number>;
}

export function createJobStore(db: Db): JobStore {
  return {
    queue: createDurableQueue(db, 'jobs'),
    async insert(kind, payload, { runAt, dedupeKey }) {
      const [row] = await queryRows<{ id: string | number }>(
        db,
        sql`insert into jobs (kind, payload, dedupe_key, run_at) values (${kind}, ${JSON.stringify(payload)}::jsonb, ${dedupeKey ?? null}, ${runAt})
            on conflict (dedupe_key) where status = 'pending' do nothing returning id`,
      );
      return row ? Number(row.id) : null;
    },
    async insertMany(kind, jobs) {
      let written = 0;
      for (let i = 0; i < jobs.length; i += 1000) {
        const rows = jobs.slice(i, i + 1000).map((j) => ({ p: j.payload, d: j.dedupeKey ?? null, r: j.runAt.toISOString() }));
        const ids = await queryRows<{ id: string | number }>(
          db,
          sql`insert into jobs (kind, payload, dedupe_key, run_at)
              select ${kind}, r.p, r.d, r.r from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(p jsonb, d text, r timestamptz)
              on conflict (dedupe_key) where status = 'pending' do nothing returning id`,
        );
        written += ids.length;
      }
      return written;
    },
  };
}

/**
 * Durable background work other than webhook deliveries: member re-checks, campaign syncs after a
 * webhook was found paused, reconciles after a mapping change. Handlers are registered by kind.
 */
export function createJobQueue(deps: {
  store: JobStore;
  clock: Clock;
  random: Random;
  logger: Logger;
  handlers?: Record<string, JobHandler>;
  pollMs?: number;
  /** A job is worked under its row's fence (docs/outages-and-fencing.md). */
  fences?: FenceScope;
}): JobQueue {
  const handlers = new Map<string, JobHandler>(Object.entries(deps.handlers ?? {}));
  const worker = createQueueWorker({
    name: 'jobs',
    queue: deps.store.queue,
    clock: deps.clock,
    random: deps.random,
    logger: deps.logger,
    concurrency: 2,
    ...(deps.pollMs !== undefined ? { pollMs: deps.pollMs } : {}),
    ...(deps.fences ? { fencing: { scope: deps.fences, table: 'jobs' as const } } : {}),
    async handle(row) {
      const kind = String(row.kind);
      const handler = handlers.get(kind);
      if (!handler) throw new Error(`no handler for job kind "${kind}"`);
      await handler(row.payload as Record<string, unknown>);
    },
  });
  return {
    worker,
    store: deps.store,
    register(kind, handler) {
      if (handlers.has(kind)) throw new TypeError(`[jobs] a handler for "${kind}" is already registered`);
      handlers.set(kind, handler);
    },
    async enqueue(kind, payload, options = {}) {
      const runAt = options.runAt ?? deps.clock.now();
      const id = await deps.store.insert(kind, payload, { runAt, dedupeKey: options.dedupeKey });
      if (id === null) return null;
      if (runAt.getTime() <= deps.clock.now().getTime()) {
        void worker.runNow(id).catch((error) => deps.logger.error({ err: error, kind }, 'job failed to start'));
      }
      return id;
    },
  };
}
