import { DAY } from '../../src/shared/clock';
import { type World, createWorld } from '../support/world';
import { type Instance, inboxRows, jobRows, metricValue, startInstance } from '../app/webhooks/harness';

/**
 * Attack: send a validly signed delivery again, as often as one likes, or an old one after the
 * service's reads start failing. Refusals: a body seen within 7 days is acknowledged (2xx) and
 * dropped without a read of the service; a payload used when the read fails may keep or remove
 * roles, never grant one.
 */

let world: World;
let instance: Instance;
let webhookId: string;

beforeAll(async () => {
  world = await createWorld();
}, 60_000);
afterAll(() => world.close());
beforeEach(async () => {
  await world.reset();
  world.patreon.clearDeliveries();
  world.patreon.clearFaults();
  instance = await startInstance(world);
  await instance.registration.ensure(world.campaignId);
  webhookId = world.patreon.webhooks().find((w) => w.uri === instance.webhookUrl)!.id;
});
afterEach(() => instance.close());

const memberReads = () => world.patreon.requests().filter((r) => r.path.startsWith('/api/oauth2/v2/members/'));
const hasGold = (discordUserId: string) => world.discord.sandbox.memberRoles(world.guildId, discordUserId).includes(world.roles.gold);

function setGold(patreonUserId: string, active: boolean) {
  return world.patreon.setMembership(
    patreonUserId,
    world.campaignId,
    active
      ? { patronStatus: 'active_patron', tierIds: [world.tiers.gold], lastChargeDate: world.clock.now(), lastChargeStatus: 'Paid' }
      : { patronStatus: 'former_patron', tierIds: [] },
  );
}

test('1,000 replays of one delivery make one service read, a bounded number of inbox rows and one grant', async () => {
  const patron = await world.addLinkedPatron({ tier: 'bronze' });
  setGold(patron.patreonUserId, true);
  await instance.idle();
  expect(hasGold(patron.discordUserId)).toBe(true);
  const [original] = world.patreon.deliveries().filter((d) => d.webhookId === webhookId);
  const readsBefore = memberReads().length;
  expect(readsBefore).toBe(1);

  const statuses = new Set<number | null>();
  for (let i = 0; i < 1000; i += 50) {
    const batch = await Promise.all(Array.from({ length: 50 }, () => world.patreon.redeliver(original!.id)));
    for (const r of batch) statuses.add(r.status);
  }
  await instance.idle();
  expect([...statuses]).toEqual([200]);
  expect(memberReads()).toHaveLength(1);
  // A replay re-arms the row holding its bytes; it adds a row only while every copy is being
  // worked, so the rows are bounded by the copies in flight at once (here batches of 50), not by
  // the 1,000 replays.
  const rows = (await inboxRows(world)).length;
  expect(rows).toBeGreaterThanOrEqual(1);
  expect(rows).toBeLessThanOrEqual(50);
  // Each replay is accepted (answered 200 and recorded against the one row), none read again.
  expect(await metricValue(instance.metrics, 'tierlink_webhook_deliveries_total', { result: 'accepted' })).toBe(1001);
  const puts = world.discord.sandbox.requests().filter((r) => r.route === 'PUT /guilds/:g/members/:u/roles/:r');
  expect(puts).toHaveLength(1);
}, 120_000);

test('a replay under another X-Patreon-Event (the header is not signed) is still a replay', async () => {
  const patron = await world.addLinkedPatron({ tier: 'bronze' });
  setGold(patron.patreonUserId, true);
  await instance.idle();
  const [original] = world.patreon.deliveries().filter((d) => d.webhookId === webhookId);
  const replay = await world.patreon.deliverRaw({ webhookId, trigger: 'members:delete', body: original!.body });
  expect(replay.status).toBe(200);
  await instance.idle();
  expect(await inboxRows(world)).toHaveLength(1);
  expect(hasGold(patron.discordUserId)).toBe(true);
});

test('while the service’s reads fail, an old active-patron payload replayed after the window grants nothing to a former patron', async () => {
  const patron = await world.addLinkedPatron({ tier: 'bronze' });
  setGold(patron.patreonUserId, true);
  await instance.idle();
  const [active] = world.patreon.deliveries().filter((d) => d.webhookId === webhookId);
  setGold(patron.patreonUserId, false);
  await instance.idle();
  expect(hasGold(patron.discordUserId)).toBe(false);

  // Eight days later (the replay window is 7), the reads fail and the old payload comes back.
  world.clock.advance(8 * DAY);
  world.patreon.injectFault({ method: 'GET', path: /^\/api\/oauth2\/v2\/members\//, status: 503, times: Infinity });
  const replay = await world.patreon.redeliver(active!.id);
  expect(replay.status).toBe(200);
  await instance.idle();
  expect((await inboxRows(world)).at(-1)).toMatchObject({ status: 'done' });
  expect(await world.repos.snapshots.get('patreon', world.campaignId, patron.memberId)).toMatchObject({
    readBy: 'webhook-payload',
    patronStatus: 'active_patron',
  });
  expect(hasGold(patron.discordUserId)).toBe(false);
  expect(world.discord.sandbox.requests().filter((r) => r.route === 'PUT /guilds/:g/members/:u/roles/:r')).toHaveLength(1);
  // A re-check is queued; once reads work, it confirms what the service says: former, no role.
  expect((await jobRows(world)).map((j) => j.status)).toEqual(['pending']);
  world.patreon.clearFaults();
  world.clock.advance(60 * 60_000);
  expect(await instance.jobs.worker.sweep()).toBe(1);
  expect(await world.repos.snapshots.get('patreon', world.campaignId, patron.memberId)).toMatchObject({
    readBy: 'webhook',
    patronStatus: 'former_patron',
  });
  expect(hasGold(patron.discordUserId)).toBe(false);
});
