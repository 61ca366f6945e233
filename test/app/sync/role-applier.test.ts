import { FULL_SYNC_LOCK } from '../../../src/app/sync/sync-scheduler';
import { GUILD_RECONCILE_JOB } from '../../../src/app/sync';
import { createRoleApplier } from '../../../src/app/sync/role-applier';
import type { RoleChange, UserPlan } from '../../../src/core/planner/types';
import { createMetrics } from '../../../src/edges/outbound/observability/metrics';
import { queryRows } from '../../../src/edges/outbound/store/database';
import { silentLogger } from '../../../src/shared/logger';
import { sql } from 'drizzle-orm';
import { wireSync } from '../../support/sync-kit';
import { type World, createWorld } from '../../support/world';

/**
 * The one apply path (src/app/sync/role-applier.ts) and its ledger rule: a grant is recorded before
 * its request, a refused grant leaves the ledger again, a member reconciled on their own while a
 * bulk apply waits is not overwritten by the older bulk plan, and guild-wide applies wait for the
 * full-sync lock.
 */

let world: World;

beforeAll(async () => {
  world = await createWorld();
}, 60_000);
afterAll(() => world.close());
beforeEach(() => world.reset(), 30_000);

const ROUTE = '/guilds/:g/members/:u/roles/:r';
const PUT_ROLE = `PUT ${ROUTE}`;

function addGold(guildId: string, userId: string): UserPlan {
  const change: RoleChange = {
    op: 'add',
    roleId: world.roles.gold,
    roleName: 'Gold',
    reason: 'Gold tier (active patron)',
    grant: { campaignId: world.campaignId, tierId: world.tiers.gold, kind: 'tier', sources: ['patreon'] },
  };
  return { guildId, userId, changes: [change], blocked: [] };
}

function applier() {
  const { discord, repos, clock } = world;
  return createRoleApplier({
    writer: discord.writer,
    ledger: repos.ledger,
    clock,
    metrics: createMetrics({ defaultMetrics: false }),
    logger: silentLogger,
  });
}

test('a grant is in the ledger before its request reaches Discord: a crash in between can never leave an unrecorded paid role', async () => {
  const { discord, repos, guildId } = world;
  const userId = discord.sandbox.addMember(guildId, { username: 'waits' }).userId;
  // Discord holds the request back for a second (a 429 on the member-role route): the window in
  // which a process could die with the request on its way.
  discord.sandbox.injectFault({ method: 'PUT', route: ROUTE, status: 429, retryAfterSeconds: 1 });
  const a = applier();
  const applying = a.withMember(guildId, userId, () => a.apply(addGold(guildId, userId), 'webhook'));
  let seenBeforeGrant = false;
  for (let i = 0; i < 200 && !seenBeforeGrant; i++) {
    await new Promise((r) => setTimeout(r, 5));
    const rows = await repos.ledger.forUser(guildId, userId);
    if (rows.some((r) => r.roleId === world.roles.gold) && !discord.sandbox.memberRoles(guildId, userId).includes(world.roles.gold)) {
      seenBeforeGrant = true;
    }
  }
  expect(seenBeforeGrant).toBe(true);
  const result = await applying;
  expect(result.applied.map((c) => c.op)).toEqual(['add']);
  expect(discord.sandbox.memberRoles(guildId, userId)).toContain(world.roles.gold);
  expect((await repos.ledger.forUser(guildId, userId)).map((r) => r.roleId)).toEqual([world.roles.gold]);
});

test('a grant Discord refuses leaves the ledger again, and the attempt is audited as failed', async () => {
  const { discord, repos, guildId } = world;
  const userId = discord.sandbox.addMember(guildId, { username: 'refused' }).userId;
  discord.sandbox.injectFault({ method: 'PUT', route: ROUTE, status: 403, code: 50013, message: 'Missing Permissions' });
  const a = applier();
  const result = await a.withMember(guildId, userId, () => a.apply(addGold(guildId, userId), 'link'));
  expect(result.failed.map((f) => f.code)).toEqual(['missing_permissions']);
  expect(await repos.ledger.forUser(guildId, userId)).toEqual([]);
  expect(await repos.ledger.recentAudit(guildId, userId)).toMatchObject([{ action: 'add', outcome: 'failed', trigger: 'link' }]);
});

