import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../../../shared/logger';
import {
  type BudgetStore,
  GLOBAL_KEY,
  type KnownLimit,
  type Lane,
  PROBE_MS,
  type SeenLimit,
  type TakeResult,
  budgetKeyOf,
} from './request-budget';

/** What a request carries down to the HTTP layer: its lane, and the bucket it already paid for. */
interface RequestContext {
  lane: Lane;
  prepaidKey: string | null;
}

interface Waiter {
  start(): Promise<void>;
  fail(error: unknown): void;
}

interface LaneQueue {
  interactive: Waiter[];
  bulk: Waiter[];
  running: boolean;
}

interface Lease {
  tokens: number;
  until: number;
  lane: Lane;
}

export interface RequestSchedulerOptions {
  store: BudgetStore;
  /** Discord's global limit: 50 requests per second (docs/tech-facts.md §1). */
  global: KnownLimit;
  /** A monotonic clock in ms; `performance.now` when absent. */
  now?: () => number;
  logger?: Logger;
  /** Told each time a request waits for its bucket or the global limit. */
  onWait?(lane: Lane, ms: number): void;
}

/** A response's headers as @discordjs/rest hands them to its `response` event. */
export interface HeaderSource {
  get(name: string): string | null;
}

const PRUNE_EVERY_MS = 10 * 60_000;

