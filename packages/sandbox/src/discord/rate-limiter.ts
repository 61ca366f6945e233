import { createHash } from 'node:crypto';
import type { RateLimitRoute, RateLimitSetting } from './types';

export interface Window {
  limit: number;
  windowMs: number;
}

/**
 * Routes whose limit Discord does not publish and nobody reported: a wide bucket, so only the
 * global limit holds them (docs/tech-facts.md §1).
 */
export const DEFAULT_ROUTE_WINDOW: Window = { limit: 10_000, windowMs: 1_000 };
/** "All bots can make up to 50 requests per second" (Discord's docs, Rate Limits; docs/tech-facts.md §1). */
export const DEFAULT_GLOBAL_WINDOW: Window = { limit: 50, windowMs: 1_000 };

/**
 * Discord's own figures, the stand-in's defaults: the global 50 requests/s, the member-role
 * bucket's reported `x-ratelimit-limit: 10` with a fixed window (10 s, the figure Tierlink's issues
 * use; Discord does not publish it), and messages at 5 per 5 s per channel (docs/discord-api-notes.md
 * §6, §9). A test or benchmark that raises any of them names why ({@link RaisedLimits}).
 */
export const DISCORD_RATE_LIMITS: { global: Window; routes: Partial<Record<RateLimitRoute, Window>> } = Object.freeze({
  global: DEFAULT_GLOBAL_WINDOW,
  routes: Object.freeze({ 'member-role': { limit: 10, windowMs: 10_000 }, 'channel-messages': { limit: 5, windowMs: 5_000 } }),
});

/**
 * Why a stand-in's limits are above the real service's (a test whose claim is not about them, a
 * benchmark of Tierlink alone): required whenever they are, so that every raise says so by name.
 */
export type RaisedLimits = string;

/** A window more generous than `real` in any way: a larger burst, or a shorter wait for the next. */
function raises(window: Window, real: Window | undefined): boolean {
  return real !== undefined && (window.limit > real.limit || window.windowMs < real.windowMs);
}

function realWindowOf(route: RateLimitRoute | 'global'): Window | undefined {
  return route === 'global' ? DISCORD_RATE_LIMITS.global : DISCORD_RATE_LIMITS.routes[route];
}

/** Refuses a limit above Discord's real one unless a reason is given. */
function checkRaise(route: RateLimitRoute | 'global', window: Window, raised: RaisedLimits | undefined): void {
  if (!raises(window, realWindowOf(route)) || (raised !== undefined && raised.trim().length > 0)) return;
  const real = realWindowOf(route)!;
  throw new RangeError(
    `the Discord stand-in keeps Discord's real limits (${route}: ${real.limit} per ${real.windowMs} ms); ` +
      `${window.limit} per ${window.windowMs} ms raises them: say why (raisedLimits / raised)`,
  );
}

export type RateLimitVerdict =
  { ok: true; headers: Record<string, string> } | { ok: false; retryAfterMs: number; headers: Record<string, string> };

interface Counter {
  count: number;
  resetAt: number;
}

/**
 * Fixed windows that open on the first request after the previous one closed, per bucket, major
 * parameter and caller, plus one global window per caller. This matches how @discordjs/rest paces
 * itself (a window opens on its first request), so a well-behaved client never trips the global limit.
 * The caller is the token ("Individuals are determined using a request's authentication", docs
 * Discord's docs, Rate Limits): every process using the bot token draws on the same windows.
 */
export class RateLimiter {
  private readonly routes = new Map<RateLimitRoute, Window>(Object.entries(DISCORD_RATE_LIMITS.routes) as Array<[RateLimitRoute, Window]>);
  private global: Window;
  private readonly counters = new Map<string, Counter>();
  private readonly globalCounters = new Map<string, Counter>();

