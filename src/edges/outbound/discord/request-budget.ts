/**
 * Discord's request budget: for each rate-limit bucket (and the global limit), how many requests
 * the current window has left, learned from the response headers and spent before each request
 * is sent, so that no request is sent into an exhausted bucket (docs/tech-facts.md §1–2,
 * docs/discord-api-notes.md §6, docs/decisions.md §19).
 *
 * The rule is here, once, as pure functions over a {@link BudgetRow}; a {@link BudgetStore} keeps
 * the rows: in memory for one process (PGlite), in PostgreSQL for every instance of an
 * installation (src/edges/outbound/store/discord-budget-store.ts), which then share one budget.
 */

/** Interactive work (a link, a webhook, a rejoin, a grace check) goes ahead of bulk work (a full sync, a guild-wide apply). */
export type Lane = 'interactive' | 'bulk';

/** A bucket's state, in the store's time (ms). */
export interface BudgetRow {
  /** Requests per window: `X-RateLimit-Limit`; 1 until a response said. */
  limit: number;
  /**
   * The window's length: the `X-RateLimit-Reset-After` of the latest answer to a window's first
   * request (it carries the whole window), or the largest one seen since.
   */
  windowMs: number;
  /** When the current window ends. */
  windowEnd: number;
  /** Requests counted in the current window: ours (sent or granted), or what Discord said, whichever is more. */
  used: number;
  /** False while the bucket is unknown: one request (the probe) at a time until its answer comes. */
  learned: boolean;
  /**
   * When the request whose answer the row follows was sent (0: none yet). Answers arrive in any
   * order; Discord counted them in the order they were sent, so the row follows the answer of the
   * request sent last, and an answer of a request sent earlier only adds to the same window's count.
   */
  seenSentAt: number;
}

/** What one response said about its bucket. */
export interface SeenLimit {
  limit: number;
  remaining: number;
  resetAfterMs: number;
  /** How long before its answer was read the request left (its place in Discord's order); 0 when unknown. */
  ageMs?: number;
  /**
   * Requests of the bucket sent after this one whose answers were not in yet: Discord counts them
   * in this window or a later one, so the count this answer says is at least this much more.
   */
  inFlightAfter?: number;
}

/**
 * A bucket whose size is known without asking: the global limit (50 requests per second;
 * docs/tech-facts.md §1). `sliding`: at most `limit` in any `windowMs` (one process keeps the
 * times); `windows`: at most `limit` in each window of ours (a shared store keeps a count).
 */
export interface KnownLimit {
  limit: number;
  windowMs: number;
  counting: 'sliding' | 'windows';
  /**
   * For a limit counted in shared windows: how one process counts it while it runs alone on the
   * shared store (Discord's whole 50 a second, see {@link SOLO_CLAIM_MS}).
   */
  alone?: KnownLimit;
}

export interface TakeResult {
  /** Requests granted (0: none now). */
  granted: number;
  /** A sliding count's place of the granted request, to hand back to {@link BudgetStore.answered}. */
  at?: number;
  /** When nothing was granted: how long to wait before asking again. */
  waitMs: number;
  /** How long the granted requests stay valid (the rest of the window). */
  windowLeftMs: number;
}

/**
 * Added to every window's end: a response is read after Discord wrote its `Reset-After`, so the
 * window Discord counts ends before ours (as @discordjs/rest's own `offset`; docs/tech-facts.md §2).
 */
export const WINDOW_MARGIN_MS = 50;
/**
 * The global limit's window as Tierlink counts it. Discord sends no headers for the global limit,
 * so its windows can be neither learned nor aligned with ours: requests counted at the end of one
 * of our windows can reach Discord in the same second as the next window's. Short windows bound
 * that: 150 ms (200 ms with the margin), and any second of Discord's, even when requests reach it up
 * to {@link GLOBAL_JITTER_MS} after they were counted, overlaps at most 7 of them
 * (docs/decisions.md §19).
 */
export const GLOBAL_WINDOW_MS = 150;
/** How much later than its count a request may reach Discord (a database round trip, a busy event loop, the network). */
export const GLOBAL_JITTER_MS = 200;
/**
 * What one process adds to Discord's second when it counts the global limit itself: its requests
 * are counted until their answers (the latest Discord can have counted them), so no delay between
 * a count and Discord matters; this covers only the grain of the two clocks.
 */
