import { sql } from 'drizzle-orm';
import { type Db, queryRows } from './database';
import { createDurableQueue } from './durable-queue';
import type { Clock, Random } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import { type QueueWorker, createQueueWorker } from './queue-worker';

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
}

/**
 * Durable background work other than webhook deliveries: member re-checks, campaign syncs after a
 * webhook was found paused, reconciles after a mapping change. Handlers are registered by kind.
 */
export function createJobQueue(deps: {
  db: Db;
  clock: Clock;
  random: Random;
  logger: Logger;
  handlers?: Record<string, JobHandler>;
  pollMs?: number;
}): JobQueue {
  const handlers = new Map<string, JobHandler>(Object.entries(deps.handlers ?? {}));
  const queue = createDurableQueue(deps.db, 'jobs');
  const worker = createQueueWorker({
    name: 'jobs',
    queue,
    clock: deps.clock,
    random: deps.random,
    logger: deps.logger,
    concurrency: 2,
    ...(deps.pollMs !== undefined ? { pollMs: deps.pollMs } : {}),
    async handle(row) {
      const kind = String(row.kind);
      const handler = handlers.get(kind);
      if (!handler) throw new Error(`no handler for job kind "${kind}"`);
      await handler(row.payload as Record<string, unknown>);
    },
  });
  return {
    worker,
    register(kind, handler) {
      if (handlers.has(kind)) throw new TypeError(`[jobs] a handler for "${kind}" is already registered`);
      handlers.set(kind, handler);
    },
    async enqueue(kind, payload, options = {}) {
      const runAt = options.runAt ?? deps.clock.now();
      const [row] = await queryRows<{ id: string | number }>(
        deps.db,
        sql`insert into jobs (kind, payload, dedupe_key, run_at) values (${kind}, ${JSON.stringify(payload)}::jsonb, ${options.dedupeKey ?? null}, ${runAt})
            on conflict (dedupe_key) where status = 'pending' do nothing returning id`,
      );
      if (!row) return null;
      const id = Number(row.id);
      if (runAt.getTime() <= deps.clock.now().getTime()) {
        void worker.runNow(id).catch((error) => deps.logger.error({ err: error, kind }, 'job failed to start'));
      }
      return id;
    },
  };
}