  /** `raised`: why `settings` go above Discord's real limits, when they do (then also the reason of later {@link set}s). */
  constructor(
    private readonly nowMs: () => number,
    settings: { global?: Window; routes?: Partial<Record<RateLimitRoute, Window>> } = {},
    private readonly raised?: RaisedLimits,
  ) {
    this.global = settings.global ?? DEFAULT_GLOBAL_WINDOW;
    checkRaise('global', this.global, raised);
    for (const [route, window] of Object.entries(settings.routes ?? {})) {
      if (!window) continue;
      checkRaise(route as RateLimitRoute, window, raised);
      this.routes.set(route as RateLimitRoute, window);
    }
  }

  /**
   * Changes a bucket's limit and window now, as Discord does: its windows open afresh from the
   * next request. Above Discord's real limit it needs a reason (`setting.raised`, or the stand-in's).
   */
  set(setting: RateLimitSetting): void {
    if (!(setting.limit >= 1) || !(setting.windowMs > 0)) throw new RangeError('rate limit needs limit >= 1 and windowMs > 0');
    const window = { limit: setting.limit, windowMs: setting.windowMs };
    checkRaise(setting.route, window, setting.raised ?? this.raised);
    if (setting.route === 'global') {
      this.global = window;
      this.globalCounters.clear();
    } else {
      this.routes.set(setting.route, window);
      for (const key of [...this.counters.keys()]) if (key.startsWith(`${setting.route}:`)) this.counters.delete(key);
    }
  }

  /** Takes one request from the caller's global window; the verdict carries the 429 headers when refused. */
  takeGlobal(caller: string): RateLimitVerdict {
    const now = this.nowMs();
    let counter = this.globalCounters.get(caller);
    if (!counter) {
      counter = { count: 0, resetAt: 0 };
      this.globalCounters.set(caller, counter);
    }
    if (now >= counter.resetAt) {
      counter.count = 0;
      counter.resetAt = now + this.global.windowMs;
    }
    if (counter.count >= this.global.limit) {
      const retryAfterMs = counter.resetAt - now;
      return {
        ok: false,
        retryAfterMs,
        headers: { 'X-RateLimit-Global': 'true', 'X-RateLimit-Scope': 'global', 'Retry-After': retryAfterHeader(retryAfterMs) },
      };
    }
    counter.count += 1;
    return { ok: true, headers: {} };
  }

  /** Takes one request from a route bucket; headers as Discord sends them on every bucketed answer. */
  take(route: RateLimitRoute, major: string, caller: string): RateLimitVerdict {
    const window = this.routes.get(route) ?? DEFAULT_ROUTE_WINDOW;
    const key = `${route}:${major}:${caller}`;
    const now = this.nowMs();
    let counter = this.counters.get(key);
    if (!counter || now >= counter.resetAt) {
      counter = { count: 0, resetAt: now + window.windowMs };
      this.counters.set(key, counter);
    }
    const limited = counter.count >= window.limit;
    if (!limited) counter.count += 1;
    const headers: Record<string, string> = {
      'X-RateLimit-Limit': String(window.limit),
      'X-RateLimit-Remaining': String(window.limit - counter.count),
      'X-RateLimit-Reset': (counter.resetAt / 1000).toFixed(3),
      'X-RateLimit-Reset-After': ((counter.resetAt - now) / 1000).toFixed(3),
      'X-RateLimit-Bucket': bucketHash(route),
    };
    if (!limited) return { ok: true, headers };
    const retryAfterMs = counter.resetAt - now;
    return {
      ok: false,
      retryAfterMs,
      headers: { ...headers, 'X-RateLimit-Scope': 'user', 'Retry-After': retryAfterHeader(retryAfterMs) },
    };
  }
}

/**
 * Discord's `Retry-After` header is whole seconds rounded up, while the body's `retry_after` keeps the
 * decimals (Discord's docs, Rate Limits, example; docs/tech-facts.md §1). @discordjs/rest reads only the header (docs/tech-facts.md §2).
 */
export function retryAfterHeader(ms: number): string {
  return String(Math.max(1, Math.ceil(ms / 1000)));
}

export function bucketHash(route: string): string {
  return createHash('md5').update(`tierlink-sandbox:${route}`).digest('hex');
}