test('a member reconciled on their own while a bulk apply waits for them is not overwritten by the older bulk plan', async () => {
  const { discord, clock, guildId } = world;
  const racer = discord.sandbox.addMember(guildId, { username: 'racer' }).userId;
  const other = discord.sandbox.addMember(guildId, { username: 'other' }).userId;
  const a = applier();
  const plannedAt = clock.now();
  let release!: () => void;
  // A webhook's reconcile of `racer` holds the member's lock (it read fresher state: no Gold).
  const webhook = a.withMember(guildId, racer, () => new Promise<void>((resolve) => (release = resolve)));
  clock.advance(1000);
  const bulk = a.applyMany(guildId, [addGold(guildId, racer), addGold(guildId, other)], 'sync', { removals: true, plannedAt });
  await new Promise((r) => setTimeout(r, 50));
  release();
  await webhook;
  const { results, stopped } = await bulk;
  expect(stopped).toBeNull();
  expect([...results.values()].map((o) => o.superseded)).toEqual([true, false]);
  expect(discord.sandbox.memberRoles(guildId, racer)).not.toContain(world.roles.gold);
  expect(discord.sandbox.memberRoles(guildId, other)).toContain(world.roles.gold);
  const puts = discord.sandbox.requests().filter((r) => r.route === PUT_ROLE);
  expect(puts.map((r) => r.path)).toEqual([expect.stringContaining(`/members/${other}/`)]);
});

test('a guild-wide apply after /map waits behind a running full sync (queued, then applied) and is labelled "map" in the audit log', async () => {
  const patron = await world.addLinkedPatron({ tier: 'gold' });
  const { sync, jobs } = wireSync(world);
  await world.repos.snapshots.upsert(
    {
      campaignId: world.campaignId,
      memberId: patron.memberId,
      externalUserId: patron.patreonUserId,
      patronStatus: 'active_patron',
      isFollower: false,
      lastChargeDate: world.clock.now(),
      lastChargeStatus: 'Paid',
      entitledTierIds: [world.tiers.gold],
      pledgeRelationshipStart: null,
      entitledAmountCents: 1000,
      source: 'patreon',
      readBy: 'sync',
    },
    world.clock.now(),
  );
  // A full sync holds the lock: waited for until it is held (on PostgreSQL taking it is a round trip
  // that a loaded machine can stretch well past any fixed pause).
  let release!: () => void;
  let held!: () => void;
  const lockHeld = new Promise<void>((resolve) => (held = resolve));
  const running = world.db.database.tryWithLock(FULL_SYNC_LOCK, () => {
    held();
    return new Promise<void>((resolve) => (release = resolve));
  });
  await lockHeld;
  expect(await sync.applyGuild(world.guildId, 'map')).toEqual({ kind: 'queued' });
  const queued = await queryRows<{ kind: string; status: string }>(world.db.database.db, sql`select kind, status from jobs`);
  expect(queued).toEqual([{ kind: GUILD_RECONCILE_JOB, status: 'pending' }]);
  expect(world.discord.sandbox.memberRoles(world.guildId, patron.discordUserId)).not.toContain(world.roles.gold);

  // The job's first attempt (started at once) finds the lock taken and is put back with a back-off;
  // wait until it is, before the sync ends (else the attempt could find the lock free).
  for (let i = 0; i < 200; i++) {
    const [job] = await queryRows<{ attempts: number; locked_until: Date | null }>(
      world.db.database.db,
      sql`select attempts, locked_until from jobs`,
    );
    if (Number(job?.attempts) >= 1 && job?.locked_until === null) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  const putBack = await queryRows<{ status: string; attempts: number }>(world.db.database.db, sql`select status, attempts from jobs`);
  expect(putBack.map((j) => ({ status: j.status, attempts: Number(j.attempts) }))).toEqual([{ status: 'pending', attempts: 1 }]);
  release();
  await running;
  // The job queue retries the queued apply after its back-off.
  world.clock.advance(60 * 60_000);
  expect(await jobs.worker.sweep()).toBe(1);
  expect(world.discord.sandbox.memberRoles(world.guildId, patron.discordUserId)).toContain(world.roles.gold);
  expect(await queryRows<{ status: string }>(world.db.database.db, sql`select status from jobs`)).toEqual([{ status: 'done' }]);
  const put = world.discord.sandbox.requests().find((r) => r.route === PUT_ROLE);
  expect(put?.reason).toMatch(/^Tierlink \(map\): /);
});