export const LOCAL_MARGIN_MS = 10;

/**
 * Discord's global limit (`perSecond`, 50) as Tierlink counts it (docs/decisions.md §19).
 *
 * - One process (`shared` false) sends at most 50 in any 1,010 ms, each request counted from its
 *   answer (until then, as still on its way): no 51 requests can reach Discord within one second,
 *   however late a busy process sends some of them, and the bulk lane runs at Discord's 50 a second
 *   less a round trip per 50.
 * - Instances sharing a store count it in windows of {@link GLOBAL_WINDOW_MS}: 7 requests per
 *   200 ms, 35 a second, so that no second of Discord's sees more than 49 of them, even up to
 *   {@link GLOBAL_JITTER_MS} late.
 */
export function globalBudgetOf(perSecond: number, shared: boolean): KnownLimit {
  const alone: KnownLimit = { limit: Math.max(1, perSecond), windowMs: 1_000 + LOCAL_MARGIN_MS, counting: 'sliding' };
  if (!shared) return alone;
  const windows = Math.ceil((1_000 + GLOBAL_JITTER_MS) / (GLOBAL_WINDOW_MS + WINDOW_MARGIN_MS)) + 1;
  return { limit: Math.max(1, Math.floor(perSecond / windows)), windowMs: GLOBAL_WINDOW_MS, counting: 'windows', alone };
}

/**
 * How long a claim to count the global limit alone waits before it holds (the shared store's
 * `discord_global_holder`): longer than a shared window and its jitter plus a second, so that no
 * second of Discord's sees both a request another process counted in the shared windows before the
 * claim and one the holder counts alone; any process that counts in the shared windows during the
 * wait makes the claim fail.
 */
export const SOLO_CLAIM_MS = 1_500;
/** How long a hold lasts unless renewed (every {@link SOLO_RENEW_MS}). */
export const SOLO_HOLD_MS = 2_000;
export const SOLO_RENEW_MS = 700;
/**
 * How long after a hold's end another process waits before it counts the global limit in the
 * shared windows: the holder's last requests, counted before the end, reach Discord within
 * {@link GLOBAL_JITTER_MS}, and one second later no second of Discord's holds them.
 */
export const SOLO_HANDOFF_MS = 1_000 + LOCAL_MARGIN_MS + GLOBAL_JITTER_MS;
/** How often a process that does not hold the global limit tries to claim it (only one running alone succeeds). */
export const SOLO_RETRY_MS = 10_000;
/** An unknown bucket: its probe's answer is awaited this long at most before another probe. */
export const PROBE_MS = 5_000;
/** How often a caller looks again while another process's probe is out. */
export const PROBE_POLL_MS = 100;
/** A bucket that answered without rate-limit headers: limited by the global limit only. */
export const UNLIMITED = 1_000_000;
/** Rows idle this long are forgotten. */
export const IDLE_MS = 60 * 60_000;

/**
 * The share of every window kept for the interactive lane: 3 of the member-role bucket's 10. A
 * link needs one request, a tier change two (add the new role, remove the old), so a link and a
 * tier change in the same window are served from it at once.
 */
export function reserveOf(limit: number): number {
  return limit <= 1 ? 0 : Math.min(limit - 1, Math.ceil(limit * 0.3));
}

/**
 * How close to its window's end the reserve is released to the bulk lane (10 % of the window, at
 * most a second): a window without interactive work is still spent whole, and an interactive
 * change that finds the bucket spent waits at most this long for the next window.
 */
export function releaseOf(windowMs: number): number {
  return Math.min(1_000, windowMs * 0.1);
}

/**
 * How many requests one take may grant at most: several save a store round trip each.
 *
 * - A learned bucket: a tenth of it (one for Discord's member-role bucket of 10), so that a bucket
 *   that shrinks takes back little of what was granted.
 * - A known limit counted in windows (the global limit shared by instances, 7 per 200 ms): half a
 *   window. Every request of the process passes it, one store round trip each before this, in
 *   series with the request on its bucket's line; what a take grants and the process does not
 *   send lapses with the window, a fifth of a second at most.
 */
