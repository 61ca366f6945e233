import type { ClaimedRow, DurableQueue, QueueTable } from './durable-queue';
import type { FenceScope } from '../../../shared/fence';
import type { Clock, Random } from '../../../shared/clock';
import { MINUTE } from '../../../shared/clock';
import type { Logger } from '../../../shared/logger';
import { within } from '../../../shared/within';

export interface QueueWorkerOptions {
  name: string;
  queue: DurableQueue;
  /** Does the work of one row; a throw schedules a retry (or a dead letter after `maxAttempts`). */
  handle(row: ClaimedRow): Promise<void>;
  clock: Clock;
  random: Random;
  logger: Logger;
  /** How often the sweep looks for work that a crash or a failure left behind. */
  pollMs?: number;
  /** The lease on a claimed row; a worker that dies holding it frees the row when it expires. */
  lockMs?: number;
  /**
   * How often a row's lease is renewed while its work runs (default a third of `lockMs`): work that
   * waits (a Discord rate limit, a slow service) keeps its row however long it waits, and only a
   * worker that died lets its lease run out.
   */
  renewEveryMs?: number;
  maxAttempts?: number;
  /** Rows worked at once. */
  concurrency?: number;
  onRetry?(row: ClaimedRow, error: unknown): void;
  onDead?(row: ClaimedRow, error: unknown): void;
  /**
   * The work of a row runs under the row's fence (its table, id and attempt: docs/outages-and-fencing.md),
   * so the writes it leads to are refused once the row is no longer this worker's.
   */
  fencing?: { scope: FenceScope; table: QueueTable };
}

export interface QueueWorker {
  /** Works one row now if it is due and free (called right after the durable write). */
  runNow(id: number): Promise<void>;
  /** Works every due row once (the sweep); resolves when they are done. */
  sweep(): Promise<number>;
  start(): void;
  /** Stops the sweep and waits up to `timeoutMs` for rows in flight. Returns false if some were still running. */
  stop(timeoutMs?: number): Promise<boolean>;
  /** Rows being worked right now. */
  readonly inFlight: number;
}

/** Exponential back-off with full jitter: 2 s, 4 s, … capped at 30 minutes. */
export function retryDelayMs(attempts: number, random: Random): number {
  const ceiling = Math.min(30 * MINUTE, 2000 * 2 ** Math.max(0, attempts - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * Works a durable queue: the work starts at once after the durable write (`runNow`), and a
 * periodic sweep picks up only what a crash or a failure left (docs/architecture.md: durable is not slow).
 */
export function createQueueWorker(options: QueueWorkerOptions): QueueWorker {
  const { queue, clock, logger } = options;
  const lockMs = options.lockMs ?? 2 * MINUTE;
  const renewEveryMs = options.renewEveryMs ?? Math.max(1, Math.floor(lockMs / 3));
  const maxAttempts = options.maxAttempts ?? 8;
  const concurrency = options.concurrency ?? 4;
  const running = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<number> | null = null;
  let stopped = false;

  /** The lease renewals running now: stop() ends them when it gives up on the work in flight. */
  const renewals = new Set<() => void>();

  /** Renews the lease of `row` every `renewEveryMs` until the returned stop is called. */
  function holdLease(row: ClaimedRow): () => void {
    let renewing = false;
    const timer = setInterval(() => {
      if (renewing) return;
      renewing = true;
      queue
        .renew(row.id, row.attempts, new Date(clock.now().getTime() + lockMs))
        .then((held) => {
          if (!held) logger.warn({ queue: options.name, id: row.id }, 'lost the lease of a queued item while working it');
        })
        .catch((error: unknown) =>
          logger.warn({ queue: options.name, id: row.id, err: error }, 'renewing the lease of a queued item failed'),
        )
        .finally(() => {
          renewing = false;
        });
    }, renewEveryMs);
    timer.unref();
    const release = () => {
      clearInterval(timer);
      renewals.delete(release);
    };
    renewals.add(release);
    return release;
  }

  async function work(row: ClaimedRow): Promise<void> {
    const release = holdLease(row);
    try {
      const fencing = options.fencing;
      if (fencing) {
        await fencing.scope.run({ kind: 'work', queue: fencing.table, id: row.id, attempts: row.attempts }, () => options.handle(row));
      } else {
        await options.handle(row);
      }
      release();
      await queue.complete(row.id, row.attempts, clock.now());
    } catch (error) {
      release();
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      if (row.attempts >= maxAttempts) {
        logger.error({ queue: options.name, id: row.id, attempts: row.attempts, err: error }, 'giving up on a queued item');
        await queue.kill(row.id, row.attempts, message, clock.now());
        options.onDead?.(row, error);
      } else {
        const delay = retryDelayMs(row.attempts, options.random);
        logger.warn(
          { queue: options.name, id: row.id, attempts: row.attempts, retryInMs: delay, err: error },
          'queued item failed; will retry',
        );
        await queue.retry(row.id, row.attempts, message, new Date(clock.now().getTime() + delay));
        options.onRetry?.(row, error);
      }
    }
  }

  function track(promise: Promise<void>): Promise<void> {
    const tracked = promise.catch((error) => logger.error({ queue: options.name, err: error }, 'queue bookkeeping failed'));
    running.add(tracked);
    void tracked.finally(() => running.delete(tracked));
    return tracked;
  }

  async function sweepOnce(): Promise<number> {
    let total = 0;
    for (;;) {
      if (stopped) return total;
      const rows = await queue.claim({ limit: concurrency, lockMs, now: clock.now() });
      if (rows.length === 0) return total;
      total += rows.length;
      await Promise.all(rows.map((row) => track(work(row))));
    }
  }

  return {
    async runNow(id) {
      if (stopped) return;
      const [row] = await queue.claim({ limit: 1, lockMs, now: clock.now(), id });
      if (row) await track(work(row));
    },
    sweep() {
      sweeping ??= sweepOnce().finally(() => {
        sweeping = null;
      });
      return sweeping;
    },
    start() {
      stopped = false;
      if (timer) return;
      timer = setInterval(() => {
        this.sweep().catch((error) => logger.error({ queue: options.name, err: error }, 'queue sweep failed'));
      }, options.pollMs ?? 5000);
      timer.unref();
    },
    async stop(timeoutMs = 10_000) {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      const all = Promise.all([...running]).then(() => true);
      const finished = await within(all, timeoutMs, () => false);
      // Work still running is given up: its leases are no longer renewed, so they run out and
      // another instance (or the next start) takes the rows, as after a crash.
      if (!finished) for (const release of [...renewals]) release();
      return finished;
    },
    get inFlight() {
      return running.size;
    },
  };
}
