import { sql } from 'drizzle-orm';
import type { CountedWindow, PatreonBudgetStore } from '../../../../src/edges/outbound/patreon/request-budget';
import { IN_FLIGHT_MS } from '../../../../src/edges/outbound/patreon/request-budget';
import { type Database, openDatabase, queryRows } from '../../../../src/edges/outbound/store/database';
import { createPostgresPatreonBudgetStore } from '../../../../src/edges/outbound/store/patreon-budget-store';
import { silentLogger } from '../../../../src/shared/logger';
import { type TestDatabase, createTestDatabase, onPostgres } from '../../../support/test-database';

/**
 * Patreon's request budget on the database. On PostgreSQL the "instances" are separate connection
 * pools, each with its own store, as separate processes have; on PGlite they share the one connection.
 */
let t: TestDatabase;
let others: Database[] = [];
let stores: PatreonBudgetStore[];

beforeAll(async () => {
  t = await createTestDatabase();
  others = onPostgres()
    ? await Promise.all([1, 2].map(() => openDatabase({ engine: 'postgres', url: t.url!, logger: silentLogger, poolSize: 4 })))
    : [];
  stores = [t.database, ...(others.length > 0 ? others : [t.database, t.database])].map((d) => createPostgresPatreonBudgetStore(d.db));
});
afterAll(async () => {
  for (const d of others) await d.close();
  await t.close();
});
beforeEach(() => t.reset());

const minute = (key: string, reserve = 10): CountedWindow => ({ key, window: { requests: 100, windowMs: 60_000 }, reserve });
const client: CountedWindow = { key: 'client:c', window: { requests: 100, windowMs: 2_000 }, reserve: 10 };

test('three instances taking at once are granted exactly the window between them, the bulk lane 90 of 100', async () => {
  const bulk = await Promise.all(Array.from({ length: 120 }, (_, i) => stores[i % 3]!.take([minute('creator:1')], 'bulk')));
  expect(bulk.filter((r) => r.waitMs === 0)).toHaveLength(90);
  for (const refused of bulk.filter((r) => r.waitMs > 0)) expect(refused.waitMs).toBeGreaterThan(50_000);
  const interactive = await Promise.all(Array.from({ length: 20 }, (_, i) => stores[i % 3]!.take([minute('creator:1')], 'interactive')));
  expect(interactive.filter((r) => r.waitMs === 0)).toHaveLength(10);
});

test('a request counts in every window it names, or in none: a full client window refuses another token too', async () => {
  const small: CountedWindow = { key: 'client:c', window: { requests: 3, windowMs: 2_000 }, reserve: 0 };
  for (let i = 0; i < 3; i++) expect((await stores[i]!.take([small, minute(`creator:${i}`)], 'interactive')).waitMs).toBe(0);
  expect((await stores[0]!.take([small, minute('creator:9')], 'interactive')).waitMs).toBeGreaterThan(0);
  const [row] = await queryRows<{ times: unknown[] }>(t.database.db, sql`select times from patreon_budget where key = 'creator:9'`);
  expect(row?.times ?? []).toEqual([]);
});

test('a request holds its place until its answer, then from its answer; rows idle for an hour are pruned', async () => {
  const taken = await stores[0]!.take([client], 'interactive');
  expect(taken.waitMs).toBe(0);
  const [before] = await queryRows<{ last: string; now: string }>(
    t.database.db,
    sql`select times[1] as last, (extract(epoch from now()) * 1000)::bigint as now from patreon_budget where key = 'client:c'`,
  );
  expect(Number(before!.last) - Number(before!.now)).toBeGreaterThan(IN_FLIGHT_MS - 5_000);
  await stores[1]!.answered(['client:c'], taken.at);
  const [after] = await queryRows<{ last: string; now: string }>(
    t.database.db,
    sql`select times[1] as last, (extract(epoch from now()) * 1000)::bigint as now from patreon_budget where key = 'client:c'`,
  );
  expect(Math.abs(Number(after!.last) - Number(after!.now))).toBeLessThan(5_000);
  await t.database.db.execute(sql`update patreon_budget set times = array[0]::bigint[]`);
  await stores[2]!.prune();
  expect(await queryRows(t.database.db, sql`select key from patreon_budget`)).toEqual([]);
});
