import {
  type BudgetRow,
  GLOBAL_JITTER_MS,
  PROBE_MS,
  UNLIMITED,
  WINDOW_MARGIN_MS,
  blockedInto,
  budgetKeyOf,
  globalBudgetOf,
  learnInto,
  releaseOf,
  reserveOf,
  takeFrom,
} from '../../../../src/edges/outbound/discord/request-budget';

/** The member-role bucket as Discord reports it: 10 per window (docs/discord-api-notes.md §6), here of 10 s. */
const bucket = (over: Partial<BudgetRow> = {}): BudgetRow => ({
  limit: 10,
  windowMs: 10_000,
  windowEnd: 10_000 + WINDOW_MARGIN_MS,
  used: 0,
  learned: true,
  ...over,
});

/** Takes one request at `now` until refused; the grants and the refusal. */
function drain(row: BudgetRow, lane: 'interactive' | 'bulk', now: number) {
  let current = row;
  let granted = 0;
  for (;;) {
    const { row: next, result } = takeFrom(current, lane, 1, now);
    current = next;
    if (result.granted === 0) return { row: current, granted, waitMs: result.waitMs };
    granted += result.granted;
  }
}

test('the reserve is 30 % of a window (3 of 10), never the whole bucket; it is released in the last 10 % (at most 1 s)', () => {
  expect([1, 2, 3, 10, 50].map(reserveOf)).toEqual([0, 1, 1, 3, 15]);
  expect([1_000, 10_000, 60_000].map(releaseOf)).toEqual([100, 1_000, 1_000]);
});

test('bulk work takes 7 of 10 and then waits for the release; interactive work takes the other 3 at once', () => {
  const bulk = drain(bucket(), 'bulk', 0);
  expect(bulk.granted).toBe(7);
  expect(bulk.waitMs).toBe(10_000 + WINDOW_MARGIN_MS - 1_000);
  const interactive = drain(bulk.row, 'interactive', 5);
  expect(interactive.granted).toBe(3);
  // Spent: the next window.
  expect(interactive.waitMs).toBe(10_000 + WINDOW_MARGIN_MS - 5);
});

test('in the last second of a window the bulk lane may spend the reserve too', () => {
  const bulk = drain(bucket(), 'bulk', 0);
  const late = drain(bulk.row, 'bulk', 9_100);
  expect(late.granted).toBe(3);
});

test('an ended window opens a new one on the next take, one margin longer than the window', () => {
  const spent = bucket({ used: 10 });
  const { row, result } = takeFrom(spent, 'bulk', 1, 20_000);
  expect(result.granted).toBe(1);
  expect(row).toMatchObject({ used: 1, windowEnd: 20_000 + 10_000 + WINDOW_MARGIN_MS });
});

test('an unknown bucket lets one request probe it, then waits (polling) for the answer; the answer teaches it', () => {
  const first = takeFrom(undefined, 'bulk', 5, 0);
  expect(first.result.granted).toBe(1);
  expect(first.row).toMatchObject({ learned: false, limit: 1, windowEnd: PROBE_MS });
  const second = takeFrom(first.row, 'interactive', 1, 10);
  expect(second.result.granted).toBe(0);
  expect(second.result.waitMs).toBeLessThanOrEqual(100);
  const learned = learnInto(second.row, { limit: 10, remaining: 9, resetAfterMs: 9_990 }, 20)!;
  expect(learned).toEqual({ limit: 10, windowMs: 9_990, windowEnd: 20 + 9_990 + WINDOW_MARGIN_MS, used: 1, learned: true });
});

test('an answer without rate-limit headers leaves the route to the global limit', () => {
  const probe = takeFrom(undefined, 'interactive', 1, 0).row;
  expect(learnInto(probe, null, 5)).toMatchObject({ limit: UNLIMITED, learned: true });
  const known = bucket();
  expect(learnInto(known, null, 5)).toBe(known);
});

test('what Discord counted wins when it is more than ours (another process spent some); an older window changes nothing', () => {
  const ours = bucket({ used: 2 });
  expect(learnInto(ours, { limit: 10, remaining: 4, resetAfterMs: 9_000 }, 1_000)).toMatchObject({ used: 6 });
  expect(learnInto(ours, { limit: 10, remaining: 9, resetAfterMs: 9_000 }, 1_000)).toMatchObject({ used: 2 });
  const fresh = bucket({ used: 1, windowEnd: 20_000 });
  // The answer of a request sent at the end of the previous window: it says the bucket was spent.
  expect(learnInto(fresh, { limit: 10, remaining: 0, resetAfterMs: 20 }, 10_000)).toBe(fresh);
});

test('an answer saying the bucket is smaller than the row thought replaces the row, window and count', () => {
  const large = bucket({ limit: 10_000, windowMs: 60_000, windowEnd: 50_000, used: 100 });
  expect(learnInto(large, { limit: 10, remaining: 9, resetAfterMs: 2_000 }, 1_000)).toEqual({
    limit: 10,
    windowMs: 2_000,
    windowEnd: 3_000 + WINDOW_MARGIN_MS,
    used: 1,
    learned: true,
  });
});

test("the global limit is counted in windows short enough that no second of Discord's sees more than 50, even 200 ms late", () => {
  const global = globalBudgetOf(50);
  expect(global).toEqual({ limit: 7, windowMs: 150 });
  const window = global.windowMs + WINDOW_MARGIN_MS;
  // A second of Discord's plus the jitter overlaps at most this many of our windows, each spent whole.
  expect((Math.ceil((1_000 + GLOBAL_JITTER_MS) / window) + 1) * global.limit).toBeLessThanOrEqual(50);
});

test('a 429 spends the bucket until its Retry-After', () => {
  expect(blockedInto(bucket({ used: 3 }), 4_000, 8_000)).toMatchObject({ used: 10, windowEnd: 12_000 + WINDOW_MARGIN_MS });
});

test('the global limit is known without asking and granted several at a time to a shared store', () => {
  const { result, row } = takeFrom(undefined, 'interactive', 100, 0, { limit: 50, windowMs: 1_000 });
  expect(result.granted).toBe(5);
  expect(row).toMatchObject({ limit: 50, used: 5, learned: true });
});

test('budget keys: a role PUT and DELETE share one bucket per guild; other routes per route and major parameter', () => {
  expect(budgetKeyOf('PUT', '/guilds/111111111111111111/members/222222222222222222/roles/333333333333333333')).toBe(
    'member-role:111111111111111111',
  );
  expect(budgetKeyOf('DELETE', '/guilds/111111111111111111/members/222222222222222222/roles/333333333333333333')).toBe(
    'member-role:111111111111111111',
  );
  expect(budgetKeyOf('get', '/guilds/111111111111111111/members/222222222222222222')).toBe('GET /guilds/111111111111111111/members/:id');
  expect(budgetKeyOf('GET', '/users/@me')).toBe('GET /users/@me');
  expect(budgetKeyOf('POST', '/interactions/444444444444444444/token/callback')).toBeNull();
  expect(budgetKeyOf('PATCH', '/webhooks/555555555555555555/token/messages/@original')).toBeNull();
});