export function leaseOf(limit: number, known?: KnownLimit): number {
  if (known?.counting === 'windows') return Math.max(1, Math.min(100, Math.ceil(limit / 2)));
  return Math.max(1, Math.min(100, Math.floor(limit * 0.1)));
}

function opened(row: BudgetRow, now: number): BudgetRow {
  return { ...row, used: 0, windowEnd: now + row.windowMs + WINDOW_MARGIN_MS };
}

/**
 * Takes up to `want` requests from a bucket for `lane`: the rule of the budget.
 *
 * - A bucket nobody knows grants one request (the probe) and waits for its answer.
 * - An ended window opens a new one.
 * - The interactive lane may spend the whole window; the bulk lane all but the {@link reserveOf}
 *   reserve, and the reserve too once the window is within {@link releaseOf} of its end.
 */
export function takeFrom(
  current: BudgetRow | undefined,
  lane: Lane,
  want: number,
  now: number,
  known?: KnownLimit,
): { row: BudgetRow; result: TakeResult } {
  let row: BudgetRow;
  if (known) {
    const base = current ?? { limit: known.limit, windowMs: known.windowMs, windowEnd: 0, used: 0, learned: true, seenSentAt: 0 };
    row = { ...base, limit: known.limit, windowMs: known.windowMs, learned: true };
  } else {
    row = current ?? { limit: 1, windowMs: PROBE_MS, windowEnd: 0, used: 0, learned: false, seenSentAt: 0 };
  }
  if (now >= row.windowEnd) row = row.learned ? opened(row, now) : { ...row, used: 0, windowEnd: now + PROBE_MS };
  const left = row.windowEnd - now;
  const release = releaseOf(row.windowMs);
  const cap = row.limit - (lane === 'bulk' && left > release ? reserveOf(row.limit) : 0);
  const granted = Math.max(0, Math.min(want, leaseOf(row.limit, known), cap - row.used));
  if (granted > 0) return { row: { ...row, used: row.used + granted }, result: { granted, waitMs: 0, windowLeftMs: left } };
  const waitMs = !row.learned ? Math.min(left, PROBE_POLL_MS) : lane === 'bulk' && row.used < row.limit ? left - release : left;
  return { row, result: { granted: 0, waitMs: Math.max(1, Math.ceil(waitMs)), windowLeftMs: left } };
}

/**
 * What a response says, merged into the row: the bucket follows Discord's latest answer, in both
 * directions (docs/discord-api-notes.md §6: limits change, and are read from the headers, never
 * remembered).
 *
 * - The answer of the request sent last (`ageMs`) is Discord's state now: its limit, its window's
 *   end (sooner or later than ours) and its count, plus the requests sent after it
 *   (`inFlightAfter`). While it is the same window as ours (the same limit, an end within the
 *   tolerance), what we counted stays when it is more (requests granted and not sent yet, another
 *   instance's).
 * - The answer of a request sent before it only adds to the count of the same window; of another
 *   window, it says nothing about now.
 * - The window's length is the `Reset-After` of a window's first request (remaining one less than
 *   the limit), which carries the whole window; otherwise at least what the answer says is left.
 *
 * `seen` null: the response carried no rate-limit headers, so an unknown bucket is limited by the
 * global limit only.
 */
export function learnInto(current: BudgetRow | undefined, seen: SeenLimit | null, now: number): BudgetRow | undefined {
  if (!seen) {
    if (current?.learned) return current;
    return { limit: UNLIMITED, windowMs: 1_000, windowEnd: now, used: 0, learned: true, seenSentAt: 0 };
  }
  const sentAt = now - Math.max(0, seen.ageMs ?? 0);
  const end = now + seen.resetAfterMs + WINDOW_MARGIN_MS;
  const said = Math.max(0, seen.limit - seen.remaining) + Math.max(0, seen.inFlightAfter ?? 0);
  const resetAfter = Math.max(1, Math.ceil(seen.resetAfterMs));
  const opening = seen.remaining >= seen.limit - 1;
  if (!current || !current.learned) {
    return { limit: seen.limit, windowMs: resetAfter, windowEnd: end, used: said, learned: true, seenSentAt: sentAt };
  }
  const tolerance = Math.min(1_000, current.windowMs / 4);
  const sameWindow = now < current.windowEnd && Math.abs(end - current.windowEnd) <= tolerance && seen.limit === current.limit;
  if (sentAt < current.seenSentAt) {
    return sameWindow && said > current.used ? { ...current, used: said } : current;
  }
  return {
    limit: seen.limit,
    // Only a window's first answer may shorten it: a window counted too short lets a burst in too early.
    windowMs: opening ? resetAfter : Math.max(current.windowMs, resetAfter),
    windowEnd: sameWindow ? Math.max(current.windowEnd, end) : end,
    used: sameWindow ? Math.max(current.used, said) : said,
    learned: true,
    seenSentAt: sentAt,
  };
}

