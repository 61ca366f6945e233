import { createHash } from 'node:crypto';
import type { Clock, Sleep } from '../../../shared/clock';
import type { Logger } from '../../../shared/logger';
import type { DialectMemory, ServiceDialect } from './dialect';

/**
 * `interactive`: someone waits for it (a `/link`, a join, a command, a delivery that may change a
 * role). `confirm`: a read that confirms what is stored (a re-check, a grace period's end).
 * `bulk`: the full sync's pages. They go in that order; only interactive requests may use the
 * share of every window kept for them.
 */
export type RequestPriority = 'interactive' | 'confirm' | 'bulk';

const LANE_ORDER: Readonly<Record<RequestPriority, number>> = { interactive: 0, confirm: 1, bulk: 2 };

/** At most `requests` in any `windowMs`. */
export interface RateWindow {
  requests: number;
  windowMs: number;
}

export interface BudgetLimits {
  /** Every request of the OAuth client, whatever the token. */
  perClient: RateWindow | null;
  /** Every request made with one grant's token (refreshing it does not reset the count). */
  perToken: RateWindow | null;
  /** Requests of each window that only interactive requests may use. */
  interactiveReserve: number;
}

/**
 * Patreon's published limits (docs/patreon-api-notes.md §6): 100 requests per
 * 2 s per client and 100 per minute per token; a tenth of each is kept for interactive requests.
 */
export const PATREON_PUBLISHED_LIMITS: BudgetLimits = Object.freeze({
  perClient: { requests: 100, windowMs: 2_000 },
  perToken: { requests: 100, windowMs: 60_000 },
  interactiveReserve: 10,
});

/**
 * The limits each dialect's service has: Patreon's published ones in both. The spec states no
 * quota of its own (Limits: "not shown"), but it names Patreon's API, which counts these whatever
 * names a request uses (docs/patreon-api-notes.md §6).
 */
export const DEFAULT_BUDGET_LIMITS: Readonly<Record<ServiceDialect, BudgetLimits | null>> = Object.freeze({
  patreon: PATREON_PUBLISHED_LIMITS,
  spec: PATREON_PUBLISHED_LIMITS,
});

export interface RequestBudget {
  /**
   * Waits until a request with this token (null: no token, e.g. the token endpoint) may go, then
   * counts it. Call `answered` once its answer (or failure) is back: from then on it is counted from
   * that moment, the latest Patreon can have counted it.
   */
  acquire(request: { tokenKey: string | null; priority: RequestPriority }): Promise<CountedRequest>;
}

export interface CountedRequest {
  answered(): void;
}

/** One limit a request counts against: its key in the store, its window, and the share kept for interactive requests. */
export interface CountedWindow {
  key: string;
  window: RateWindow;
  reserve: number;
}

/**
 * Where the request times live: this process's memory ({@link createMemoryPatreonBudgetStore}), or
 * PostgreSQL for every instance of an installation (src/edges/outbound/store/patreon-budget-store.ts),
 * which then share Patreon's limits (docs/decisions.md §19).
 */
export interface PatreonBudgetStore {
  /**
   * Counts one request in every window of `windows` when each has room for `priority` (a bulk
   * request may not use the reserve): `waitMs` 0 and `at`, the time it is counted at for now (the
   * store's clock, {@link IN_FLIGHT_MS} ahead: until its answer, see `answered`); otherwise counts
   * nothing and answers how many ms until one more fits.
   */
  take(windows: readonly CountedWindow[], priority: RequestPriority): Promise<{ waitMs: number; at: number }>;
  /**
   * The request counted at `at` in these keys was answered: it is counted from now instead. A
   * request reaches Patreon some time after it was counted, and that delay varies (a new
   * connection, a busy event loop, a slow answer): counted until its answer as if it would come
   * {@link IN_FLIGHT_MS} late, then from its answer, it never leaves our window before it leaves
   * Patreon's, whoever is waiting meanwhile.
   */
  answered(keys: readonly string[], at: number): Promise<void>;
  /** Forgets keys with no request left in their window. */
  prune(): Promise<void>;
}

/**
 * How much longer than its window a request is counted, beyond its answer's time (see
 * {@link PatreonBudgetStore.answered}): clocks of Patreon's and ours tick apart a little.
 */
export const COUNT_MARGIN_MS = 100;
/**
 * How long after its count a request is taken to be answered until it is (a request's time-out,
 * with room): a request still on its way holds its place in the window, and one whose process
 * stopped before the answer frees it this much later.
 */
