import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import {
  type BudgetStore,
  GLOBAL_KEY,
  SOLO_CLAIM_MS,
  SOLO_HANDOFF_MS,
  SOLO_HOLD_MS,
  SOLO_RENEW_MS,
  globalBudgetOf,
} from '../../../../src/edges/outbound/discord/request-budget';
import { type Database, openDatabase, queryRows } from '../../../../src/edges/outbound/store/database';
import { createPostgresBudgetStore } from '../../../../src/edges/outbound/store/discord-budget-store';
import { silentLogger } from '../../../../src/shared/logger';
import { type TestDatabase, createTestDatabase, onPostgres } from '../../../support/test-database';

/**
 * Discord's global limit counted whole by a process running alone on a shared database
 * (docs/decisions.md §19). Real time: the claim waits {@link SOLO_CLAIM_MS} by the database's clock.
 * On PostgreSQL each process has its own connection pool, as separate processes have.
 */
let t: TestDatabase;
let other: Database | null = null;
const opened: BudgetStore[] = [];
const shared = globalBudgetOf(50, true);

beforeAll(async () => {
  t = await createTestDatabase();
  if (onPostgres()) other = await openDatabase({ engine: 'postgres', url: t.url!, logger: silentLogger, poolSize: 2 });
});
afterAll(async () => {
  await other?.close();
  await t.close();
});
beforeEach(() => t.reset());
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close?.();
});

