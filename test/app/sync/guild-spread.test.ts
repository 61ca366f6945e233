import { GUILD_SYNC_JOB } from '../../../src/app/sync/guild-spread';
import { isSkipped } from '../../../src/app/sync/sync-scheduler';
import { type World, createWorld } from '../../support/world';

let world: World;
beforeAll(async () => {
  world = await createWorld();
});
afterAll(() => world.close());

/** The instance's services as the composition root builds them: the instance table is its count of live instances. */
function instanceSync() {
  const { instances: registry, jobQueue: jobs, sync } = world.services;
  return { registry, jobs, sync };
}

test('with several live instances the nightly sync reads each campaign once, then hands each server to the job workers, which sync it as the run would', async () => {
  await world.reset();
  const second = world.discord.sandbox.createGuild({ name: 'Second Club' }).guildId;
  await world.repos.guilds.ensure(second, 'Second Club');
  await world.repos.guilds.bind(second, world.campaignId);
  // Linked, entitled to Gold, and without the role: what the nightly sync heals.
  const patron = await world.addLinkedPatron({ tier: 'gold' });
  expect(world.discord.sandbox.memberRoles(world.guildId, patron.discordUserId)).toEqual([]);

  const a = instanceSync();
  await a.registry.heartbeat({ id: 'a', host: 'h', pid: 1 }, { shards: [], connected: [] }, false);
  await a.registry.heartbeat({ id: 'b', host: 'h', pid: 2 }, { shards: [], connected: [] }, false);
  world.patreon.resetRequests();
  const outcome = await a.sync.scheduler.runScheduled();
  if (outcome === null || isSkipped(outcome)) throw new Error('the nightly sync did not run');
  expect(outcome.spreadGuilds).toBe(2);
  expect(outcome.guilds).toEqual([]);
  expect(outcome.campaigns.map((c) => [c.campaignId, c.complete])).toEqual([[world.campaignId, true]]);
  expect(world.discord.sandbox.memberRoles(world.guildId, patron.discordUserId)).toEqual([]);

  // Each server is synced by whichever instance's job worker takes it.
  const runsBefore = (await world.repos.syncRuns.all()).length;
  await a.jobs.worker.sweep();
  expect(world.discord.sandbox.memberRoles(world.guildId, patron.discordUserId)).toEqual([world.roles.gold]);
  const runs = (await world.repos.syncRuns.all()).slice(runsBefore);
  expect(runs.map((r) => [r.guildId, r.trigger, r.status]).sort()).toEqual(
    [
      [world.guildId, 'schedule', 'ok'],
      [second, 'schedule', 'ok'],
    ].sort(),
  );
  // The campaign was read once, by the run that handed the servers over.
  expect(world.patreon.requests().filter((r) => r.path.includes('/members')).length).toBeGreaterThan(0);
  const jobs = await world.db.database.db.execute(`select status from jobs where kind = '${GUILD_SYNC_JOB}'` as never);
  expect((jobs as unknown as { rows: Array<{ status: string }> }).rows.map((r) => r.status)).toEqual(['done', 'done']);
});

test('alone (one live instance) or for one server, the run syncs every server itself', async () => {
  await world.reset();
  const second = world.discord.sandbox.createGuild({ name: 'Third Club' }).guildId;
  await world.repos.guilds.ensure(second, 'Third Club');
  await world.repos.guilds.bind(second, world.campaignId);
  const a = instanceSync();
  await a.registry.heartbeat({ id: 'a', host: 'h', pid: 1 }, { shards: [], connected: [] }, false);
  const outcome = await a.sync.scheduler.runScheduled();
  if (outcome === null || isSkipped(outcome)) throw new Error('the nightly sync did not run');
  expect(outcome.spreadGuilds).toBeUndefined();
  expect(outcome.guilds.map((g) => g.guildId).sort()).toEqual([world.guildId, second].sort());
});
