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

test('heartbeats list live instances oldest first with the shards they hold; a graceful leave frees its shards at once', async () => {
  const registry = createInstanceRegistry(t.database.db, { leaseMs: 60_000 });
  await registry.heartbeat(a, [], false);
  await registry.heartbeat(b, [], false);
  expect(await registry.claim(0, 2, a.id)).toBe(true);
  expect(await registry.claim(1, 2, b.id)).toBe(true);
  expect(await registry.heartbeat(a, [0], false)).toEqual([0]);
  expect(await registry.heartbeat(b, [1], true)).toEqual([1]);
  expect((await registry.live()).map((i) => ({ id: i.id, shards: i.shards, stopping: i.stopping, host: i.host }))).toEqual([
    { id: a.id, shards: [0], stopping: false, host: 'host-a' },
    { id: b.id, shards: [1], stopping: true, host: 'host-b' },
  ]);
  await registry.leave(b.id);
  expect((await registry.live()).map((i) => i.id)).toEqual([a.id]);
  expect((await registry.leases()).map((l) => [l.shardId, l.holder, l.live])).toEqual([[0, a.id, true]]);
  expect(await registry.claim(1, 2, a.id)).toBe(true);
});

test('a held shard cannot be taken; an expired one can, and its old holder no longer renews it', async () => {
  const registry = createInstanceRegistry(t.database.db, { leaseMs: 300 });
  await registry.heartbeat(a, [], false);
  expect(await registry.claim(0, 1, a.id)).toBe(true);
  expect(await registry.claim(0, 1, b.id)).toBe(false);
  await sleep(500);
  expect((await registry.live()).map((i) => i.id)).toEqual([]);
  expect((await registry.leases())[0]).toMatchObject({ shardId: 0, holder: a.id, live: false });
  expect(await registry.claim(0, 1, b.id)).toBe(true);
  expect(await registry.heartbeat(a, [0], false)).toEqual([]);
  expect(await registry.heartbeat(b, [0], false)).toEqual([0]);
});

test('a lease of another shard count is free: the gateway was cut anew', async () => {
  const registry = createInstanceRegistry(t.database.db, { leaseMs: 60_000 });
  expect(await registry.claim(0, 1, a.id)).toBe(true);
  expect(await registry.claim(0, 2, b.id)).toBe(true);
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
  await registry.heartbeat(a, [0], false);
  await registry.claim(0, 1, a.id);
  await registry.reset();
  expect(await registry.live()).toEqual([]);
  expect(await registry.leases()).toEqual([]);
});
