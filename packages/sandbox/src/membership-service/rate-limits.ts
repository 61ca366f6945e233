import type { Clock } from '../support/clock';
import type { RateLimits, RateWindow } from './dialect';
import type { SandboxResponse } from './http-kit';
import { errorEntry, json } from './http-kit';

/** Who a request counts against: its OAuth client, and one user's grant to that client. */
export interface RateKey {
  clientId: string;
  userId: string;
}

export interface RateLimiter {
  /** Counts the request, or answers the 429 it gets (then it is not counted). */
  admit(key: RateKey): SandboxResponse | null;
}

/** Times of the requests inside the window, oldest first. */
class SlidingWindow {
  private readonly times: number[] = [];

  constructor(private readonly window: RateWindow) {}

  /** Ms until one more request fits; 0 when it fits now. */
  waitMs(now: number): number {
    while (this.times.length > 0 && (this.times[0] ?? 0) <= now - this.window.windowMs) this.times.shift();
    if (this.times.length < this.window.requests) return 0;
    return (this.times[0] ?? now) + this.window.windowMs - now;
  }

  add(now: number): void {
    this.times.push(now);
  }
}

/**
 * Patreon's rate limits (docs/patreon-api-notes.md §6): requests are limited per client and per token, and
 * "refreshing a token will not reset the rate limits", so the token count is kept per user and
 * client. A refused request gets 429 with `Retry-After` (reported as sent now; docs/patreon-api-notes.md §6)
 * and the documented body with `retry_after_seconds` in its error (docs/patreon-api-notes.md §6).
 */
export function createRateLimiter(limits: RateLimits, clock: Clock): RateLimiter {
  const clients = new Map<string, SlidingWindow>();
  const grants = new Map<string, SlidingWindow>();
  const windowOf = (map: Map<string, SlidingWindow>, key: string, window: RateWindow): SlidingWindow => {
    let found = map.get(key);
    if (!found) {
      found = new SlidingWindow(window);
      map.set(key, found);
    }
    return found;
  };

  return {
    admit(key) {
      const now = clock.now().getTime();
      const client = windowOf(clients, key.clientId, limits.perClient);
      const grant = windowOf(grants, `${key.clientId}\u0000${key.userId}`, limits.perToken);
      const waitMs = Math.max(client.waitMs(now), grant.waitMs(now));
      if (waitMs > 0) {
        const seconds = Math.max(1, Math.ceil(waitMs / 1000));
        const entry = {
          ...errorEntry(429, 'You have made too many attempts. Please try again later.'),
          code: null,
          code_name: 'RequestThrottled',
          title: 'You have made too many attempts. Please try again later.',
          retry_after_seconds: seconds,
        };
        return json(429, { errors: [entry] }, { 'retry-after': String(seconds) });
      }
      client.add(now);
      grant.add(now);
      return null;
    },
  };
}