function processOf(id: string, claim: boolean, database: Database = t.database): BudgetStore {
  const store = createPostgresBudgetStore(database.db, { id, claim, instanceLeaseMs: 15_000 });
  opened.push(store);
  return store;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const claimed = () => sleep(SOLO_CLAIM_MS + 400);
const take = (store: BudgetStore) => store.take(GLOBAL_KEY, 'interactive', 100, shared);

/** Takes until a take is counted alone (the claim held), or fails after 10 s: a busy machine runs the claim's timer late. */
async function held(store: BudgetStore): Promise<void> {
  const until = performance.now() + 10_000;
  for (;;) {
    const r = await take(store);
    if (r.at !== undefined) {
      await store.answered!(GLOBAL_KEY, r.at);
      return;
    }
    if (performance.now() > until) throw new Error('the claim never held');
    await sleep(100);
  }
}

async function heartbeat(id: string): Promise<void> {
  await t.database.db.execute(sql`insert into instances (id, host, pid) values (${id}, 'elsewhere', 1)`);
}

test("shared windows count 7 per 200 ms; a process alone counts Discord's whole 50 a second, one request a take", async () => {
  expect(shared).toMatchObject({ limit: 7, counting: 'windows', alone: { limit: 50, counting: 'sliding' } });
  const alone = processOf('alone', true);
  // The first take claims, and is counted in the shared windows while the claim waits.
  const first = await take(alone);
  expect(first.granted).toBeGreaterThan(0);
  expect(first.at).toBeUndefined();
  await held(alone);
  // Every request it counted so far has left Discord's second by then: a shared grant is placed
  // where it could last reach Discord (its window's end and the jitter, 400 ms), and leaves a second later.
  await sleep(1_600);

  let granted = 0;
  let full = await take(alone);
  for (; full.granted > 0 && granted < 60; full = await take(alone)) {
    expect(full.granted).toBe(1);
    granted += 1;
    await alone.answered!(GLOBAL_KEY, full.at!);
  }
  expect(granted).toBe(50);
  expect(full.waitMs).toBeGreaterThan(500);
  expect(full.waitMs).toBeLessThanOrEqual(1_010);
  const [row] = await queryRows<{ holder: string; held: boolean }>(
    t.database.db,
    sql`select holder, until > now() as held from discord_global_holder`,
  );
  expect(row).toEqual({ holder: 'alone', held: true });
});

test('a hold is renewed while the process sends, and another process waits until a second after it ends', async () => {
  const holder = processOf('holder', true);
  await take(holder);
  await held(holder);
  // Renewed: still held after the first hold would have ended.
  await sleep(SOLO_HOLD_MS + SOLO_RENEW_MS);
  expect((await take(holder)).at).toBeDefined();

  const late = processOf('late', false, other ?? t.database);
  const refused = await take(late);
  expect(refused.granted).toBe(0);
  // The hold's end (at most SOLO_HOLD_MS away) and the handoff.
  expect(refused.waitMs).toBeGreaterThan(SOLO_HANDOFF_MS);
  expect(refused.waitMs).toBeLessThanOrEqual(SOLO_HOLD_MS + SOLO_HANDOFF_MS + 200);
  // Wanted: the holder gives the limit up at its next renewal, and counts in the shared windows.
  await sleep(SOLO_RENEW_MS + 300);
  const after = await take(holder);
  expect(after.at).toBeUndefined();
});

test('a process that counts the global limit while a claim waits makes the claim fail', async () => {
  const claimer = processOf('claimer', true);
  const busy = processOf('busy', false, other ?? t.database);
  await take(claimer);
  await sleep(300);
  expect((await take(busy)).granted).toBeGreaterThan(0);
  await claimed();
  expect((await take(claimer)).at).toBeUndefined();
  const [row] = await queryRows<{ until: unknown }>(t.database.db, sql`select until from discord_global_holder`);
  expect(row!.until).toBeNull();
});

test('another instance running stops a claim and ends a hold', async () => {
  await heartbeat('neighbour');
  const claimer = processOf('claimer', true);
  await take(claimer);
  await claimed();
  expect((await take(claimer)).at).toBeUndefined();
  expect(await queryRows(t.database.db, sql`select key from discord_global_holder`)).toEqual([]);

  await t.database.db.execute(sql`delete from instances`);
  const alone = processOf('alone', true);
  await take(alone);
  await held(alone);
  // A second instance starts: the holder sees its heartbeat at the next renewal.
  await heartbeat('second');
  await sleep(SOLO_RENEW_MS + 300);
  expect((await take(alone)).at).toBeUndefined();
});

test('a holder that stops ends its hold at once: the next process waits the handoff only', async () => {
  const holder = processOf('holder', true);
  await take(holder);
  await held(holder);
  await holder.close!();
  const started = performance.now();
  const next = processOf('next', false, other ?? t.database);
  const refused = await take(next);
  expect(refused.granted).toBe(0);
  expect(refused.waitMs).toBeLessThanOrEqual(SOLO_HANDOFF_MS + 100);
  // A little past the wait: Node's timer counts from the event loop's cached time (early by the turn's
  // synchronous work), and PGlite's now() has a millisecond's grain. Exactly at the wait, a take may
  // be refused once more for a millisecond or two, which is right and not what this test is about.
  await sleep(refused.waitMs + 50);
  expect((await take(next)).granted).toBeGreaterThan(0);
  expect(performance.now() - started).toBeLessThan(SOLO_HOLD_MS + SOLO_HANDOFF_MS);
});

test("a 429 of the global limit fills the holder's own count until its Retry-After ends", async () => {
  const holder = processOf('holder', true);
  await take(holder);
  await held(holder);
  await holder.blocked(GLOBAL_KEY, 2_000);
  const refused = await take(holder);
  expect(refused.granted).toBe(0);
  expect(refused.waitMs).toBeGreaterThan(1_500);
});

describe("the holder's buckets", () => {
  const key = 'member-role:555555555555555555';
  const bucketRow = () =>
    queryRows<{ limit_count: number; used: number; left_ms: number }>(
      t.database.db,
      sql`select limit_count, used, extract(epoch from window_end - now()) * 1000 as left_ms from discord_budget where key = ${key}`,
    );

  test('while it holds, the holder counts its buckets in memory: 30 answers cost no write, and its close writes the bucket back', async () => {
    const holder = processOf('holder', true);
    await take(holder);
    await held(holder);
    const recording = t.recordStatements();
    let granted = 0;
    for (let i = 0; i < 30; i++) {
      granted += (await holder.take(key, 'interactive', 100)).granted;
      await holder.learn(key, { limit: 100, remaining: 99 - i, resetAfterMs: 10_000, ageMs: 5 });
    }
    recording.stop();
    expect(granted).toBeGreaterThanOrEqual(30);
    // The read of the rows when the hold began, nothing per answer.
    expect(recording.statements.filter((s) => s.includes('discord_budget')).length).toBeLessThanOrEqual(1);
    expect(await bucketRow()).toEqual([]);

    await holder.close!();
    const [row] = await bucketRow();
    expect(row!.limit_count).toBe(100);
    expect(row!.used).toBe(granted);
    expect(Number(row!.left_ms)).toBeGreaterThan(9_000);
    expect(Number(row!.left_ms)).toBeLessThanOrEqual(10_200);
  });

  test('a holder starts from what the database has', async () => {
    const before = processOf('before', false, other ?? t.database);
    await before.learn(key, { limit: 10, remaining: 0, resetAfterMs: 6_000 });
    const holder = processOf('holder', true);
    await take(holder);
    await held(holder);
    const refused = await holder.take(key, 'interactive', 100);
    expect(refused.granted).toBe(0);
    expect(refused.waitMs).toBeGreaterThan(6_000 - SOLO_CLAIM_MS - 3_000);
  });

  test("on hand-over the next process waits, then finds the holder's bucket and spends only what is left of its window", async () => {
    const holder = processOf('holder', true);
    await take(holder);
    await held(holder);
    for (let i = 0; i < 6; i++) {
      expect((await holder.take(key, 'interactive', 100)).granted).toBe(1);
      await holder.learn(key, { limit: 10, remaining: 9 - i, resetAfterMs: 8_000 });
    }

    const next = processOf('next', false, other ?? t.database);
    // It yields (and marks the hold wanted): the holder gives up at its next renewal and writes its buckets back.
    const refused = await next.take(key, 'interactive', 100);
    expect(refused.granted).toBe(0);
    expect(refused.waitMs).toBeGreaterThan(SOLO_HANDOFF_MS);
    expect(refused.waitMs).toBeLessThanOrEqual(SOLO_HOLD_MS + SOLO_HANDOFF_MS + 200);
    await sleep(refused.waitMs + 50);

    const [row] = await bucketRow();
    expect(row).toMatchObject({ limit_count: 10, used: 6 });
    expect(Number(row!.left_ms)).toBeGreaterThan(3_000);
    let granted = 0;
    for (let r = await next.take(key, 'interactive', 100); r.granted > 0; r = await next.take(key, 'interactive', 100))
      granted += r.granted;
    expect(granted).toBe(4);
    // The holder, no longer holding, counts in the database too.
    expect((await holder.take(key, 'interactive', 100)).granted).toBe(0);
  });
});
