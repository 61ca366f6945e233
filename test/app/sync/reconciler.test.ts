import { createManualClock } from '@tierlink/sandbox';
import { silentLogger } from '../../../src/shared/logger';
import { createMetrics } from '../../../src/edges/outbound/observability/metrics';
import { createGuildContextLoader } from '../../../src/app/sync/guild-context';
import { type Reconciler, createReconciler } from '../../../src/app/sync/reconciler';
import { MemberStates } from '../../../src/app/membership/member-states';
import { entitlementSources } from '../../../src/compose';
import { createRoleApplier } from '../../../src/app/sync/role-applier';
import { GRACE_END_JOB, createGraceChecks } from '../../../src/app/sync/grace-checks';
import { createJobStore } from '../../../src/edges/outbound/store/job-queue';
import { jobs } from '../../../src/edges/outbound/store/schema';
import { DAY } from '../../../src/shared/clock';
import { type DiscordKit, createDiscordKit } from '../../support/discord-kit';
import { activeSnapshot, repositories } from '../../support/service-fixtures';
import { type TestDatabase, createTestDatabase } from '../../support/test-database';

const clock = createManualClock(new Date('2026-11-20T12:00:00Z'));
let t: TestDatabase;
let kit: DiscordKit;
let repos: ReturnType<typeof repositories>;
let reconciler: Reconciler;
let guildId: string;
let role: { gold: string; silver: string; staff: string; above: string };
let user: string;

beforeAll(async () => {
  t = await createTestDatabase();
  kit = await createDiscordKit(clock);
});
afterAll(async () => {
  await kit.close();
  await t.close();
});

beforeEach(async () => {
  await t.reset();
  repos = repositories(t.database.db);
  const g = kit.sandbox.createGuild({ name: 'Fan Club' });
  guildId = g.guildId;
  role = {
    gold: kit.sandbox.createRole(guildId, { name: 'Gold', position: 1 }).id,
    silver: kit.sandbox.createRole(guildId, { name: 'Silver', position: 1 }).id,
    staff: kit.sandbox.createRole(guildId, { name: 'Staff', position: 1 }).id,
    // Created last at the top: above the bot's role.
    above: kit.sandbox.createRole(guildId, { name: 'VIP', position: 10 }).id,
  };
  user = kit.sandbox.addMember(guildId, { username: 'alice' }).userId;
  await repos.guilds.bind(guildId, 'c1');
  await repos.campaigns.upsert({ id: 'c1', creatorUserId: 'creator', name: 'Comics', url: null, patronCount: 1 });
  await repos.campaigns.replaceTiers(
    'c1',
    [
      { id: 'gold', title: 'Gold', amountCents: 1000, patronCount: 1, published: true, roleIds: { everywhere: [role.gold], byGuild: {} } },
      {
        id: 'silver',
        title: 'Silver',
        amountCents: 500,
        patronCount: 0,
        published: true,
        roleIds: { everywhere: [role.silver], byGuild: {} },
      },
    ],
    clock.now(),
  );
  await repos.links.linkOauth('patreon', user, 'p1', clock.now());
  await repos.snapshots.upsert(activeSnapshot(), clock.now());
  const applier = createRoleApplier({
    writer: kit.writer,
    ledger: repos.ledger,
    clock,
    metrics: createMetrics({ defaultMetrics: false }),
    logger: silentLogger,
  });
  reconciler = createReconciler({
    ...repos,
    states: new MemberStates(entitlementSources(repos, clock), repos.links),
    contexts: createGuildContextLoader({ ...repos, discordSnapshots: kit.snapshots }),
    memberRoles: kit.memberRoles,
    applier,
    graceChecks: createGraceChecks({ jobs: createJobStore(t.database.db), logger: silentLogger }),
    clock,
    logger: silentLogger,
  });
  kit.sandbox.resetRequests();
});

const roleWrites = () => kit.sandbox.requests().filter((r) => r.route.includes('/roles/:r'));

test('a linked active patron gets the tier role through PUT, with the reason in the audit log and the ledger', async () => {
  const [outcome] = await reconciler.reconcileUser(user, { trigger: 'link' });
  expect(outcome?.result?.applied.map((c) => c.op)).toEqual(['add']);
  expect(kit.sandbox.memberRoles(guildId, user)).toContain(role.gold);
  expect(roleWrites()).toMatchObject([{ method: 'PUT', reason: 'Tierlink (link): Gold tier (active patron)' }]);
  expect(await repos.ledger.forUser(guildId, user)).toEqual([
    { roleId: role.gold, campaignId: 'c1', tierId: 'gold', kind: 'tier', recordedAt: clock.now() },
  ]);
  expect(await repos.ledger.recentAudit(guildId, user)).toMatchObject([{ action: 'add', outcome: 'applied', trigger: 'link' }]);
});

