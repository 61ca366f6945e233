import { wireSync } from '../../support/sync-kit';
import { EventEmitter } from 'node:events';
import type { APIRequest, REST, RateLimitData } from '@discordjs/rest';
import { createApiMeter, patreonRoute } from '../../../src/app/sync/api-meter';
import { formatSyncReport } from '../../../src/core/sync-report';
import { type World, createWorld } from '../../support/world';

let world: World;
beforeAll(async () => {
  world = await createWorld();
});
afterAll(() => world.close());
beforeEach(() => world.reset());

/** More than STALE_SNAPSHOT_MARGIN_MS between runs: what a snapshot not refreshed by a run is older by. */
const LATER = 10 * 60_000;
const roleWrites = () => world.discord.sandbox.requests().filter((r) => r.route.includes('/roles/:r'));
const has = (userId: string, roleId: string) => world.discord.sandbox.memberRoles(world.guildId, userId).includes(roleId);

test('a service error on page 3 of 5 removes nothing, still adds, and records why; the next complete run removes', async () => {
  const { fullSync, syncRuns, repos } = wireSync(world);
  const ended = world.addPatron({ tier: 'gold', socialDiscord: true });
  const deleted = world.addPatron({ tier: 'gold', socialDiscord: true });
  const handRemoved = world.addPatron({ tier: 'silver', socialDiscord: true });
  world.patreon.generateMembers({ campaignId: world.campaignId, count: 4_500, seed: 7, discordUserIdFor: () => null });
  await fullSync.run({ trigger: 'cli' });
  for (const p of [ended, deleted]) expect(has(p.discordUserId, world.roles.gold)).toBe(true);

  world.patreon.setMembership(ended.patreonUserId, world.campaignId, { patronStatus: 'former_patron', tierIds: [] }, { deliver: false });
  world.patreon.deleteMember(deleted.memberId, { deliver: false });
  world.discord.sandbox.setMemberRolesByHand(world.guildId, handRemoved.discordUserId, []);
  world.patreon.injectFault({
    path: `/api/oauth2/v2/campaigns/${world.campaignId}/members`,
    status: 503,
    afterMatching: 2,
    times: Infinity,
  });
  world.clock.advance(LATER);
  world.patreon.resetRequests();
  world.discord.sandbox.resetRequests();

  const broken = await fullSync.run({ trigger: 'schedule' });
  expect(broken.status).toBe('failed');
  expect(broken.campaigns[0]).toMatchObject({ complete: false, pages: 2 });
  expect(broken.campaigns[0]!.error).toMatch(/after 2 pages/);
  expect(has(ended.discordUserId, world.roles.gold)).toBe(true);
  expect(has(deleted.discordUserId, world.roles.gold)).toBe(true);
  expect(has(handRemoved.discordUserId, world.roles.silver)).toBe(true);
  expect(roleWrites().map((r) => r.method)).toEqual(['PUT']);
  expect(await repos.snapshots.get('patreon', world.campaignId, deleted.memberId)).not.toBeNull();
  const guild = broken.guilds[0]!;
  expect(guild).toMatchObject({
    status: 'failed',
    planned: { adds: 1, removes: 1 },
    applied: { adds: 1, removes: 0 },
    held: { removals: 1 },
  });
  expect(guild.changes.find((c) => c.op === 'remove')).toMatchObject({ userId: ended.discordUserId, outcome: 'held' });
  expect(await syncRuns.get(guild.runId!)).toMatchObject({
    status: 'failed',
    heldRemovals: 1,
    appliedAdds: 1,
    appliedRemoves: 0,
    heldReason: expect.stringMatching(/could not be read/),
    errors: [expect.stringMatching(/503/)],
  });
  expect(formatSyncReport(broken)).toMatch(/Held 1 removal: a page could not be read/);

  world.patreon.clearFaults();
  world.clock.advance(LATER);
  const healed = await fullSync.run({ trigger: 'schedule' });
  expect(healed.status).toBe('ok');
  expect(healed.campaigns[0]).toMatchObject({ complete: true, pages: 5, staleSnapshotsDeleted: 1 });
  expect(has(ended.discordUserId, world.roles.gold)).toBe(false);
  expect(has(deleted.discordUserId, world.roles.gold)).toBe(false);
  expect(healed.guilds[0]!.changes.find((c) => c.userId === deleted.discordUserId)?.reason).toMatch(/not a member of this campaign/);
  expect(await repos.snapshots.get('patreon', world.campaignId, deleted.memberId)).toBeNull();
});

test('the meter names routes without ids and merges overlapping rate-limit waits', () => {
  expect(patreonRoute('/api/oauth2/v2/campaigns/123/members')).toBe('/api/oauth2/v2/campaigns/:id/members');
  expect(patreonRoute('/api/oauth2/v2/members/ab-12')).toBe('/api/oauth2/v2/members/:id');
  expect(patreonRoute('/api/oauth2/v2/identity')).toBe('/api/oauth2/v2/identity');
  let now = 0;
  const rest = new EventEmitter();
  const meter = createApiMeter({ discordRest: rest as unknown as REST, now: () => now });
  const wait = (ms: number) => rest.emit('rateLimited', { timeToReset: ms } as RateLimitData);
  wait(1000); // 0..1000
  now = 500;
  wait(1000); // 500..1500: 500 more
  now = 3000;
  wait(200); // 3000..3200
  rest.emit('response', { method: 'put', route: '/guilds/:id/members/:id/roles/:id' } as APIRequest);
  meter.onPatreonRequest({
    method: 'GET',
    path: '/api/oauth2/v2/campaigns/9/members',
    status: 200,
    attempt: 1,
    durationMs: 1,
    outcome: 'ok',
    errorKind: null,
  });
  now = 3100;
  expect(meter.read()).toEqual({
    calls: { 'discord PUT /guilds/:id/members/:id/roles/:id': 1, 'patreon GET /api/oauth2/v2/campaigns/:id/members': 1 },
    rateLimitWaitMs: 1600,
  });
});
