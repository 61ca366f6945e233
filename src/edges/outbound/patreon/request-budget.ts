import { createHash } from 'node:crypto';
import type { Clock, Sleep } from '../../../shared/clock';
import type { DialectMemory, ServiceDialect } from './dialect';

/**
 * `interactive`: someone waits for it (a webhook re-read, a command, `/link`). `bulk`: the full
 * sync's pages. Interactive requests go first and have a share of every window kept for them.
 */
export type RequestPriority = 'interactive' | 'bulk';

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
 * The limits each dialect's service has: Patreon's published ones; the spec states no quota
 * (Limits: "not shown"), so nothing is paced there and only 429 and `Retry-After` slow us down.
 */
export const DEFAULT_BUDGET_LIMITS: Readonly<Record<ServiceDialect, BudgetLimits | null>> = Object.freeze({
  patreon: PATREON_PUBLISHED_LIMITS,
  spec: null,
});

export interface RequestBudget {
  /** Waits until a request with this token (null: no token, e.g. the token endpoint) may go, then counts it. */
  acquire(request: { tokenKey: string | null; priority: RequestPriority }): Promise<void>;
}

export interface RequestBudgetOptions {
  clock: Clock;
  sleep: Sleep;
  /** The service's dialect decides its limits (see {@link DEFAULT_BUDGET_LIMITS}). */
  dialect: Pick<DialectMemory, 'current'>;
  /** Limits per dialect; `null` for a dialect: not paced. */
  limits?: Partial<Record<ServiceDialect, BudgetLimits | null>>;
}

/** A stable key for a bearer token that does not keep the token itself. */
export function tokenKeyOf(accessToken: string): string {
  return `token:${createHash('sha256').update(accessToken).digest('base64url').slice(0, 22)}`;
}

interface Waiter {
  tokenKey: string | null;
  priority: RequestPriority;
  seq: number;
  release: () => void;
}

const CLIENT = '\u0000client';

/**
 * One budget per OAuth client, shared by every caller in the process (the sync, webhook re-reads,
 * commands): pacing is proactive, from the published limits, so no 429 is provoked; a 429 that
 * comes anyway (another process, changed limits) makes its request wait as `Retry-After` says
 * (`http.ts`), and that wait counts in no window. Waiting requests go in order:
 * interactive ones first, then by arrival; bulk ones may not use the interactive reserve, so a
 * webhook re-read never waits behind a sync's burst. Windows are sliding logs of request times,
 * dropped once empty (their number is bounded by the tokens used within a window).
 */
export function createRequestBudget(options: RequestBudgetOptions): RequestBudget {
  const { clock } = options;
  const limitsOf = { ...DEFAULT_BUDGET_LIMITS, ...options.limits };
  const logs = new Map<string, number[]>();
  const queue: Waiter[] = [];
  let seq = 0;
  let pumping = false;
  let limits: BudgetLimits | null = null;

  const used = (key: string, window: RateWindow, now: number): number[] => {
    const log = logs.get(key);
    if (!log) return [];
    while (log.length > 0 && (log[0] ?? 0) <= now - window.windowMs) log.shift();
    if (log.length === 0) logs.delete(key);
    return log;
  };

  /** Ms until this waiter may go under one window (0: now). */
  const waitIn = (key: string, window: RateWindow | null, priority: RequestPriority, reserve: number, now: number): number => {
    if (!window) return 0;
    const log = used(key, window, now);
    const allowed = priority === 'interactive' ? window.requests : Math.max(1, window.requests - reserve);
    if (log.length < allowed) return 0;
    // The request that must leave the window before one more fits.
    return (log[log.length - allowed] ?? now) + window.windowMs - now;
  };

  const waitFor = (w: Waiter, now: number): number => {
    if (!limits) return 0;
    const reserve = limits.interactiveReserve;
    return Math.max(
      waitIn(CLIENT, limits.perClient, w.priority, reserve, now),
      w.tokenKey ? waitIn(w.tokenKey, limits.perToken, w.priority, reserve, now) : 0,
    );
  };

  const record = (w: Waiter, now: number): void => {
    for (const key of w.tokenKey ? [CLIENT, w.tokenKey] : [CLIENT]) {
      const log = logs.get(key);
      if (log) log.push(now);
      else logs.set(key, [now]);
    }
  };

  /** Releases every waiter that may go now, interactive first; answers the least wait of the others. */
  const releaseReady = (): number | null => {
    queue.sort((a, b) => (a.priority === b.priority ? a.seq - b.seq : a.priority === 'interactive' ? -1 : 1));
    let least: number | null = null;
    for (let i = 0; i < queue.length;) {
      const w = queue[i] as Waiter;
      const now = clock.now().getTime();
      const wait = waitFor(w, now);
      if (wait === 0) {
        record(w, now);
        queue.splice(i, 1);
        w.release();
        continue;
      }
      least = least === null ? wait : Math.min(least, wait);
      i += 1;
    }
    return least;
  };

  const pump = async (): Promise<void> => {
    if (pumping) return;
    pumping = true;
    try {
      for (let wait = releaseReady(); wait !== null; wait = releaseReady()) await options.sleep(wait);
    } finally {
      pumping = false;
    }
  };

  return {
    async acquire(request) {
      limits = limitsOf[await options.dialect.current()] ?? null;
      await new Promise<void>((resolve) => {
        queue.push({ ...request, seq: ++seq, release: resolve });
        // A sleeping pump wakes for the earliest waiter it knew; one that may go now goes now.
        if (pumping) releaseReady();
        else void pump();
      });
    },
  };
}
