import { WEBHOOK_TRIGGERS, unreachableFrom } from '../../../src/app/webhooks/registration';
import { createSecretBox } from '../../../src/edges/outbound/store/secret-box';
import { webhookSecretSeal } from '../../../src/edges/outbound/store/repositories/webhook-repository';
import { webhooks as webhooksTable } from '../../../src/edges/outbound/store/schema/webhooks';
import { creatorCredentials } from '../../../src/edges/outbound/store/schema/campaigns';
import { MEMBER_TRIGGERS } from '../../../src/edges/outbound/patreon';
import { eq } from 'drizzle-orm';
import { SECRET_KEY, type World, createWorld } from '../../support/world';
import { type Instance, memoryLogger, metricValue, startInstance } from './harness';

let world: World;
let instance: Instance;
let log: ReturnType<typeof memoryLogger>;
/** A campaign of the connected creator that has no webhook yet (the stand-in outlives world.reset()). */
let campaignId: string;

beforeAll(async () => {
  world = await createWorld();
});
afterAll(() => world.close());

beforeEach(async () => {
  await world.reset();
  world.patreon.clearFaults();
  campaignId = world.patreon.createCampaign({ vanity: 'second' }).id;
  await world.repos.campaigns.upsert({
    id: campaignId,
    creatorUserId: world.patreon.creatorUserId,
    name: 'Second',
    url: null,
    patronCount: 0,
  });
  log = memoryLogger('info');
  instance = await startInstance(world, { logger: log.logger });
});
afterEach(() => instance.close());

const webhooksOf = (id: string) => world.patreon.webhooks().filter((w) => w.campaignId === id && w.clientId === world.patreon.clientId);
const webhookCalls = () => world.patreon.requests().filter((r) => r.path.startsWith('/api/oauth2/v2/webhooks'));

test('a campaign without a webhook gets one with every member trigger at $PUBLIC_URL/webhooks/patreon; its secret is stored sealed', async () => {
  const result = await instance.registration.ensure(campaignId);
  expect(result).toMatchObject({ state: 'registered', healed: false, webhook: { uri: `${instance.url}/webhooks/patreon`, paused: false } });
  expect(result.webhook).not.toHaveProperty('secret');
  const [webhook] = webhooksOf(campaignId);
  expect(webhook).toMatchObject({ uri: instance.webhookUrl, triggers: [...WEBHOOK_TRIGGERS] });
  expect(webhookCalls().map((r) => r.method)).toEqual(['GET', 'POST']);
  const rows = await world.db.database.db.query.webhooks.findMany();
  expect(rows).toHaveLength(1);
  expect(rows[0]!.secretEnc).not.toContain(webhook!.secret);
  expect(createSecretBox(SECRET_KEY).decrypt(rows[0]!.secretEnc, webhookSecretSeal(rows[0]!.id))).toBe(webhook!.secret);
  expect(await instance.webhooks.secrets()).toEqual([{ webhookId: webhook!.id, campaignId, secret: webhook!.secret }]);
  expect(JSON.stringify(log.lines)).not.toContain(webhook!.secret);
});

test('a webhook in place is left alone: one GET, no write', async () => {
  await instance.registration.ensure(campaignId);
  world.patreon.resetRequests();
  expect(await instance.registration.ensure(campaignId)).toMatchObject({ state: 'already-registered', healed: false });
  expect(webhookCalls().map((r) => r.method)).toEqual(['GET']);
  expect(webhooksOf(campaignId)).toHaveLength(1);
});

test('binding many servers to one campaign checks its webhook once: a check under a minute old, by any instance, stands', async () => {
  await instance.registration.ensure(campaignId);
  world.patreon.resetRequests();
  // Thirty servers bound from the environment, as each instance does at start: one listing would
  // cost thirty of Patreon's 100 requests a minute per token, and delay every member read behind them.
  for (let i = 0; i < 30; i++) {
    expect(await instance.registration.ensure(campaignId, { freshWithinMs: 60_000 })).toMatchObject({ state: 'already-registered' });
  }
  expect(webhookCalls()).toHaveLength(0);
  // A check older than the window, or one asked without it (the 15-minute round, /doctor), asks Patreon.
  world.clock.advance(61_000);
  await instance.registration.ensure(campaignId, { freshWithinMs: 60_000 });
  await instance.registration.ensure(campaignId);
  expect(webhookCalls().map((r) => r.method)).toEqual(['GET', 'GET']);
});

