import {
  type BudgetRow,
  GLOBAL_JITTER_MS,
  IN_FLIGHT_MS,
  LOCAL_MARGIN_MS,
  PROBE_MS,
  UNLIMITED,
  WINDOW_MARGIN_MS,
  blockedInto,
  GLOBAL_KEY,
  budgetKeyOf,
  createMemoryBudgetStore,
  globalBudgetOf,
  learnInto,
  placeAfter,
  releaseOf,
  reserveOf,
  takeFrom,
  takeFromLog,
} from '../../../../src/edges/outbound/discord/request-budget';

/** The member-role bucket as Discord reports it: 10 per window (docs/discord-api-notes.md §6), here of 10 s. */
const bucket = (over: Partial<BudgetRow> = {}): BudgetRow => ({
  limit: 10,
  windowMs: 10_000,
  windowEnd: 10_000 + WINDOW_MARGIN_MS,
  used: 0,
  learned: true,
  seenSentAt: 0,
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
  expect(learned).toEqual({ limit: 10, windowMs: 9_990, windowEnd: 20 + 9_990 + WINDOW_MARGIN_MS, used: 1, learned: true, seenSentAt: 20 });
});

test('an answer without rate-limit headers leaves the route to the global limit', () => {
  const probe = takeFrom(undefined, 'interactive', 1, 0).row;
  expect(learnInto(probe, null, 5)).toMatchObject({ limit: UNLIMITED, learned: true });
  const known = bucket();
  expect(learnInto(known, null, 5)).toBe(known);
});

test('in the same window, what Discord counted wins when it is more than ours (another process spent some), and what we counted when it is more', () => {
  const ours = bucket({ used: 2 });
  expect(learnInto(ours, { limit: 10, remaining: 4, resetAfterMs: 9_000 }, 1_000)).toMatchObject({
    used: 6,
    windowEnd: 10_000 + WINDOW_MARGIN_MS,
  });
  expect(learnInto(ours, { limit: 10, remaining: 9, resetAfterMs: 9_000 }, 1_000)).toMatchObject({ used: 2 });
  // The requests sent after it and not answered yet are in Discord's count by the time it is read.
  expect(learnInto(ours, { limit: 10, remaining: 4, resetAfterMs: 9_000, inFlightAfter: 2 }, 1_000)).toMatchObject({ used: 8 });
});

test('an answer of a request sent before the one the row follows says nothing about now: it only adds to the same window', () => {
  // The row follows a request sent at 9,995, the first of a new window; a request sent at 9,980 answers late, of the old window.
  const fresh = bucket({ used: 1, windowEnd: 20_000, seenSentAt: 9_995 });
  expect(learnInto(fresh, { limit: 10, remaining: 0, resetAfterMs: 20, ageMs: 20 }, 10_000)).toBe(fresh);
  const current = bucket({ used: 2, windowEnd: 10_000 + WINDOW_MARGIN_MS, seenSentAt: 900 });
  expect(learnInto(current, { limit: 10, remaining: 5, resetAfterMs: 9_000, ageMs: 200 }, 1_000)).toEqual({ ...current, used: 5 });
});

test('a bucket that grows is learned from the latest answer: its limit, and a shorter window even though it ends before ours', () => {
  // 10 per 10 s, spent; Discord now allows 100 per second, and says so in the next answer (a window's first request).
  const spent = bucket({ used: 10, seenSentAt: 100 });
  const grown = learnInto(spent, { limit: 100, remaining: 99, resetAfterMs: 1_000, ageMs: 10 }, 2_000)!;
  expect(grown).toEqual({ limit: 100, windowMs: 1_000, windowEnd: 3_000 + WINDOW_MARGIN_MS, used: 1, learned: true, seenSentAt: 1_990 });
  expect(drain(grown, 'interactive', 2_000).granted).toBe(99);
  // Its windows from then on are of a second.
  expect(takeFrom(grown, 'interactive', 1, 5_000).row).toMatchObject({ used: 1, windowEnd: 6_000 + WINDOW_MARGIN_MS });
});

test('a bucket that shrinks is learned from the latest answer: its limit, window and count', () => {
  const large = bucket({ limit: 10_000, windowMs: 60_000, windowEnd: 50_000, used: 100 });
  expect(learnInto(large, { limit: 10, remaining: 9, resetAfterMs: 2_000 }, 1_000)).toEqual({
    limit: 10,
    windowMs: 2_000,
    windowEnd: 3_000 + WINDOW_MARGIN_MS,
    used: 1,
    learned: true,
    seenSentAt: 1_000,
  });
});

