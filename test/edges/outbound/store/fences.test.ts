import { sql } from 'drizzle-orm';
import { queryRows } from '../../../../src/edges/outbound/store/database';
import { createDurableQueue } from '../../../../src/edges/outbound/store/durable-queue';
import { createFences } from '../../../../src/edges/outbound/store/fences';
import { createInstanceRegistry } from '../../../../src/edges/outbound/store/instance-registry';
import type { Fence } from '../../../../src/shared/fence';
import { type TestDatabase, createTestDatabase } from '../../../support/test-database';

/** The fencing tokens of docs/outages-and-fencing.md, checked by the database, on both engines. */

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.close());
beforeEach(() => t.reset());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const shard = (holder: string, generation: number): Fence => ({ kind: 'shard', shardId: 0, holder, generation });

test('a shard fence holds for its holder at its generation only: not after a takeover, not for an older hold of the same holder', async () => {
  const registry = createInstanceRegistry(t.database.db, { leaseMs: 300 });
  const fences = createFences(t.database.db);
  const now = () => new Date();
  const first = (await registry.claim(0, 1, 'a'))!;
  expect(await fences.holds(shard('a', first), now())).toBe(true);
  expect(await fences.holds(shard('b', first), now())).toBe(false);
  // a pauses: its lease expires and b takes the shard.
  await sleep(400);
  expect(await fences.holds(shard('a', first), now())).toBe(false);
  const second = (await registry.claim(0, 1, 'b'))!;
  expect(await fences.holds(shard('b', second), now())).toBe(true);
  expect(await fences.holds(shard('a', first), now())).toBe(false);
  // b gives it up and a takes it again: a's events of the first hold are still refused.
  await registry.release('b', [0]);
  const third = (await registry.claim(0, 1, 'a'))!;
  expect(await fences.holds(shard('a', third), now())).toBe(true);
  expect(await fences.holds(shard('a', first), now())).toBe(false);
});

test('a work fence holds while the row is this attempt’s, pending and leased: not once another worker claimed it again', async () => {
  const queue = createDurableQueue(t.database.db, 'jobs');
  const fences = createFences(t.database.db);
  await t.database.db.execute(sql`insert into jobs (kind, payload) values ('test', '{}'::jsonb)`);
  const t0 = new Date();
  const [row] = await queue.claim({ limit: 1, lockMs: 1000, now: t0 });
  const fence: Fence = { kind: 'work', queue: 'jobs', id: row!.id, attempts: row!.attempts };
  expect(await fences.holds(fence, new Date(t0.getTime() + 500))).toBe(true);
  // Past its lease the row is free: the fence no longer holds even before anyone claims it.
  const later = new Date(t0.getTime() + 1500);
  expect(await fences.holds(fence, later)).toBe(false);
  const [again] = await queue.claim({ limit: 1, lockMs: 1000, now: later });
  expect(again!.attempts).toBe(row!.attempts + 1);
  expect(await fences.holds(fence, later)).toBe(false);
  expect(await fences.holds({ ...fence, attempts: again!.attempts }, later)).toBe(true);
});

test('a paused worker that resumes cannot finish, retry or kill a row another worker claimed meanwhile', async () => {
  const queue = createDurableQueue(t.database.db, 'jobs');
  await t.database.db.execute(sql`insert into jobs (kind, payload) values ('test', '{}'::jsonb)`);
  const t0 = new Date();
  const [old] = await queue.claim({ limit: 1, lockMs: 1000, now: t0 });
  const later = new Date(t0.getTime() + 1500);
  const [fresh] = await queue.claim({ limit: 1, lockMs: 60_000, now: later });
  await queue.complete(old!.id, old!.attempts, later);
  await queue.retry(old!.id, old!.attempts, 'late', later);
  await queue.kill(old!.id, old!.attempts, 'late', later);
  const state = async () =>
    (
      await queryRows<{ status: string; attempts: number; locked: boolean }>(
        t.database.db,
        sql`select status, attempts, locked_until is not null as locked from jobs`,
      )
    )[0];
  expect(await state()).toEqual({ status: 'pending', attempts: fresh!.attempts, locked: true });
  await queue.complete(fresh!.id, fresh!.attempts, later);
  expect(await state()).toMatchObject({ status: 'done' });
});

test('an interaction is claimed once; a claim under a fence that does not hold is refused and leaves the id free', async () => {
  const registry = createInstanceRegistry(t.database.db, { leaseMs: 60_000 });
  const fences = createFences(t.database.db);
  const generation = (await registry.claim(0, 1, 'a'))!;
  const now = new Date();
  expect(await fences.claimInteraction('1001', 'b', shard('b', generation), now)).toBe(false);
  expect(await fences.claimInteraction('1001', 'a', shard('a', generation), now)).toBe(true);
  expect(await fences.claimInteraction('1001', 'a', shard('a', generation), now)).toBe(false);
  expect(await fences.claimInteraction('1002', 'c', null, now)).toBe(true);
  expect(await fences.claimInteraction('1002', 'c', null, now)).toBe(false);
});