export const IN_FLIGHT_MS = 30_000;

/** `log` with its first `at` (a request's provisional time) moved back to `now`, its answer's, oldest first again. */
export function movedInLog(log: readonly number[], at: number, now: number): number[] {
  const index = log.indexOf(at);
  if (index < 0) return [...log];
  const next = [...log];
  next[index] = Math.min(at, now);
  return next.sort((a, b) => a - b);
}

/** Ms until one more request fits a window whose request times (oldest first) are `log` (0: now). */
export function waitInLog(log: readonly number[], window: RateWindow, priority: RequestPriority, reserve: number, now: number): number {
  const span = window.windowMs + COUNT_MARGIN_MS;
  const since = now - span;
  let live = 0;
  for (const t of log) if (t > since) live += 1;
  const allowed = priority === 'interactive' ? window.requests : Math.max(1, window.requests - reserve);
  if (live < allowed) return 0;
  // The request that must leave the window before one more fits.
  return log[log.length - allowed]! + span - now;
}

/**
 * The rule of the budget over request logs, pure: takes one request at `now` when every window
 * has room (then appends `now` to each log), else the longest of their waits. Logs are trimmed to
 * what is still inside their window.
 */
export function takeFromLogs(
  logs: ReadonlyMap<string, readonly number[]>,
  windows: readonly CountedWindow[],
  priority: RequestPriority,
  now: number,
): { logs: Map<string, number[]>; waitMs: number } {
  const next = new Map<string, number[]>();
  let waitMs = 0;
  for (const { key, window, reserve } of windows) {
    const log = (logs.get(key) ?? []).filter((t) => t > now - window.windowMs - COUNT_MARGIN_MS);
    next.set(key, log);
    waitMs = Math.max(waitMs, waitInLog(log, window, priority, reserve, now));
  }
  if (waitMs === 0) for (const log of next.values()) log.push(now + IN_FLIGHT_MS);
  return { logs: next, waitMs: Math.max(0, Math.ceil(waitMs)) };
}

/** The store of one process: request times in memory, on the injected clock. */
export function createMemoryPatreonBudgetStore(clock: Clock): PatreonBudgetStore {
  const logs = new Map<string, { times: number[]; windowMs: number }>();
  return {
    async take(windows, priority) {
      const now = clock.now().getTime();
      const current = new Map(windows.map((w) => [w.key, logs.get(w.key)?.times ?? []]));
      const { logs: next, waitMs } = takeFromLogs(current, windows, priority, now);
      for (const w of windows) {
        const times = next.get(w.key)!;
        if (times.length > 0) logs.set(w.key, { times, windowMs: w.window.windowMs });
        else logs.delete(w.key);
      }
      return { waitMs, at: now + IN_FLIGHT_MS };
    },
    async answered(keys, at) {
      const now = clock.now().getTime();
      for (const key of keys) {
        const log = logs.get(key);
        if (log) log.times = movedInLog(log.times, at, now);
      }
    },
    async prune() {
      const now = clock.now().getTime();
      for (const [key, log] of logs) if ((log.times.at(-1) ?? 0) <= now - log.windowMs - COUNT_MARGIN_MS) logs.delete(key);
    },
  };
}

export interface RequestBudgetOptions {
  clock: Clock;
  sleep: Sleep;
  /** The service's dialect decides its limits (see {@link DEFAULT_BUDGET_LIMITS}). */
  dialect: Pick<DialectMemory, 'current'>;
  /** Limits per dialect; `null` for a dialect: not paced. */
  limits?: Partial<Record<ServiceDialect, BudgetLimits | null>>;
  /** Where the counts live; this process's memory when absent. */
  store?: PatreonBudgetStore;
  /** The key of the OAuth client's own limit in the store (a store shared by installations with several clients tells them apart). */
  clientKey?: string;
  logger?: Logger;
}

/** A stable key for a bearer token that does not keep the token itself. */
export function tokenKeyOf(accessToken: string): string {
  return `token:${createHash('sha256').update(accessToken).digest('base64url').slice(0, 22)}`;
}

interface Waiter {
  tokenKey: string | null;
  priority: RequestPriority;
  seq: number;
  release: (counted: CountedRequest) => void;
  fail: (error: unknown) => void;
}

const PRUNE_EVERY_MS = 10 * 60_000;

