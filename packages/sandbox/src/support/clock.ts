/**
 * Time for the stand-ins and the demo. The sandbox is its own package and imports nothing of the
 * product, so it declares the one method it needs; the product's `Clock` has the same shape, which
 * lets the demo hand one clock to the service and to both stand-ins.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** A clock that only moves when told to (tests of the stand-ins). */
export interface ManualClock extends Clock {
  set(at: Date): void;
  advance(ms: number): void;
}

export function createManualClock(start: Date = new Date('2026-11-01T12:00:00Z')): ManualClock {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    set: (at) => {
      current = at.getTime();
    },
    advance: (ms) => {
      current += ms;
    },
  };
}

/**
 * Real time plus an offset that only grows. Timers, sockets, HTTP and discord.js keep running in
 * real time while everything that asks the clock sees days pass in an instant: the demo plays a
 * seven-day grace period this way, with the service and both stand-ins sharing one clock.
 */
export interface ShiftableClock extends Clock {
  /** Moves "now" forward by `ms` (a whole number of milliseconds, at least 0). */
  advance(ms: number): void;
  /** How far ahead of the underlying clock this one runs, in ms. */
  offsetMs(): number;
}

/** @param base the time to run ahead of; the system clock when absent (tests pass a manual one). */
export function createShiftableClock(base: Clock = systemClock): ShiftableClock {
  let offset = 0;
  return {
    now: () => new Date(base.now().getTime() + offset),
    advance: (ms) => {
      if (!Number.isSafeInteger(ms) || ms < 0)
        throw new RangeError(`a shiftable clock only moves forward by whole milliseconds (got ${ms})`);
      offset += ms;
    },
    offsetMs: () => offset,
  };
}