export function createRequestScheduler(options: RequestSchedulerOptions): RequestScheduler {
  const { store } = options;
  const now = options.now ?? (() => performance.now());
  const context = new AsyncLocalStorage<RequestContext>();
  const queues = new Map<string, LaneQueue>();
  const leases = new Map<string, Lease>();
  const learning = new Map<string, Promise<void>>();
  const taking = new Map<string, { lane: Lane; result: Promise<TakeResult> }>();
  const wakers = new Map<string, Set<() => void>>();
  /** Every wait in progress, ended by {@link close}. */
  const stops = new Set<(reason: Error) => void>();
  /** Interactive requests of this process waiting in {@link pace}, per key. */
  const urgent = new Map<string, number>();
  /** Requests sent and not answered yet, per key: when each was counted. */
  const inFlight = new Map<string, Set<{ at: number }>>();
  let closed: Error | null = null;
  let lastPrune = now();

  function wake(key: string): void {
    const set = wakers.get(key);
    if (!set) return;
    wakers.delete(key);
    for (const w of set) w();
  }

  /**
   * Sleeps `ms`, or less when the key's budget changes (an answer came, an interactive request
   * arrived) or `signal` aborts. The timer holds the process open: a request waiting for its
   * bucket is work not done yet, and a command (`npm run sync`) whose only work left is such a
   * wait must not end there. {@link close} ends every wait at shutdown.
   */
  function pause(key: string, ms: number, signal?: AbortSignal): Promise<void> {
    if (closed) return Promise.reject(closed);
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        wakers.get(key)?.delete(done);
        signal?.removeEventListener('abort', aborted);
        stops.delete(stopped);
        resolve();
      };
      const aborted = () => {
        done();
        reject(signal?.reason ?? new Error('aborted'));
      };
      const stopped = (reason: Error) => {
        done();
        reject(reason);
      };
      const timer = setTimeout(done, ms);
      let set = wakers.get(key);
      if (!set) wakers.set(key, (set = new Set()));
      set.add(done);
      stops.add(stopped);
      if (signal?.aborted) aborted();
      else signal?.addEventListener('abort', aborted, { once: true });
    });
  }

  /** Takes the request off the in-flight set; how many of its bucket were sent after it and are still out. */
  function settle(key: string, ticket: { at: number }): number {
    const sent = inFlight.get(key);
    if (!sent) return 0;
    sent.delete(ticket);
    if (sent.size === 0) inFlight.delete(key);
    let after = 0;
    for (const other of sent) if (other.at > ticket.at) after += 1;
    return after;
  }

  /**
   * What a response says about its bucket (and, on a 429, about the global limit), with the
   * request's place among the others of its bucket: when it was sent, and how many sent after it
   * are still out (src/edges/outbound/discord/request-budget.ts, `learnInto`).
   */
  function observe(key: string, status: number, headers: HeaderSource, ticket: { at: number }): void {
    const inFlightAfter = settle(key, ticket);
    const number = (name: string) => {
      const raw = headers.get(name);
      const value = raw === null ? Number.NaN : Number(raw);
      return Number.isFinite(value) ? value : null;
    };
    const limit = number('x-ratelimit-limit');
    const remaining = number('x-ratelimit-remaining');
    const resetAfter = number('x-ratelimit-reset-after');
    const retryAfter = number('retry-after');
    const seen: SeenLimit | null =
      limit !== null && remaining !== null && resetAfter !== null
        ? { limit, remaining, resetAfterMs: resetAfter * 1000, ageMs: Math.max(0, now() - ticket.at), inFlightAfter }
        : null;
    // A lease is given up when Discord says less remains than it holds (the bucket shrank, or
    // another program spent it): the next take asks the store, which applies the reserve to what it learned.
    const lease = leases.get(key);
    if (lease && (seen ? lease.tokens > seen.remaining : status === 429)) leases.delete(key);
    const global = status === 429 && headers.get('x-ratelimit-global') !== null;
    if (status === 429) options.logger?.warn({ key, global, retryAfterS: retryAfter }, 'discord answered 429');
    const write = (async () => {
      if (status === 429 && retryAfter !== null) await store.blocked(global ? GLOBAL_KEY : key, retryAfter * 1000);
      if (seen || status !== 429) await store.learn(key, seen);
    })().catch((error: unknown) => options.logger?.warn({ err: error, key }, 'recording a Discord rate limit failed'));
    learning.set(key, write);
    void write.then(() => {
      if (learning.get(key) === write) learning.delete(key);
      wake(key);
    });
  }

  function fromLease(key: string, lane: Lane, t: number): boolean {
    const lease = leases.get(key);
    if (!lease || lease.tokens <= 0 || t >= lease.until || (lane === 'bulk' && lease.lane !== 'bulk')) return false;
    lease.tokens -= 1;
    return true;
  }

  /**
   * `waitMs` 0 when one request of `key` may go now (it is counted; `at`: where, for a sliding
   * count, to tell the store its answer came), else how long to wait before asking again. One take
   * per key is out at a time: callers arriving meanwhile share its answer (the requests it granted
   * beyond the first, or its refusal), so a burst costs the store one round trip.
   */
  async function acquire(key: string, lane: Lane, known?: KnownLimit): Promise<{ waitMs: number; at?: number }> {
    const t = now();
    if (t - lastPrune > PRUNE_EVERY_MS) {
      lastPrune = t;
      store.prune().catch((error: unknown) => options.logger?.warn({ err: error }, 'pruning the Discord request budget failed'));
    }
    for (;;) {
      if (fromLease(key, lane, now())) return { waitMs: 0 };
      const pending = taking.get(key);
      if (pending) {
        const shared = await pending.result;
        // A refusal holds for the same lane, and for the bulk lane whatever lane asked.
        if (shared.granted === 0 && (pending.lane === lane || lane === 'bulk')) return { waitMs: shared.waitMs };
        continue;
      }
      const result = (async () => {
        await learning.get(key);
        // The window's rest is counted from before the question: the answer comes later than the store's now.
        const asked = now();
        const answer = await store.take(key, lane, store.shared ? 100 : 1, known);
        if (answer.granted > 1) leases.set(key, { tokens: answer.granted - 1, until: asked + answer.windowLeftMs, lane });
        return answer;
      })();
      const entry = { lane, result };
      taking.set(key, entry);
      try {
        const answer = await result;
        if (answer.granted > 0) return answer.at === undefined ? { waitMs: 0 } : { waitMs: 0, at: answer.at };
        options.logger?.debug({ bucket: key, lane, waitMs: answer.waitMs }, 'discord request waits for its bucket');
        options.onWait?.(lane, answer.waitMs);
        return { waitMs: answer.waitMs };
      } finally {
        if (taking.get(key) === entry) taking.delete(key);
      }
    }
  }

  /**
   * Waits until one request of `key` may go, and counts it. While an interactive request of this
   * process waits for the key, bulk ones do not ask: the next room goes to it (the global limit
   * counted by one process keeps no share for a lane; this order is its lanes).
   */
  async function pace(key: string, lane: Lane, signal?: AbortSignal, known?: KnownLimit): Promise<number | undefined> {
    let waiting = false;
    try {
      for (;;) {
        if (lane === 'bulk' && (urgent.get(key) ?? 0) > 0) {
          await pause(key, PROBE_MS, signal);
          continue;
        }
        const { waitMs: wait, at } = await acquire(key, lane, known);
        if (wait === 0) return at;
        if (lane === 'interactive' && !waiting) {
          waiting = true;
          urgent.set(key, (urgent.get(key) ?? 0) + 1);
        }
        await pause(key, wait, signal);
      }
    } finally {
      if (waiting) {
        const left = (urgent.get(key) ?? 1) - 1;
        if (left > 0) urgent.set(key, left);
        else {
          urgent.delete(key);
          // The bulk requests held back for it ask again.
          wake(key);
        }
      }
    }
  }

  async function pump(key: string, queue: LaneQueue): Promise<void> {
    if (queue.running) return;
    queue.running = true;
    try {
      while (queue.interactive.length + queue.bulk.length > 0) {
        const lane: Lane = queue.interactive.length > 0 ? 'interactive' : 'bulk';
        let wait: number;
        try {
          wait = (await acquire(key, lane)).waitMs;
        } catch (error) {
          (queue.interactive.shift() ?? queue.bulk.shift())?.fail(error);
          continue;
        }
        if (wait > 0) {
          try {
            await pause(key, wait);
          } catch (error) {
            for (const waiter of [...queue.interactive.splice(0), ...queue.bulk.splice(0)]) waiter.fail(error);
          }
          continue;
        }
        // Whoever is first now gets the request: an interactive one that arrived meanwhile may use a bulk grant.
        await (queue.interactive.shift() ?? queue.bulk.shift())!.start();
      }
    } finally {
      queue.running = false;
      if (queue.interactive.length + queue.bulk.length === 0) queues.delete(key);
      else void pump(key, queue);
    }
  }

  return {
    run<T>(key: string, lane: Lane, send: () => Promise<T>): Promise<T> {
      if (closed) return Promise.reject(closed);
      return new Promise<T>((resolve, reject) => {
        let queue = queues.get(key);
        if (!queue) queues.set(key, (queue = { interactive: [], bulk: [], running: false }));
        const waiter: Waiter = {
          start: () => context.run({ lane, prepaidKey: key }, send).then(resolve, reject),
          fail: reject,
        };
        queue[lane].push(waiter);
        if (lane === 'interactive') wake(key);
        void pump(key, queue);
      });
    },

    inLane<T>(lane: Lane, task: () => Promise<T>): Promise<T> {
      return context.run({ lane, prepaidKey: null }, task);
    },

    makeRequest<I extends { method?: string; signal?: AbortSignal | null }, R extends { status: number; headers: HeaderSource }>(
      base: (url: string, init: I) => Promise<R>,
      pathOf: (url: string) => string,
    ): (url: string, init: I) => Promise<R> {
      return async (url, init) => {
        const key = budgetKeyOf(init.method ?? 'GET', pathOf(url));
        if (key === null) return base(url, init);
        const ctx = context.getStore();
        const lane = ctx?.lane ?? 'interactive';
        const signal = init.signal ?? undefined;
        // Paid once: a retry of the same request (after a 5xx or a 429) pays again.
        if (ctx?.prepaidKey === key) ctx.prepaidKey = null;
        else await pace(key, lane, signal);
        // In flight from here: counted in its bucket, whatever the global limit makes it wait.
        const ticket = { at: now() };
        let sent = inFlight.get(key);
        if (!sent) inFlight.set(key, (sent = new Set()));
        sent.add(ticket);
        let response: R;
        let counted: number | undefined;
        try {
          counted = await pace(GLOBAL_KEY, lane, signal, options.global);
          response = await base(url, init);
        } catch (error) {
          settle(key, ticket);
          throw error;
        } finally {
          // A sliding count holds the request's place until its answer: Discord counted it before then.
          if (counted !== undefined) {
            const answered = store.answered?.(GLOBAL_KEY, counted);
            // Requests waiting on it look again: its place moved back from far ahead.
            void answered?.then(
              () => wake(GLOBAL_KEY),
              (error: unknown) => options.logger?.warn({ err: error }, 'recording a Discord answer in the budget failed'),
            );
          }
        }
        observe(key, response.status, response.headers, ticket);
        return response;
      };
    },

    close(): void {
      closed ??= new Error('the Discord client is stopping; the request was not sent');
      for (const stop of [...stops]) stop(closed);
    },
  };
}