/**
 * One budget per OAuth client, shared by every caller in the process (the sync, webhook re-reads,
 * commands) and, through a shared store, by every instance: pacing is proactive, from the
 * published limits, so no 429 is provoked; a 429 that comes anyway (another program, changed
 * limits) makes its request wait as `Retry-After` says (`http.ts`), and that wait counts in no
 * window. Waiting requests go in order: interactive ones first, then by arrival; bulk ones may not
 * use the interactive reserve, so a webhook re-read never waits behind a sync's burst, whichever
 * instance runs the sync.
 */
export function createRequestBudget(options: RequestBudgetOptions): RequestBudget {
  const { clock } = options;
  const limitsOf = { ...DEFAULT_BUDGET_LIMITS, ...options.limits };
  const store = options.store ?? createMemoryPatreonBudgetStore(clock);
  const clientKey = options.clientKey ?? 'client';
  const queue: Waiter[] = [];
  let seq = 0;
  let pumping = false;
  let limits: BudgetLimits | null = null;
  /** One release pass at a time: a pass asks the store for each waiter in order. */
  let passes: Promise<number | null> = Promise.resolve(null);
  let lastPrune = clock.now().getTime();

  const windowsOf = (w: Waiter): CountedWindow[] => {
    if (!limits) return [];
    const reserve = limits.interactiveReserve;
    const windows: CountedWindow[] = [];
    if (limits.perClient) windows.push({ key: clientKey, window: limits.perClient, reserve });
    if (limits.perToken && w.tokenKey) windows.push({ key: w.tokenKey, window: limits.perToken, reserve });
    return windows;
  };

  /** Releases every waiter that may go now, interactive first; answers the least wait of the others (null: none left). */
  const releaseReady = async (): Promise<number | null> => {
    queue.sort((a, b) => LANE_ORDER[a.priority] - LANE_ORDER[b.priority] || a.seq - b.seq);
    let least: number | null = null;
    for (const w of [...queue]) {
      const windows = windowsOf(w);
      let taken: { waitMs: number; at: number };
      try {
        taken = windows.length === 0 ? { waitMs: 0, at: 0 } : await store.take(windows, w.priority);
      } catch (error) {
        queue.splice(queue.indexOf(w), 1);
        w.fail(error);
        continue;
      }
      const wait = taken.waitMs;
      if (wait === 0) {
        queue.splice(queue.indexOf(w), 1);
        const keys = windows.map((x) => x.key);
        w.release({
          answered: () => {
            if (keys.length === 0) return;
            store.answered(keys, taken.at).then(
              () => {
                answers += 1;
                wake?.();
              },
              (error: unknown) => options.logger?.warn({ err: error }, 'recording a membership service answer in the budget failed'),
            );
          },
        });
        continue;
      }
      options.logger?.debug({ priority: w.priority, waitMs: wait }, 'membership service request waits for its budget');
      least = least === null ? wait : Math.min(least, wait);
    }
    const now = clock.now().getTime();
    if (now - lastPrune > PRUNE_EVERY_MS) {
      lastPrune = now;
      store.prune().catch((error: unknown) => options.logger?.warn({ err: error }, 'pruning the membership service budget failed'));
    }
    return least;
  };

  const pass = (): Promise<number | null> => {
    passes = passes.then(releaseReady, releaseReady);
    return passes;
  };

  /** Ends the pump's sleep early: a request was answered (its place in the window moved back), so a wait may be shorter now. */
  let wake: (() => void) | null = null;
  /** Answers recorded so far: one that came while the pump was between sleeps asks for another pass. */
  let answers = 0;
  const sleepOrWake = (ms: number): Promise<void> => {
    const stop = new AbortController();
    const woken = new Promise<void>((resolve) => {
      wake = () => {
        stop.abort();
        resolve();
      };
    });
    return Promise.race([options.sleep(ms, stop.signal), woken]).finally(() => {
      wake = null;
    });
  };

  const pump = async (): Promise<void> => {
    if (pumping) return;
    pumping = true;
    try {
      for (;;) {
        const seen = answers;
        const wait = await pass();
        if (wait === null) break;
        if (answers === seen) await sleepOrWake(wait);
      }
    } finally {
      pumping = false;
      // A waiter that came during the last pass and must wait needs a pump to sleep for it.
      if (queue.length > 0) void pump();
    }
  };

  return {
    async acquire(request) {
      limits = limitsOf[await options.dialect.current()] ?? null;
      return new Promise<CountedRequest>((resolve, reject) => {
        queue.push({ ...request, seq: ++seq, release: resolve, fail: reject });
        // A sleeping pump wakes for the earliest waiter it knew; one that may go now goes now.
        if (pumping) void pass();
        else void pump();
      });
    },
  };
}
