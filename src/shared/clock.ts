/**
 * Time as a dependency. Everything that compares against "now" (grace periods, token expiry,
 * link-token lifetimes, back-off) takes a {@link Clock} so tests can move time instead of waiting.
 */
export interface Clock {
  now(): Date;
}

/**
 * Sleeps for `ms` milliseconds, or until `signal` aborts (then it resolves early). Injected next
 * to {@link Clock} wherever code waits (back-off, Retry-After, a request budget).
 */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** A source of uniform randomness in [0, 1), injected for jitter so tests can pin it. */
export type Random = () => number;

export const systemClock: Clock = { now: () => new Date() };

export const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, Math.max(0, ms));
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
