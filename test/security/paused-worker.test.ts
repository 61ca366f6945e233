import { sql } from 'drizzle-orm';
import { createRoleApplier } from '../../src/app/sync/role-applier';
import type { RoleChange, UserPlan } from '../../src/core/planner/types';
import { createMetrics } from '../../src/edges/outbound/observability/metrics';
import { queryRows } from '../../src/edges/outbound/store/database';
import { createDurableQueue } from '../../src/edges/outbound/store/durable-queue';
import { createInstanceRegistry } from '../../src/edges/outbound/store/instance-registry';
import { createQueueWorker } from '../../src/edges/outbound/store/queue-worker';
import { type Fence, LeaseLostError, createFenceScope } from '../../src/shared/fence';
import { silentLogger } from '../../src/shared/logger';
import { type World, createWorld } from '../support/world';

/**
 * Attack (fault): an instance is paused (a stopped process, a long pause of its machine) while it
 * works something, its lease runs out, another instance takes the work over, and then the first
 * one resumes. Refusal: the resumed instance's writes are fenced (docs/outages-and-fencing.md); the grant
 * it was about to make is neither recorded nor sent, whether it held a queued row or a gateway shard;
 * a member's leave it was about to write (the Members page) is not written.
 */

let world: World;
beforeAll(async () => {
  world = await createWorld();
}, 60_000);
afterAll(() => world.close());
beforeEach(() => world.reset(), 30_000);

const PUT_ROLE = 'PUT /guilds/:g/members/:u/roles/:r';

function addGold(userId: string): UserPlan {
  const change: RoleChange = {
    op: 'add',
    roleId: world.roles.gold,
    roleName: 'Gold',
    reason: 'Gold tier (active patron)',
    grant: { campaignId: world.campaignId, tierId: world.tiers.gold, kind: 'tier', sources: ['patreon'] },
  };
  return { guildId: world.guildId, userId, changes: [change], blocked: [] };
}

function fencedApplier() {
  const scope = createFenceScope();
  const applier = createRoleApplier({
    writer: world.discord.writer,
    ledger: world.repos.ledger,
    clock: world.clock,
    metrics: createMetrics({ defaultMetrics: false }),
    logger: silentLogger,
    fences: scope,
  });
  const apply = (fence: Fence, userId: string) =>
    scope.run(fence, () => applier.withMember(world.guildId, userId, () => applier.apply(addGold(userId), 'webhook')));
  return { apply };
}

/** The reconciler as the service wires it (src/compose.ts), its events under the service's fence scope. */
function fencedReconciler() {
  const { reconciler, fences } = world.services;
  return { leave: (fence: Fence, userId: string) => fences.scope.run(fence, () => reconciler.memberLeft(world.guildId, userId)) };
}

const puts = (userId: string) => world.discord.sandbox.requests().filter((r) => r.route === PUT_ROLE && r.path.includes(`/${userId}/`));

test('a worker whose queued row was taken over after its lease ran out sends nothing and records nothing', async () => {
  const { db, clock, guildId } = world;
  const userId = world.discord.sandbox.addMember(guildId, { username: 'paused' }).userId;
  const queue = createDurableQueue(db.database.db, 'jobs');
  await db.database.db.execute(sql`insert into jobs (kind, payload, run_at) values ('member-recheck', '{}'::jsonb, ${clock.now()})`);
  const [mine] = await queue.claim({ limit: 1, lockMs: 120_000, now: clock.now() });
  // Paused past the lease: another worker claims the row.
  clock.advance(121_000);
  const [theirs] = await queue.claim({ limit: 1, lockMs: 120_000, now: clock.now() });
  expect(theirs!.attempts).toBe(mine!.attempts + 1);

  const { apply } = fencedApplier();
  const stale: Fence = { kind: 'work', queue: 'jobs', id: mine!.id, attempts: mine!.attempts };
  await expect(apply(stale, userId)).rejects.toBeInstanceOf(LeaseLostError);
  expect(puts(userId)).toEqual([]);
  expect(await world.repos.ledger.forUser(guildId, userId)).toEqual([]);

  // The worker that holds the row now grants the role.
  const result = await apply({ kind: 'work', queue: 'jobs', id: theirs!.id, attempts: theirs!.attempts }, userId);
  expect(result.applied).toHaveLength(1);
  expect(puts(userId)).toHaveLength(1);
});

