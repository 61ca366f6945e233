/**
 * Time as a dependency. Everything that compares against "now" (grace periods, token expiry,
 * link-token lifetimes, back-off) takes a {@link Clock} so tests can move time instead of waiting.
 */
export interface Clock {
  now(): Date;
}

/** Sleeps for `ms` milliseconds. Injected next to {@link Clock} wherever code waits (back-off, Retry-After). */
export type Sleep = (ms: number) => Promise<void>;

/** A source of uniform randomness in [0, 1), injected for jitter so tests can pin it. */
export type Random = () => number;

export const systemClock: Clock = { now: () => new Date() };

export const realSleep: Sleep = (ms) =>
  new Promise((resolve) => {
    setTimeout(resolve, Math.max(0, ms));
  });

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