test('reconciling again changes nothing and sends no role request', async () => {
  await reconciler.reconcileMember(guildId, user, { trigger: 'link' });
  kit.sandbox.resetRequests();
  const again = await reconciler.reconcileMember(guildId, user, { trigger: 'webhook' });
  expect(again.plan.changes).toEqual([]);
  expect(roleWrites()).toEqual([]);
});

test('a pledge that ends takes the granted role and leaves the hand-given one', async () => {
  await reconciler.reconcileMember(guildId, user, { trigger: 'link' });
  kit.sandbox.setMemberRolesByHand(guildId, user, [...kit.sandbox.memberRoles(guildId, user), role.staff, role.silver]);
  await repos.snapshots.upsert(activeSnapshot({ patronStatus: 'former_patron', entitledTierIds: [] }), clock.now());
  const outcome = await reconciler.reconcileMember(guildId, user, { trigger: 'webhook' });
  expect(outcome.result?.applied).toMatchObject([{ op: 'remove', roleId: role.gold }]);
  expect(kit.sandbox.memberRoles(guildId, user).sort()).toEqual([role.staff, role.silver].sort());
  expect(await repos.ledger.forUser(guildId, user)).toEqual([]);
});

test('a mapped role above the bot is blocked with the fix, and no request is sent for it', async () => {
  await repos.mappings.add(guildId, { campaignId: 'c1', tierId: 'gold', roleId: role.above }, 'creator');
  const outcome = await reconciler.reconcileMember(guildId, user, { trigger: 'map' });
  expect(outcome.result?.blocked).toMatchObject([{ roleId: role.above, problem: { fix: expect.stringContaining('VIP') } }]);
  expect(roleWrites().map((r) => r.path)).toEqual([expect.stringContaining(role.gold)]);
  expect(await repos.ledger.recentAudit(guildId, user)).toContainEqual(expect.objectContaining({ roleId: role.above, outcome: 'blocked' }));
});

test('an unlinked user loses every role we granted, with the unlink reason', async () => {
  await reconciler.reconcileMember(guildId, user, { trigger: 'link' });
  await repos.links.unlink(user, clock.now());
  const [outcome] = await reconciler.reconcileUser(user, { trigger: 'unlink', unlinkedReason: 'unlinked with /unlink' });
  expect(outcome?.result?.applied).toMatchObject([{ op: 'remove', roleId: role.gold, reason: 'unlinked with /unlink' }]);
  expect(kit.sandbox.memberRoles(guildId, user)).not.toContain(role.gold);
});

test('a user who is not in the server is planned nothing, and a dry run writes nothing', async () => {
  const stranger = '999999999999999999';
  await repos.links.linkOauth('patreon', stranger, 'p2', clock.now());
  await repos.snapshots.upsert(activeSnapshot({ memberId: 'm2', externalUserId: 'p2' }), clock.now());
  const away = await reconciler.reconcileMember(guildId, stranger, { trigger: 'sync' });
  expect(away).toMatchObject({ inGuild: false, plan: { changes: [] } });
  const dry = await reconciler.reconcileMember(guildId, user, { trigger: 'sync', dryRun: true });
  expect(dry.plan.changes).toHaveLength(1);
  expect(dry.result).toBeNull();
  expect(roleWrites()).toEqual([]);
});

test('a member in a grace period gets one durable check at the moment it ends, however often it is reconciled', async () => {
  await reconciler.reconcileMember(guildId, user, { trigger: 'link' });
  const declinedOn = new Date(clock.now().getTime() - 2 * DAY);
  await repos.snapshots.upsert(
    activeSnapshot({ patronStatus: 'declined_patron', lastChargeStatus: 'Declined', lastChargeDate: declinedOn }),
    clock.now(),
  );
  await reconciler.reconcileMember(guildId, user, { trigger: 'webhook' });
  await reconciler.reconcileMember(guildId, user, { trigger: 'webhook' });
  expect(kit.sandbox.memberRoles(guildId, user)).toContain(role.gold);
  const scheduled = await t.database.db.select().from(jobs);
  expect(scheduled).toMatchObject([
    { kind: GRACE_END_JOB, payload: { guildId, userId: user }, status: 'pending', runAt: new Date(declinedOn.getTime() + 7 * DAY) },
  ]);
  // An active member has no grace period to end: nothing more is scheduled.
  await repos.snapshots.upsert(activeSnapshot(), clock.now());
  await reconciler.reconcileMember(guildId, user, { trigger: 'webhook' });
  expect(await t.database.db.select().from(jobs)).toHaveLength(1);
});
