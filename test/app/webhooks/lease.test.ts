import { sql } from 'drizzle-orm';
import { queryRows } from '../../../src/edges/outbound/store/database';
import { MINUTE } from '../../../src/shared/clock';
import { eventually } from '../../support/eventually';
import { type World, createWorld } from '../../support/world';
import { type Instance, inboxRows, roleWrites, startInstance } from './harness';

/**
 * The lease on a delivery being worked is renewed while the work waits (here on a Discord 429), so
 * a second instance never claims it however long the wait: one delivery, one claim, one grant.
 */

let world: World;
const instances: Instance[] = [];

beforeAll(async () => {
  world = await createWorld();
});
afterAll(async () => {
  for (const i of instances) await i.close();
  await world.close();
});

const ROLE_ROUTE = '/guilds/:g/members/:u/roles/:r';

/** Until when the one delivery in the inbox is leased to the instance working it. */
async function leaseUntil(): Promise<Date | null> {
  const [row] = await queryRows<{ locked_until: Date | string | null }>(world.db.database.db, sql`select locked_until from webhook_inbox`);
  return row?.locked_until ? new Date(row.locked_until) : null;
}

test('a delivery that waits on a Discord rate limit longer than its lease is not claimed by a second instance', async () => {
  const first = await startInstance(world, { lockMs: 2 * MINUTE, renewEveryMs: 25 });
  instances.push(first);
  expect(['registered', 'updated', 'already-registered']).toContain((await first.registration.ensure(world.campaignId)).state);
  const patron = world.addPatron({ tier: 'bronze' });
  await world.repos.links.linkOauth('patreon', patron.discordUserId, patron.patreonUserId, world.clock.now());
  // Discord answers the grant with a 429: the bot waits 2 s before it sends the grant again.
  world.discord.sandbox.injectFault({ method: 'PUT', route: ROLE_ROUTE, status: 429, retryAfterSeconds: 2 });
  world.patreon.setMembership(patron.patreonUserId, world.campaignId, { tierIds: [world.tiers.gold] });
  await world.patreon.flushDeliveries();
  for (let i = 0; i < 400 && !roleWrites(world).some((w) => w.status === 429); i++) await new Promise((r) => setTimeout(r, 5));
  expect(roleWrites(world).map((w) => w.status)).toEqual([429]);

  // Ten minutes pass on the instances' clock while the first one waits: its lease would have run out.
  world.clock.advance(10 * MINUTE);
  // The renewal (every 25 ms) moves the lease past the new time.
  await eventually('the lease renewed', async () => ((await leaseUntil())?.getTime() ?? 0) > world.clock.now().getTime(), 10_000, 5);
  const second = await startInstance(world, { lockMs: 2 * MINUTE, renewEveryMs: 25 });
  instances.push(second);
  expect(await second.processor.sweep()).toBe(0);

  await first.idle();
  expect(roleWrites(world).map((w) => w.status)).toEqual([429, 204]);
  expect(await inboxRows(world)).toMatchObject([{ status: 'done', attempts: 1 }]);
  expect(world.discord.sandbox.memberRoles(world.guildId, patron.discordUserId)).toContain(world.roles.gold);
});

test('work a stopping instance gives up on is no longer renewed: once its lease runs out, another instance takes it', async () => {
  world.discord.sandbox.clearFaults();
  await world.reset();
  world.patreon.clearDeliveries();
  const first = await startInstance(world, { lockMs: 2 * MINUTE, renewEveryMs: 25 });
  instances.push(first);
  await first.registration.ensure(world.campaignId);
  const patron = world.addPatron({ tier: 'bronze' });
  await world.repos.links.linkOauth('patreon', patron.discordUserId, patron.patreonUserId, world.clock.now());
  const hold = world.discord.sandbox.holdRequests({ method: 'PUT', route: ROLE_ROUTE, point: 'before' });
  world.patreon.setMembership(patron.patreonUserId, world.campaignId, { tierIds: [world.tiers.gold] });
  await world.patreon.flushDeliveries();
  await hold.waitForHeld();
  expect(await first.processor.stop(100)).toBe(false); // gives up on the delivery waiting for Discord

  world.clock.advance(10 * MINUTE);
  await new Promise((r) => setTimeout(r, 200)); // a renewal, were one still running, would have fired
  const second = await startInstance(world, { lockMs: 2 * MINUTE, renewEveryMs: 25 });
  instances.push(second);
  const taken = second.processor.sweep();
  hold.release();
  expect(await taken).toBe(1);
  await second.idle();
  expect(world.discord.sandbox.memberRoles(world.guildId, patron.discordUserId)).toContain(world.roles.gold);
});