test('only the answer to a window’s first request shortens the window; a later one in it may lengthen it; the end follows Discord', () => {
  const row = bucket({ windowMs: 10_000, windowEnd: 10_000 + WINDOW_MARGIN_MS, used: 3 });
  // Half-way through a window of 1 s (Discord changed it): the end moves, the length stays until a window's first answer says.
  const midway = learnInto(row, { limit: 10, remaining: 5, resetAfterMs: 500 }, 1_000)!;
  expect(midway).toMatchObject({ windowMs: 10_000, windowEnd: 1_500 + WINDOW_MARGIN_MS, used: 5 });
  expect(learnInto(midway, { limit: 10, remaining: 9, resetAfterMs: 1_000 }, 2_000)).toMatchObject({ windowMs: 1_000, used: 1 });
  expect(learnInto(row, { limit: 10, remaining: 5, resetAfterMs: 30_000 }, 1_000)).toMatchObject({ windowMs: 30_000 });
});

test("instances sharing a store count the global limit in windows short enough that no second of Discord's sees more than 50, even 200 ms late", () => {
  const global = globalBudgetOf(50, true);
  expect(global).toEqual({ limit: 7, windowMs: 150, counting: 'windows', alone: globalBudgetOf(50, false) });
  const window = global.windowMs + WINDOW_MARGIN_MS;
  // A second of Discord's plus the jitter overlaps at most this many of our windows, each spent whole.
  expect((Math.ceil((1_000 + GLOBAL_JITTER_MS) / window) + 1) * global.limit).toBeLessThanOrEqual(50);
});

/**
 * Greedy takers of one process's global count for `seconds`: each granted request reaches Discord
 * `delay(i)` ms after its grant and is answered 5 ms after that. The arrivals, sorted.
 */
async function greedy(seconds: number, delay: (i: number) => number): Promise<number[]> {
  let now = 0;
  const store = createMemoryBudgetStore(() => now);
  const global = globalBudgetOf(50, false);
  const answers: Array<{ at: number; ticket: number }> = [];
  const arrivals: number[] = [];
  for (; now < seconds * 1_000; now += 1) {
    for (const a of answers.filter((x) => x.at === now)) await store.answered!(GLOBAL_KEY, a.ticket);
    for (;;) {
      const taken = await store.take(GLOBAL_KEY, 'bulk', 1, global);
      if (taken.granted === 0) {
        expect(taken.waitMs).toBeGreaterThan(0);
        break;
      }
      const arrival = now + delay(arrivals.length);
      arrivals.push(arrival);
      answers.push({ at: arrival + 5, ticket: taken.at! });
    }
  }
  return arrivals.sort((a, b) => a - b);
}

/** The most requests that reach Discord within any one second. */
function busiestSecond(arrivals: readonly number[]): number {
  let worst = 0;
  for (let i = 0, j = 0; i < arrivals.length; i++) {
    while (arrivals[i]! - arrivals[j]! >= 1_000) j++;
    worst = Math.max(worst, i - j + 1);
  }
  return worst;
}

test("one process uses the global limit whole: its requests counted until their answers, no second of Discord's sees more than 50, however late some are sent", async () => {
  const global = globalBudgetOf(50, false);
  expect(global).toEqual({ limit: 50, windowMs: 1_000 + LOCAL_MARGIN_MS, counting: 'sliding' });
  // A quiet process: requests reach Discord a few ms after their grant. Within 1.05× of Discord's floor (50 a second).
  const quiet = await greedy(10, (i) => 2 + (i % 3));
  expect(busiestSecond(quiet)).toBeLessThanOrEqual(50);
  expect(quiet.length / 10).toBeGreaterThanOrEqual(50 / 1.05);
  // A busy one: some requests leave up to 400 ms after their grant (a long pause of the event loop), the others at once.
  const busy = await greedy(10, (i) => (i % 7 === 0 ? 400 : 1));
  expect(busiestSecond(busy)).toBeLessThanOrEqual(50);
});