test('an event of a gateway shard that another instance took meanwhile changes no role, even once its old holder holds the shard again', async () => {
  const { db, guildId } = world;
  const userId = world.discord.sandbox.addMember(guildId, { username: 'rejoined' }).userId;
  const registry = createInstanceRegistry(db.database.db, { leaseMs: 200 });
  const first = (await registry.claim(0, 1, 'instance-a'))!;
  await new Promise((r) => setTimeout(r, 300));
  const second = (await registry.claim(0, 1, 'instance-b'))!;
  const { apply } = fencedApplier();
  await expect(apply({ kind: 'shard', shardId: 0, holder: 'instance-a', generation: first }, userId)).rejects.toBeInstanceOf(
    LeaseLostError,
  );
  await registry.release('instance-b', [0]);
  await registry.claim(0, 1, 'instance-a');
  await expect(apply({ kind: 'shard', shardId: 0, holder: 'instance-a', generation: first }, userId)).rejects.toBeInstanceOf(
    LeaseLostError,
  );
  expect(puts(userId)).toEqual([]);
  expect(second).toBeGreaterThan(first);
});

test('a queue worker runs each row under its fence: work that outlives its lease cannot finish the row another worker holds', async () => {
  const { db, clock } = world;
  const queue = createDurableQueue(db.database.db, 'jobs');
  await db.database.db.execute(sql`insert into jobs (kind, payload, run_at) values ('member-recheck', '{}'::jsonb, ${clock.now()})`);
  const scope = createFenceScope();
  const seen: Array<Fence | null> = [];
  let resume!: () => void;
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  const worker = createQueueWorker({
    name: 'jobs',
    queue,
    clock,
    random: () => 0.5,
    logger: silentLogger,
    lockMs: 1000,
    renewEveryMs: 60_000,
    fencing: { scope, table: 'jobs' },
    handle: async () => {
      seen.push(scope.current());
      const paused = new Promise<void>((r) => (resume = r));
      started();
      await paused;
    },
  });
  const working = worker.sweep();
  // The handler has the row (not a fixed wait: on a busy machine the claim can take longer).
  await running;
  expect(seen).toEqual([{ kind: 'work', queue: 'jobs', id: expect.any(Number), attempts: 1 }]);
  clock.advance(2000);
  const [taken] = await queue.claim({ limit: 1, lockMs: 60_000, now: clock.now() });
  expect(taken!.attempts).toBe(2);
  resume();
  await working;
  expect(await queryRows(db.database.db, sql`select status, attempts from jobs`)).toEqual([{ status: 'pending', attempts: 2 }]);
});

test('a leave of a gateway shard that another instance took meanwhile writes nothing: the Members page keeps the member until the holder writes it', async () => {
  const { db, guildId, clock } = world;
  const memberList = world.repos.memberList;
  const userId = world.discord.sandbox.addMember(guildId, { username: 'leaver' }).userId;
  await memberList.present(guildId, userId, 'leaver', clock.now(), true);
  const inPresence = async () => {
    const ids: string[] = [];
    for await (const chunk of memberList.presence(guildId)) ids.push(...chunk.map((r) => r.userId));
    return ids.includes(userId);
  };
  const before = await memberList.version(guildId);
  const first = (await createInstanceRegistry(db.database.db, { leaseMs: 200 }).claim(0, 1, 'instance-a'))!;
  await new Promise((r) => setTimeout(r, 300));
  const second = (await createInstanceRegistry(db.database.db, { leaseMs: 60_000 }).claim(0, 1, 'instance-b'))!;
  const { leave } = fencedReconciler();

  await expect(leave({ kind: 'shard', shardId: 0, holder: 'instance-a', generation: first }, userId)).rejects.toBeInstanceOf(
    LeaseLostError,
  );
  expect(await inPresence()).toBe(true);
  expect(await memberList.version(guildId)).toBe(before);
  expect(await queryRows(db.database.db, sql`select * from guild_departures`)).toEqual([]);

  // The instance that holds the shard now writes the same leave.
  await leave({ kind: 'shard', shardId: 0, holder: 'instance-b', generation: second }, userId);
  expect(await inPresence()).toBe(false);
  expect(await memberList.version(guildId)).not.toBe(before);
});