test('a stored webhook that is paused, failing or at another address is checked whatever its age', async () => {
  await instance.registration.ensure(campaignId);
  const [webhook] = webhooksOf(campaignId);
  world.patreon.pauseWebhook(webhook!.id);
  await world.db.database.db.update(webhooksTable).set({ paused: true });
  world.patreon.resetRequests();
  expect(await instance.registration.ensure(campaignId, { freshWithinMs: 60_000 })).toMatchObject({ healed: true });
  expect(webhookCalls().map((r) => r.method)).toEqual(['GET', 'PATCH']);
});

test('another client’s webhook on the campaign is not ours: it is neither listed nor touched', async () => {
  const other = world.patreon.createClient();
  const res = await fetch(`${world.patreon.url}/api/oauth2/v2/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${other.creatorTokens.accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      data: {
        type: 'webhook',
        attributes: { triggers: ['members:create'], uri: 'http://127.0.0.1:9/else' },
        relationships: { campaign: { data: { type: 'campaign', id: campaignId } } },
      },
    }),
  });
  expect(res.status).toBe(201);
  expect((await instance.registration.ensure(campaignId)).state).toBe('registered');
  expect(world.patreon.webhooks().find((w) => w.clientId === other.clientId)).toMatchObject({
    uri: 'http://127.0.0.1:9/else',
    triggers: ['members:create'],
  });
});

test('a webhook with other triggers is PATCHed to every member trigger', async () => {
  await instance.registration.ensure(campaignId);
  const [webhook] = webhooksOf(campaignId);
  const client = (await world.accounts.clientForCampaign(campaignId))!;
  await client.updateWebhook(webhook!.id, { triggers: ['members:create', 'posts:publish'] });
  world.patreon.resetRequests();
  expect(await instance.registration.ensure(campaignId)).toMatchObject({ state: 'updated', healed: false });
  expect(webhookCalls().map((r) => r.method)).toEqual(['GET', 'PATCH']);
  expect(webhooksOf(campaignId)[0]!.triggers.sort()).toEqual([...WEBHOOK_TRIGGERS].sort());
});

test('a creator who did not let Tierlink read posts gets the member triggers only; granting it later adds posts:publish at the next check', async () => {
  const setScopes = (scopes: string) =>
    world.db.database.db
      .update(creatorCredentials)
      .set({ scopes })
      .where(eq(creatorCredentials.creatorUserId, world.patreon.creatorUserId));
  await setScopes('identity campaigns campaigns.members w:campaigns.webhook');
  expect(await instance.registration.ensure(campaignId)).toMatchObject({ state: 'registered' });
  expect(webhooksOf(campaignId)[0]!.triggers.sort()).toEqual([...MEMBER_TRIGGERS].sort());
  expect(webhooksOf(campaignId)[0]!.triggers).not.toContain('posts:publish');
  // In place as it is: nothing to PATCH while the scope is missing.
  world.patreon.resetRequests();
  expect(await instance.registration.ensure(campaignId)).toMatchObject({ state: 'already-registered' });
  expect(webhookCalls().map((r) => r.method)).toEqual(['GET']);

  await setScopes('identity campaigns campaigns.members w:campaigns.webhook campaigns.posts');
  expect(await instance.registration.ensure(campaignId)).toMatchObject({ state: 'updated' });
  expect(webhooksOf(campaignId)[0]!.triggers.sort()).toEqual([...WEBHOOK_TRIGGERS].sort());
});

test('a paused webhook is un-paused, warned about, counted and a sync queued; the events the service held are processed', async () => {
  await instance.registration.ensure(world.campaignId);
  const webhook = webhooksOf(world.campaignId)[0]!;
  const patron = world.addPatron({ tier: 'bronze' });
  await world.repos.links.linkOauth('patreon', patron.discordUserId, patron.patreonUserId, world.clock.now());
  world.patreon.pauseWebhook(webhook.id);
  world.patreon.setMembership(patron.patreonUserId, world.campaignId, { tierIds: [world.tiers.silver] });
  world.patreon.setMembership(patron.patreonUserId, world.campaignId, { tierIds: [world.tiers.gold] });
  await instance.idle();
  expect(webhooksOf(world.campaignId)[0]).toMatchObject({ paused: true, queued: 2 });
  expect(world.discord.sandbox.memberRoles(world.guildId, patron.discordUserId)).toEqual([]);
  expect((await instance.registration.health(world.campaignId)).paused).toBe(false);

  const result = await instance.registration.ensure(world.campaignId);
  expect(result).toMatchObject({ state: 'already-registered', healed: true, webhook: { paused: false, numConsecutiveTimesFailed: 0 } });
  expect(instance.syncRequests).toEqual([{ campaignId: world.campaignId, reason: expect.any(String) }]);
  expect(await metricValue(instance.metrics, 'tierlink_webhook_unhealthy_total', { state: 'paused' })).toBe(1);
  expect(log.lines.find((l) => l.level === 40 && String(l.msg).includes('paused'))).toMatchObject({ webhookId: webhook.id, paused: true });
  await world.discord.sandbox.waitForMemberRole(world.guildId, patron.discordUserId, world.roles.gold, { present: true });
  await instance.idle();
  expect(webhooksOf(world.campaignId)[0]).toMatchObject({ paused: false, queued: 0 });
  expect(world.discord.sandbox.memberRoles(world.guildId, patron.discordUserId)).toEqual([world.roles.gold]);
});

test('after a 503 a webhook Patreon paused is checked soon, not at the next 15-minute round: un-paused and a sync queued', async () => {
  await instance.registration.ensure(world.campaignId);
  const webhook = webhooksOf(world.campaignId)[0]!;
  // Patreon paused it while the database was away (its deliveries were answered 503).
  world.patreon.pauseWebhook(webhook.id);
  world.patreon.resetRequests();
  // What the receiver's 503 asks for: the database must answer again before the check can run.
  instance.registration.recheckSoon(50);
  instance.registration.recheckSoon(50); // a second 503 plans no second check
  // Un-paused on the service first, then the campaign's sync is asked for: wait for both.
  for (let i = 0; i < 400 && (webhooksOf(world.campaignId)[0]!.paused || instance.syncRequests.length === 0); i++) {
    await new Promise((r) => setTimeout(r, 25));
  }
  expect(webhooksOf(world.campaignId)[0]).toMatchObject({ paused: false });
  expect(instance.syncRequests).toEqual([{ campaignId: world.campaignId, reason: expect.any(String) }]);
  await new Promise((r) => setTimeout(r, 200));
  // One round over the two campaigns: one list of webhooks each, no second round.
  expect(webhookCalls().filter((c) => c.method === 'GET')).toHaveLength(2);
});

test('a failing webhook whose address moved is re-pointed and re-enabled in one PATCH; the held event reaches the new address', async () => {
  await instance.registration.ensure(world.campaignId);
  const patron = world.addPatron({ tier: 'bronze' });
  await world.repos.links.linkOauth('patreon', patron.discordUserId, patron.patreonUserId, world.clock.now());
  await instance.crash();
  world.patreon.setMembership(patron.patreonUserId, world.campaignId, { tierIds: [world.tiers.gold] });
  await world.patreon.flushDeliveries();
  expect(webhooksOf(world.campaignId)[0]).toMatchObject({ paused: false, numConsecutiveTimesFailed: 1, queued: 1 });

  instance = await startInstance(world, { logger: log.logger });
  world.patreon.resetRequests();
  const result = await instance.registration.ensure(world.campaignId);
  expect(result).toMatchObject({ state: 'updated', healed: true, webhook: { uri: instance.webhookUrl } });
  expect(webhookCalls().map((r) => r.method)).toEqual(['GET', 'PATCH']);
  expect(await metricValue(instance.metrics, 'tierlink_webhook_unhealthy_total', { state: 'failing' })).toBe(1);
  expect(instance.syncRequests).toHaveLength(1);
  await world.discord.sandbox.waitForMemberRole(world.guildId, patron.discordUserId, world.roles.gold, { present: true });
});

test('with PATREON_WEBHOOK_SECRET nothing is created or re-pointed', async () => {
  const manual = await startInstance(world, { staticSecret: 'hand-registered-secret' });
  try {
    world.patreon.resetRequests();
    expect(await manual.registration.ensure(campaignId)).toMatchObject({ state: 'manual-secret', webhook: null });
    expect(webhookCalls().map((r) => r.method)).toEqual(['GET']);
    expect(webhooksOf(campaignId)).toEqual([]);
    expect(await manual.registration.health(campaignId)).toMatchObject({ exists: false, manualSecret: true, lastState: 'manual-secret' });
  } finally {
    await manual.close();
  }
});

test('a PUBLIC_URL only this machine reaches is never registered with a service elsewhere: a failed check that says why', async () => {
  const remote = await startInstance(world, { serviceBaseUrl: 'https://www.patreon.com', logger: log.logger });
  try {
    world.patreon.resetRequests();
    const result = await remote.registration.ensure(campaignId);
    expect(result).toMatchObject({ state: 'failed', webhook: null });
    expect(result.detail).toMatch(
      /^PUBLIC_URL http:\/\/127\.0\.0\.1:\d+ is an address only this machine reaches, so www\.patreon\.com could not deliver/,
    );
    expect(webhookCalls()).toEqual([]);
    expect(webhooksOf(campaignId)).toEqual([]);
    expect(await remote.registration.health(campaignId)).toMatchObject({ lastState: 'failed' });
  } finally {
    await remote.close();
  }
});

test.each([
  ['http://localhost:3000', 'https://www.patreon.com', true],
  ['http://127.0.0.1:3000', 'https://www.patreon.com', true],
  ['http://[::1]:3000', 'https://www.patreon.com', true],
  ['http://tierlink.localhost', 'https://www.patreon.com', true],
  ['https://tierlink.example.com', 'https://www.patreon.com', false],
  ['http://192.168.1.20:3000', 'https://www.patreon.com', false],
  ['http://localhost:3000', 'http://127.0.0.1:4010', false],
])('unreachableFrom: Tierlink at %s, the service at %s → %s', (publicUrl, serviceBaseUrl, refused) => {
  expect(unreachableFrom(serviceBaseUrl, `${publicUrl}/webhooks/patreon`) !== null).toBe(refused);
});

test('health reports what the last check found; a failed check is a value, not a throw', async () => {
  await instance.registration.ensure(campaignId);
  const webhook = webhooksOf(campaignId)[0]!;
  expect(await instance.registration.health(campaignId)).toEqual({
    campaignId,
    exists: true,
    webhookId: webhook.id,
    uri: instance.webhookUrl,
    paused: false,
    numConsecutiveTimesFailed: 0,
    lastAttemptedAt: null,
    checkedAt: world.clock.now(),
    lastState: 'registered',
    lastDetail: expect.stringContaining(webhook.id),
    manualSecret: false,
  });
  world.patreon.injectFault({ method: 'GET', path: '/api/oauth2/v2/webhooks', status: 500, times: Infinity });
  const failed = await instance.registration.ensure(campaignId);
  expect(failed).toMatchObject({ state: 'failed', healed: false, webhook: null, detail: expect.stringContaining('500') });
  expect(await instance.registration.health(campaignId)).toMatchObject({ exists: true, lastState: 'failed' });
  expect(await instance.registration.ensure('no-such-campaign')).toMatchObject({
    state: 'failed',
    detail: expect.stringContaining('no connected creator'),
  });
});

test('start() checks every campaign at once and then on its interval; stop() waits for the round in flight', async () => {
  instance.registration.start(60_000);
  await instance.registration.stop();
  expect(webhooksOf(campaignId)).toHaveLength(1);
  expect(webhooksOf(world.campaignId)[0]!.uri).toBe(instance.webhookUrl);
  expect((await instance.registration.health(campaignId)).lastState).toBe('registered');
});