/** The index of the first of the sorted `times` later than `t` (binary search): where `t` goes, after its equals. */
export function placeAfter(times: readonly number[], t: number): number {
  let low = 0;
  let high = times.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (times[mid]! <= t) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Until its answer, a request of a sliding count is counted as if it were answered this long after it was granted. */
export const IN_FLIGHT_MS = 30_000;

/**
 * Takes up to `want` requests from a limit counted as a sliding log (`known.counting` `sliding`):
 * at most `known.limit` requests in any `known.windowMs`. `times`: where the requests of the last
 * window are counted, oldest first: a request from its answer, or {@link IN_FLIGHT_MS} after its
 * grant until then. No share is kept for a lane here: one process orders its own waiting
 * requests, interactive first (src/edges/outbound/discord/request-scheduler.ts).
 */
export function takeFromLog(
  times: readonly number[],
  want: number,
  now: number,
  known: KnownLimit,
): { times: number[]; result: TakeResult } {
  // `times` is sorted: what left the window is a prefix, and a new time goes where it sorts. A full
  // sort per request cost a raised global limit (a log of thousands) ~30 KB of garbage a request.
  const kept = times.slice(placeAfter(times, now - known.windowMs));
  const granted = Math.max(0, Math.min(want, known.limit - kept.length));
  const at = now + IN_FLIGHT_MS;
  if (granted > 0) {
    placeInLog(kept, granted, at);
    return { times: kept, result: { granted, at, waitMs: 0, windowLeftMs: known.windowMs } };
  }
  // The request that must leave the window before one more fits.
  const leaves = kept[kept.length - known.limit]! + known.windowMs;
  return { times: kept, result: { granted: 0, waitMs: Math.max(1, Math.ceil(leaves - now)), windowLeftMs: 0 } };
}

/**
 * A request of a sliding log (placed at `at`) was answered: its place moves back to `now` (never
 * forward), where it sorts. False when no request holds `at`.
 */
export function answeredInLog(times: number[], at: number, now: number): boolean {
  const index = times.indexOf(at);
  if (index < 0) return false;
  const moved = Math.min(at, now);
  times.splice(index, 1);
  times.splice(placeAfter(times, moved), 0, moved);
  return true;
}

/** `count` requests placed in a sliding log at `at`, where they sort. */
export function placeInLog(times: number[], count: number, at: number): void {
  if (count > 0) times.splice(placeAfter(times, at), 0, ...Array<number>(count).fill(at));
}

/** A 429 on a sliding log: every place is taken until the Retry-After ends. */
export function blockedLog(times: number[], known: KnownLimit, retryAfterMs: number, now: number): void {
  placeInLog(times, known.limit, now + retryAfterMs + WINDOW_MARGIN_MS - known.windowMs);
}

/** A 429: the bucket is spent until `retryAfterMs` from now, whatever we counted. */
export function blockedInto(current: BudgetRow | undefined, retryAfterMs: number, now: number): BudgetRow {
  const row = current ?? { limit: 1, windowMs: PROBE_MS, windowEnd: 0, used: 0, learned: false, seenSentAt: 0 };
  return { ...row, used: row.limit, windowEnd: Math.max(row.windowEnd, now + retryAfterMs + WINDOW_MARGIN_MS) };
}

/** Where the rows live: one process's memory, or PostgreSQL for every instance. */
export interface BudgetStore {
  take(key: string, lane: Lane, want: number, known?: KnownLimit): Promise<TakeResult>;
  /**
   * A request of a sliding count (granted with `at`) was answered: its place in the count moves
   * back from {@link IN_FLIGHT_MS} ahead to now. Discord counted it when it arrived, at the latest
   * now; counted from there, a request never leaves our count before it leaves Discord's, however
   * late a busy process sent it.
   */
  answered?(key: string, at: number): Promise<void>;
  learn(key: string, seen: SeenLimit | null): Promise<void>;
  blocked(key: string, retryAfterMs: number): Promise<void>;
  /** Forgets rows idle for {@link IDLE_MS}. */
  prune(): Promise<void>;
  /** At shutdown: gives up what the process holds (the global limit counted alone), so others need not wait for it to lapse. */
  close?(): Promise<void>;
  /** Whether several processes share it (then a take may grant several requests at once). */
  readonly shared: boolean;
}

/**
 * The store of one process (the embedded database runs one process). `now`: a monotonic clock in
 * ms. A known limit counted as a sliding log keeps its request times here. `rows`: where the
 * buckets are kept, when the caller reads or fills them (the shared store's holder of the global
 * limit counts its buckets here while it runs alone, src/edges/outbound/store/discord-budget-store.ts).
 */
export function createMemoryBudgetStore(now: () => number, rows = new Map<string, BudgetRow>()): BudgetStore {
  const logs = new Map<string, { times: number[]; windowMs: number; limit: number }>();
  return {
    shared: false,
    async take(key, lane, want, known) {
      if (known?.counting === 'sliding') {
        const { times, result } = takeFromLog(logs.get(key)?.times ?? [], want, now(), known);
        logs.set(key, { times, windowMs: known.windowMs, limit: known.limit });
        return result;
      }
      const { row, result } = takeFrom(rows.get(key), lane, want, now(), known);
      rows.set(key, row);
      return result;
    },
    async learn(key, seen) {
      const row = learnInto(rows.get(key), seen, now());
      if (row) rows.set(key, row);
    },
    async answered(key, at) {
      const log = logs.get(key);
      if (log) answeredInLog(log.times, at, now());
    },
    async blocked(key, retryAfterMs) {
      const log = logs.get(key);
      if (log) {
        blockedLog(log.times, { limit: log.limit, windowMs: log.windowMs, counting: 'sliding' }, retryAfterMs, now());
        return;
      }
      rows.set(key, blockedInto(rows.get(key), retryAfterMs, now()));
    },
    async prune() {
      const before = now() - IDLE_MS;
      for (const [key, row] of rows) if (row.windowEnd < before) rows.delete(key);
      for (const [key, log] of logs) if ((log.times.at(-1) ?? 0) < now() - log.windowMs) logs.delete(key);
    },
  };
}

const SNOWFLAKE = /^\d{17,20}$/;

/**
 * The budget key of a request, or null for one Discord does not limit for us: interaction
 * callbacks and interaction webhooks are bound to neither the global limit nor our buckets
 * (docs/discord-api-notes.md §3).
 *
 * A bucket is a route's limit per major parameter (the guild, channel or webhook of the path;
 * docs/discord-api-notes.md §6): `GET /guilds/:id/members/:id` of guild 1 is `GET
 * /guilds/1/members/:id`. A member's role `PUT` and `DELETE` are one key per guild,
 * `member-role:<guild>`: Discord may count them in one bucket, and counting them together can
 * only be slower, never over the limit.
 */
export function budgetKeyOf(method: string, path: string): string | null {
  const parts = path.split('?')[0]!.split('/');
  if (parts[1] === 'interactions' || parts[1] === 'webhooks') return null;
  if (parts.length === 7 && parts[1] === 'guilds' && parts[3] === 'members' && parts[5] === 'roles') {
    return `member-role:${parts[2]}`;
  }
  const major = parts[1] === 'guilds' || parts[1] === 'channels' ? 2 : -1;
  const route = parts.map((p, i) => (i !== major && SNOWFLAKE.test(p) ? ':id' : p)).join('/');
  return `${method.toUpperCase()} ${route}`;
}

/** The key of Discord's global limit. */
export const GLOBAL_KEY = 'global';