/**
 * Sends Discord requests only when their bucket and the global limit have room
 * (src/edges/outbound/discord/request-budget.ts), so that none is answered 429 and none waits inside
 * @discordjs/rest's own per-bucket queue, which is first come, first served (docs/decisions.md §19):
 *
 * - {@link run}: role requests, one at a time per bucket, the interactive lane first; a bulk
 *   request waiting for its window is overtaken by an interactive one that arrives meanwhile.
 * - {@link makeRequest}: every request (retries too) passes here on its way out; it waits for its
 *   route's bucket (unless {@link run} paid for it) and for the global limit, and its answer
 *   teaches the budget its bucket's size, window and count, in the order the requests were sent.
 * - {@link close}: at shutdown, ends every wait.
 */
export interface RequestScheduler {
  /**
   * Runs `send` (one request of bucket `key`) when the bucket has room for `lane`, after every
   * interactive request of the same bucket that is waiting. The bucket is paid for here, so
   * `send`'s request does not wait for it again on its way out.
   */
  run<T>(key: string, lane: Lane, send: () => Promise<T>): Promise<T>;
  /** Runs `task` with its requests in `lane` (the lane of the requests nobody scheduled is interactive). */
  inLane<T>(lane: Lane, task: () => Promise<T>): Promise<T>;
  /**
   * Wraps @discordjs/rest's `makeRequest` (its HTTP call, made for every attempt): the request
   * waits for its bucket and for the global limit first. `pathOf` turns the URL into the API path.
   */
  makeRequest<I extends { method?: string; signal?: AbortSignal | null }, R extends { status: number; headers: HeaderSource }>(
    base: (url: string, init: I) => Promise<R>,
    pathOf: (url: string) => string,
  ): (url: string, init: I) => Promise<R>;
  /**
   * Ends every wait for a bucket with an error, and every later one at once: at shutdown, once
   * the work that could still finish has had its grace, nothing waits on.
   */
  close(): void;
}
