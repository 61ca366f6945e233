import { sql } from 'drizzle-orm';
import { GLOBAL_KEY, type BudgetStore } from '../../../../src/edges/outbound/discord/request-budget';
import { type Database, openDatabase, queryRows } from '../../../../src/edges/outbound/store/database';
import { createPostgresBudgetStore } from '../../../../src/edges/outbound/store/discord-budget-store';
import { silentLogger } from '../../../../src/shared/logger';
import { type TestDatabase, createTestDatabase, onPostgres } from '../../../support/test-database';

/**
 * The shared request budget on the database. On PostgreSQL the "instances" are separate
 * connection pools, each with its own store, as separate processes have; on PGlite they share the
 * one connection (the embedded database has one process, which uses the memory store in production).
 */
let t: TestDatabase;
let others: Database[] = [];
let stores: BudgetStore[];

beforeAll(async () => {
  t = await createTestDatabase();
  const extra = onPostgres()
    ? await Promise.all([1, 2].map(() => openDatabase({ engine: 'postgres', url: t.url!, logger: silentLogger, poolSize: 4 })))
    : [];
  others = extra;
  stores = [t.database, ...(extra.length > 0 ? extra : [t.database, t.database])].map((d) => createPostgresBudgetStore(d.db));
});
afterAll(async () => {
  for (const d of others) await d.close();
  await t.close();
});
beforeEach(() => t.reset());

test('three instances taking a 10-per-window bucket at once are granted exactly 10 between them', async () => {
  const key = 'member-role:111111111111111111';
  await stores[0]!.learn(key, { limit: 10, remaining: 10, resetAfterMs: 60_000 });
  const results = await Promise.all(Array.from({ length: 30 }, (_, i) => stores[i % 3]!.take(key, 'interactive', 1)));
  expect(results.reduce((n, r) => n + r.granted, 0)).toBe(10);
  for (const refused of results.filter((r) => r.granted === 0)) expect(refused.waitMs).toBeGreaterThan(50_000);
});

test('the bulk lane leaves the reserve to the interactive lane of any instance', async () => {
  const key = 'member-role:222222222222222222';
  await stores[0]!.learn(key, { limit: 10, remaining: 10, resetAfterMs: 60_000 });
  let bulk = 0;
  for (let i = 0; i < 12; i++) bulk += (await stores[0]!.take(key, 'bulk', 1)).granted;
  expect(bulk).toBe(7);
  let interactive = 0;
  for (let i = 0; i < 5; i++) interactive += (await stores[1]!.take(key, 'interactive', 1)).granted;
  expect(interactive).toBe(3);
});

test('the global limit is shared: a take may grant several at once, and all instances together stay within 50 per window', async () => {
  const known = { limit: 50, windowMs: 60_000, counting: 'windows' as const };
  const results = await Promise.all(Array.from({ length: 40 }, (_, i) => stores[i % 3]!.take(GLOBAL_KEY, 'interactive', 100, known)));
  const granted = results.reduce((n, r) => n + r.granted, 0);
  expect(granted).toBe(50);
  // Half a window per take: two instances' takes spend it.
  expect(Math.max(...results.map((r) => r.granted))).toBe(25);
});

test('what one instance learns and a 429 another saw are in the one row; idle rows are pruned', async () => {
  const key = 'GET /guilds/333333333333333333/members/:id';
  const probe = await stores[0]!.take(key, 'interactive', 1);
  expect(probe.granted).toBe(1);
  expect((await stores[1]!.take(key, 'interactive', 1)).granted).toBe(0);
  await stores[0]!.learn(key, { limit: 5, remaining: 4, resetAfterMs: 1_000 });
  expect((await stores[1]!.take(key, 'interactive', 1)).granted).toBe(1);
  await stores[2]!.blocked(key, 30_000);
  const blocked = await stores[1]!.take(key, 'interactive', 1);
  expect(blocked.granted).toBe(0);
  expect(blocked.waitMs).toBeGreaterThan(25_000);

  await t.database.db.execute(sql`update discord_budget set window_end = now() - interval '2 hours'`);
  await stores[0]!.prune();
  expect(await queryRows(t.database.db, sql`select key from discord_budget`)).toEqual([]);
});

test("every instance follows Discord's latest answer: a bucket that grew is used whole at once, and an answer of an earlier request changes nothing", async () => {
  const key = 'member-role:444444444444444444';
  // Spent for a minute, as one instance learned it.
  await stores[0]!.learn(key, { limit: 10, remaining: 0, resetAfterMs: 60_000, ageMs: 0 });
  expect((await stores[1]!.take(key, 'interactive', 1)).granted).toBe(0);
  // Another instance's next answer: Discord allows 100 a second now (the answer of a window's first request).
  await stores[1]!.learn(key, { limit: 100, remaining: 99, resetAfterMs: 1_000, ageMs: 0 });
  expect((await stores[2]!.take(key, 'interactive', 100)).granted).toBe(10);
  // An answer that arrives late, of a request sent 3 s ago under the old bucket: the row stays as Discord said last.
  await stores[0]!.learn(key, { limit: 10, remaining: 0, resetAfterMs: 57_000, ageMs: 3_000 });
  expect((await stores[0]!.take(key, 'interactive', 100)).granted).toBe(10);
  const [row] = await queryRows<{ limit_count: number; window_ms: number }>(
    t.database.db,
    sql`select limit_count, window_ms from discord_budget where key = ${key}`,
  );
  expect(row).toEqual({ limit_count: 100, window_ms: 1_000 });
});

test('the shared store counts the global limit in windows; a sliding count of one process is refused loudly', async () => {
  await expect(stores[0]!.take(GLOBAL_KEY, 'interactive', 1, { limit: 50, windowMs: 1_050, counting: 'sliding' })).rejects.toThrow(
    'counts global in windows',
  );
});

test('answers of one bucket that arrive together are recorded in one change, and the row follows the request sent last', async () => {
  const key = 'member-role:555555555555555555';
  const recording = t.recordStatements();
  // 30 answers of a bucket of 100 read at once, the request sent last answered with the fewest remaining.
  await Promise.all(
    Array.from({ length: 30 }, (_, i) => stores[0]!.learn(key, { limit: 100, remaining: 99 - i, resetAfterMs: 10_000, ageMs: 30 - i })),
  );
  recording.stop();
  const budget = recording.statements.filter((s) => s.includes('discord_budget'));
  // The first answer's change, then one for the 29 that came while it was on its way: a read and a write each.
  expect(budget.length).toBeLessThanOrEqual(4);
  const [row] = await queryRows<{ used: number; limit_count: number }>(
    t.database.db,
    sql`select used, limit_count from discord_budget where key = ${key}`,
  );
  expect(row).toEqual({ used: 30, limit_count: 100 });
});
