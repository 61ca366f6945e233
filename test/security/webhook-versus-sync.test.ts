import { type World, createWorld } from '../support/world';
import { wireSync } from '../support/sync-kit';
import { type Instance, startInstance } from '../app/webhooks/harness';

/**
 * Attack (on the ledger rule, docs/decisions.md §3): a webhook, worked by another instance, arrives
 * while the full sync's grant is on its way to Discord. The member lacks the role yet; the ledger
 * holds the sync's intent. Were the webhook to drop that row, the grant would then land as a paid
 * role Tierlink no longer knows it gave, never to be removed. Refusal: a row that young is kept,
 * and once the grant lands the next pass removes the role.
 */

const ROLE_ROUTE = '/guilds/:g/members/:u/roles/:r';
let world: World;
let webhooks: Instance;

beforeAll(async () => {
  world = await createWorld();
  webhooks = await startInstance(world);
  await webhooks.registration.ensure(world.campaignId);
}, 60_000);
afterAll(async () => {
  await webhooks.close();
  await world.close();
});

test('a pledge that ends while the sync’s grant is in flight ends with the role removed, not orphaned', async () => {
  const patron = await world.addLinkedPatron({ tier: 'gold' });
  const sync = wireSync(world); // another instance
  const hold = world.discord.sandbox.holdRequests({ method: 'PUT', route: ROLE_ROUTE, point: 'before' });
  const running = sync.fullSync.run({ trigger: 'schedule' });
  await hold.waitForHeld();
  expect((await world.repos.ledger.forUser(world.guildId, patron.discordUserId)).map((r) => r.roleId)).toEqual([world.roles.gold]);

  // The pledge ends; the webhook instance re-reads the member (former) while the grant is on its way.
  world.patreon.setMembership(patron.patreonUserId, world.campaignId, { patronStatus: 'former_patron', tierIds: [] });
  await webhooks.idle();
  expect(await world.repos.snapshots.get('patreon', world.campaignId, patron.memberId)).toMatchObject({ patronStatus: 'former_patron' });
  expect((await world.repos.ledger.forUser(world.guildId, patron.discordUserId)).map((r) => r.roleId)).toEqual([world.roles.gold]);

  hold.release();
  await running;
  expect(world.discord.sandbox.memberRoles(world.guildId, patron.discordUserId)).toContain(world.roles.gold);

  // The next pass knows the role is Tierlink's: it goes.
  await sync.fullSync.run({ trigger: 'schedule' });
  expect(world.discord.sandbox.memberRoles(world.guildId, patron.discordUserId)).not.toContain(world.roles.gold);
  expect(await world.repos.ledger.forUser(world.guildId, patron.discordUserId)).toEqual([]);
});
