import { isIPv4, isIPv6 } from 'node:net';

/**
 * Per-address request budgets for the public routes (`/link`, `/connect`, `/oauth/callback`, the
 * dashboard, unverified webhook deliveries): a fixed window per address, in memory, per instance.
 * Memory is bounded: at most `maxAddresses` windows are kept, plus one; when that many addresses
 * are inside their window at once, every further address shares that one window, so a flood from
 * many addresses costs the same memory as one from a few.
 */
export interface RateLimitRule {
  /** Requests (or, for {@link AddressLimiter.hit}, failures) allowed per window. */
  limit: number;
  windowMs: number;
}

export type Verdict = { ok: true } | { ok: false; retryAfterSeconds: number; /** The first refusal of this window. */ first: boolean };

export interface AddressLimiter {
  /** Counts one request of `address` and says whether it may go on. */
  take(address: string): Verdict;
  /** Whether `address` has used up its budget, without counting anything. */
  check(address: string): Verdict;
  /** Counts one (failed) request of `address` without refusing it: the next {@link check} refuses. */
  hit(address: string): void;
  /** Addresses being counted now (for tests and metrics). */
  readonly size: number;
}

const OVERFLOW = '*';

export function createAddressLimiter(rule: RateLimitRule, options: { now?: () => number; maxAddresses?: number } = {}): AddressLimiter {
  const now = options.now ?? Date.now;
  const maxAddresses = options.maxAddresses ?? 10_000;
  const windows = new Map<string, { start: number; count: number; refused: boolean }>();

  function windowOf(address: string) {
    const at = now();
    let key = addressKey(address);
    let w = windows.get(key);
    if (w && at - w.start >= rule.windowMs) {
      windows.delete(key);
      w = undefined;
    }
    if (!w) {
      if (windows.size >= maxAddresses) {
        for (const [k, v] of windows) if (at - v.start >= rule.windowMs) windows.delete(k);
      }
      if (windows.size >= maxAddresses) {
        key = OVERFLOW;
        w = windows.get(key);
        if (w && at - w.start >= rule.windowMs) w = undefined;
      }
      if (!w) {
        w = { start: at, count: 0, refused: false };
        windows.set(key, w);
      }
    }
    return { w, at };
  }

  function verdict(w: { start: number; count: number; refused: boolean }, at: number, extra: number): Verdict {
    if (w.count + extra <= rule.limit) return { ok: true };
    const first = !w.refused;
    w.refused = true;
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((w.start + rule.windowMs - at) / 1000)), first };
  }

  return {
    take(address) {
      const { w, at } = windowOf(address);
      w.count += 1;
      return verdict(w, at, 0);
    },
    check(address) {
      const { w, at } = windowOf(address);
      return verdict(w, at, 1);
    },
    hit(address) {
      windowOf(address).w.count += 1;
    },
    get size() {
      return windows.size;
    },
  };
}

/**
 * What an address is counted as: an IPv4 address itself (also when written IPv4-mapped, `::ffff:…`),
 * an IPv6 address by its /64, the block one subscriber usually holds.
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return address.slice(0, 64);
  const [head = '', tail = ''] = address.toLowerCase().split('::', 2);
  const left = head === '' ? [] : head.split(':');
  const right = address.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/**
 * Keeps a kind of log line to `perWindow` lines a window however many events there are: the line
 * that closes a silence says how many were left out (`suppressed`).
 */
export function createLogSampler(perWindow: number, windowMs: number, now: () => number = Date.now) {
  let start = Number.NEGATIVE_INFINITY;
  let logged = 0;
  let suppressed = 0;
  return {
    /** Null: do not log this one. Otherwise how many were left out since the last line logged. */
    take(): { suppressed: number } | null {
      const at = now();
      if (at - start >= windowMs) {
        start = at;
        logged = 0;
      }
      if (logged >= perWindow) {
        suppressed += 1;
        return null;
      }
      logged += 1;
      const out = { suppressed };
      suppressed = 0;
      return out;
    },
  };
}

/**
 * Requests whose own handler already logged what matters (sampled) or that a limit refused: the
 * access log (pino-http in app.ts) leaves them out, so a flood cannot grow the log.
 */
export function markQuiet(res: { locals: Record<string, unknown> }): void {
  res.locals.tierlinkQuiet = true;
}

export function isQuiet(res: { locals?: Record<string, unknown> }): boolean {
  return res.locals?.tierlinkQuiet === true;
}