test('a 429 of the global limit fills the sliding log until its Retry-After', async () => {
  let now = 0;
  const store = createMemoryBudgetStore(() => now);
  const global = globalBudgetOf(50, false);
  expect((await store.take('global', 'interactive', 1, global)).granted).toBe(1);
  await store.blocked('global', 2_000);
  now = 1_500;
  expect(await store.take('global', 'interactive', 1, global)).toMatchObject({ granted: 0, waitMs: 500 + WINDOW_MARGIN_MS });
  now = 2_000 + WINDOW_MARGIN_MS;
  expect((await store.take('global', 'interactive', 1, global)).granted).toBe(1);
});

test('the sliding log stays sorted without sorting: a time goes after its equals, and a take drops what left the window', () => {
  expect(placeAfter([], 5)).toBe(0);
  expect(placeAfter([1, 3, 3, 7], 3)).toBe(3);
  expect(placeAfter([1, 3, 3, 7], 0)).toBe(0);
  expect(placeAfter([1, 3, 3, 7], 9)).toBe(4);
  const known = { limit: 3, windowMs: 1_000, counting: 'sliding' as const };
  // A time blocked ahead of the in-flight ones (a long Retry-After) keeps its place after a take.
  const taken = takeFromLog([100, 400, 90_000], 1, 1_150, known);
  expect(taken.times).toEqual([400, 1_150 + IN_FLIGHT_MS, 90_000]);
  expect(taken.result).toMatchObject({ granted: 1, at: 1_150 + IN_FLIGHT_MS });
  expect(takeFromLog(taken.times, 1, 1_200, known).result).toMatchObject({ granted: 0, waitMs: 200 });
});

test('an answer moves its request back into its sorted place in the sliding log, which then frees the window sooner', async () => {
  let now = 0;
  const store = createMemoryBudgetStore(() => now);
  const known = { limit: 2, windowMs: 1_000, counting: 'sliding' as const };
  const first = await store.take('k', 'bulk', 1, known);
  now = 10;
  await store.take('k', 'bulk', 1, known);
  now = 20;
  expect(await store.take('k', 'bulk', 1, known)).toMatchObject({ granted: 0, waitMs: IN_FLIGHT_MS - 20 + 1_000 });
  // The first request was answered at 20: counted from there, the log holds [20, 10 + in flight].
  await store.answered!('k', first.at!);
  expect(await store.take('k', 'bulk', 1, known)).toMatchObject({ granted: 0, waitMs: 1_000 });
  now = 1_021;
  expect((await store.take('k', 'bulk', 1, known)).granted).toBe(1);
});

test('a 429 spends the bucket until its Retry-After', () => {
  expect(blockedInto(bucket({ used: 3 }), 4_000, 8_000)).toMatchObject({ used: 10, windowEnd: 12_000 + WINDOW_MARGIN_MS });
});

test('the global limit is known without asking and granted half a window at a time to a shared store', () => {
  const { result, row } = takeFrom(undefined, 'interactive', 100, 0, { limit: 50, windowMs: 1_000, counting: 'windows' });
  expect(result.granted).toBe(25);
  expect(row).toMatchObject({ limit: 50, used: 25, learned: true });
});

test("the shared global limit's window of 7 costs two takes, not seven: 4, then 3, then none until it ends", () => {
  const global = globalBudgetOf(50, true);
  const first = takeFrom(undefined, 'interactive', 100, 0, global);
  const second = takeFrom(first.row, 'interactive', 100, 10, global);
  const third = takeFrom(second.row, 'interactive', 100, 20, global);
  expect([first.result.granted, second.result.granted, third.result.granted]).toEqual([4, 3, 0]);
  expect(third.result.waitMs).toBe(global.windowMs + WINDOW_MARGIN_MS - 20);
  // The bulk lane's lease stops at its share: the reserve (3 of 7) stays for the interactive lane.
  const bulk = takeFrom(undefined, 'bulk', 100, 0, global);
  expect(bulk.result.granted).toBe(4);
  expect(takeFrom(bulk.row, 'bulk', 100, 10, global).result.granted).toBe(0);
  expect(takeFrom(bulk.row, 'interactive', 100, 10, global).result.granted).toBe(3);
});

test('a learned bucket still grants a tenth at a time (one of the member-role bucket’s 10): a bucket that shrinks takes little back', () => {
  expect(takeFrom(bucket(), 'interactive', 100, 0).result.granted).toBe(1);
  expect(takeFrom(bucket({ limit: 600 }), 'interactive', 100, 0).result.granted).toBe(60);
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
