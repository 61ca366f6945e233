import { createInstanceRegistry } from '../../../../src/edges/outbound/store/instance-registry';
import { type TestDatabase, createTestDatabase } from '../../../support/test-database';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.close());
beforeEach(() => t.reset());

const a = { id: 'instance-a', host: 'host-a', pid: 1 };
const b = { id: 'instance-b', host: 'host-b', pid: 2 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const none = { shards: [], connected: [] };
const shardsOf = (leases: Array<{ shardId: number }>) => leases.map((l) => l.shardId);

test('heartbeats list live instances oldest first with the shards they hold; a graceful leave frees its shards at once', async () => {
  const registry = createInstanceRegistry(t.database.db, { leaseMs: 60_000 });
  await registry.heartbeat(a, none, false);
  await registry.heartbeat(b, none, false);
  const g0 = await registry.claim(0, 2, a.id);
  const g1 = await registry.claim(1, 2, b.id);
  expect(g0).toEqual(expect.any(Number));
  expect(g1).toEqual(expect.any(Number));
  expect(g1).not.toBe(g0);
  expect(await registry.heartbeat(a, { shards: [0], connected: [0] }, false)).toEqual([{ shardId: 0, generation: g0 }]);
  expect(await registry.heartbeat(b, { shards: [1], connected: [] }, true)).toEqual([{ shardId: 1, generation: g1 }]);
  expect(
    (await registry.live()).map((i) => ({ id: i.id, shards: i.shards, connected: i.connectedShards, stopping: i.stopping, host: i.host })),
  ).toEqual([
    { id: a.id, shards: [0], connected: [0], stopping: false, host: 'host-a' },
    { id: b.id, shards: [1], connected: [], stopping: true, host: 'host-b' },
  ]);
  await registry.leave(b.id);
  expect((await registry.live()).map((i) => i.id)).toEqual([a.id]);
  expect((await registry.leases()).map((l) => [l.shardId, l.holder, l.live])).toEqual([[0, a.id, true]]);
  expect(await registry.claim(1, 2, a.id)).toBeGreaterThan(g1!);
});

test('a held shard cannot be taken; an expired one can, and its old holder no longer renews it', async () => {
  const registry = createInstanceRegistry(t.database.db, { leaseMs: 300 });
  await registry.heartbeat(a, none, false);
  const first = await registry.claim(0, 1, a.id);
  expect(first).toEqual(expect.any(Number));
  expect(await registry.claim(0, 1, b.id)).toBeNull();
  await sleep(500);
  expect((await registry.live()).map((i) => i.id)).toEqual([]);
  expect((await registry.leases())[0]).toMatchObject({ shardId: 0, holder: a.id, live: false, generation: first });
  const second = await registry.claim(0, 1, b.id);
  expect(second).toBeGreaterThan(first!);
  expect(await registry.heartbeat(a, { shards: [0], connected: [0] }, false)).toEqual([]);
  expect(shardsOf(await registry.heartbeat(b, { shards: [0], connected: [0] }, false))).toEqual([0]);
});

test('a lease held without a session is still renewed and answered: its holder opens the session again or gives it up', async () => {
  const registry = createInstanceRegistry(t.database.db, { leaseMs: 60_000 });
  const generation = await registry.claim(0, 1, a.id);
  // The session was closed (the database was away): the heartbeat names no shard, the lease is still a's.
  expect(await registry.heartbeat(a, none, false)).toEqual([{ shardId: 0, generation }]);
  expect((await registry.leases())[0]).toMatchObject({ holder: a.id, live: true, generation });
});

test('a generation is never given twice, even to a shard released and taken again', async () => {
  const registry = createInstanceRegistry(t.database.db, { leaseMs: 60_000 });
  const seen: number[] = [];
  for (let i = 0; i < 3; i++) {
    seen.push((await registry.claim(0, 1, a.id))!);
    await registry.release(a.id, [0]);
  }
  seen.push((await registry.claim(0, 1, b.id))!, (await registry.claim(1, 2, b.id))!);
  expect(new Set(seen).size).toBe(5);
});

test('a lease of another shard count is free: the gateway was cut anew', async () => {
  const registry = createInstanceRegistry(t.database.db, { leaseMs: 60_000 });
  expect(await registry.claim(0, 1, a.id)).toEqual(expect.any(Number));
  expect(await registry.claim(0, 2, b.id)).toEqual(expect.any(Number));
  expect((await registry.leases()).map((l) => [l.shardId, l.shardCount, l.holder])).toEqual([[0, 2, b.id]]);
  await registry.release(b.id, [0]);
  expect(await registry.leases()).toEqual([]);
});

test('one IDENTIFY per rate-limit key per interval, whoever asks; other keys are free', async () => {
  const registry = createInstanceRegistry(t.database.db, { leaseMs: 60_000 });
  expect(await registry.takeIdentifySlot(0, 5_000)).toBe(0);
  const wait = await registry.takeIdentifySlot(0, 5_000);
  expect(wait).toBeGreaterThan(0);
  expect(wait).toBeLessThanOrEqual(5_000);
  expect(await registry.takeIdentifySlot(1, 5_000)).toBe(0);
  expect(await registry.takeIdentifySlot(2, 100)).toBe(0);
  await sleep(200);
  expect(await registry.takeIdentifySlot(2, 100)).toBe(0);
});

test('the gateway plan is replaced only from the plan it replaces (instances deciding at once agree)', async () => {
  const registry = createInstanceRegistry(t.database.db, { leaseMs: 60_000 });
  const one = { shardCount: 1, maxConcurrency: 1, fixed: false };
  const two = { shardCount: 2, maxConcurrency: 1, fixed: false };
  const four = { shardCount: 4, maxConcurrency: 1, fixed: true };
  expect(await registry.plan()).toBeNull();
  expect(await registry.replacePlan(null, one)).toEqual(one);
  expect(await registry.replacePlan(null, two)).toEqual(one);
  expect(await registry.replacePlan(one, two)).toEqual(two);
  expect(await registry.replacePlan(one, four)).toEqual(two);
  expect(await registry.plan()).toEqual(two);
});

test('reset empties the instance table and the leases (the embedded database at start)', async () => {
  const registry = createInstanceRegistry(t.database.db, { leaseMs: 60_000 });
  await registry.heartbeat(a, { shards: [0], connected: [0] }, false);
  await registry.claim(0, 1, a.id);
  await registry.reset();
  expect(await registry.live()).toEqual([]);
  expect(await registry.leases()).toEqual([]);
});
