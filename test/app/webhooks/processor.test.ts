import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInboxQueue } from '../../../src/edges/outbound/store/durable-queue';
import { MEMBER_RECHECK_JOB } from '../../../src/app/webhooks/member-refresh';
import type { DeliveryParser } from '../../../src/app/webhooks/source-delivery';
import { parsePatreonDelivery } from '../../../src/edges/outbound/patreon/delivery-parser';
import * as memberPayload from '../../../src/edges/outbound/patreon/member-payload';
import { HOUR, MINUTE } from '../../../src/shared/clock';
import { type World, createWorld } from '../../support/world';
import { type Instance, inboxRows, jobRows, metricValue, roleWrites, startInstance } from './harness';

let world: World;
let instance: Instance;
let webhookId: string;

/**
 * A second client's webhook on the same campaign, answered by a bare server that keeps every body:
 * it sees each event as the service rendered it, so a test can replay events to Tierlink in any order.
 */
let capture: { server: Server; events: Array<{ trigger: string; body: string }> };

beforeAll(async () => {
  world = await createWorld();
  const events: Array<{ trigger: string; body: string }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      events.push({ trigger: String(req.headers['x-patreon-event']), body });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  capture = { server, events };
  const other = world.patreon.createClient();
  const res = await fetch(`${world.patreon.url}/api/oauth2/v2/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${other.creatorTokens.accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      data: {
        type: 'webhook',
        attributes: {
          triggers: ['members:create', 'members:update', 'members:delete'],
          uri: `http://127.0.0.1:${(server.address() as AddressInfo).port}/capture`,
        },
        relationships: { campaign: { data: { type: 'campaign', id: world.campaignId } } },
      },
    }),
  });
  expect(res.status).toBe(201);
});
afterAll(async () => {
  await new Promise<void>((resolve) => capture.server.close(() => resolve()));
  await world.close();
});

beforeEach(async () => {
  await world.reset();
  world.patreon.clearDeliveries();
  world.patreon.clearFaults();
  capture.events.length = 0;
  instance = await startInstance(world);
  expect(['registered', 'updated', 'already-registered']).toContain((await instance.registration.ensure(world.campaignId)).state);
  webhookId = world.patreon.webhooks().find((w) => w.uri === instance.webhookUrl)!.id;
  instance.syncRequests.length = 0;
});
afterEach(() => instance.close());

/** A patron of the campaign (Bronze unless told), linked through /link, not yet known to Tierlink. */
async function linkedPatron(tier: 'bronze' | 'silver' | 'gold' = 'bronze') {
  const patron = world.addPatron({ tier });
  await world.repos.links.linkOauth('patreon', patron.discordUserId, patron.patreonUserId, world.clock.now());
  return patron;
}

const rolesOf = (discordUserId: string) => world.discord.sandbox.memberRoles(world.guildId, discordUserId);
const tierRolesOf = (discordUserId: string) =>
  rolesOf(discordUserId)
    .filter((r) => Object.values(world.roles).includes(r) && r !== world.roles.staff)
    .sort();
const puts = () => roleWrites(world).filter((w) => w.method === 'PUT');
const memberReads = () => world.patreon.requests().filter((r) => r.path.startsWith('/api/oauth2/v2/members/'));

function setTier(patreonUserId: string, tier: 'bronze' | 'silver' | 'gold' | null, options: { deliver?: boolean } = {}) {
  return world.patreon.setMembership(
    patreonUserId,
    world.campaignId,
    tier
      ? { patronStatus: 'active_patron', tierIds: [world.tiers[tier]], lastChargeStatus: 'Paid', lastChargeDate: world.clock.now() }
      : { patronStatus: 'former_patron', tierIds: [] },
    options,
  );
}

test('a pledge change reaches the roles through the re-read: snapshot from the service, role in every guild the campaign serves', async () => {
  const patron = await linkedPatron('bronze');
  setTier(patron.patreonUserId, 'gold');
  await instance.idle();
  expect(tierRolesOf(patron.discordUserId)).toEqual([world.roles.gold]);
  expect(memberReads()).toHaveLength(1);
  expect(memberReads()[0]!.query).toMatchObject({ include: expect.stringContaining('currently_entitled_tiers') });
  expect(await world.repos.snapshots.get('patreon', world.campaignId, patron.memberId)).toMatchObject({
    readBy: 'webhook',
    entitledTierIds: [world.tiers.gold],
  });
  expect(await world.repos.ledger.recentAudit(world.guildId, patron.discordUserId)).toMatchObject([
    { action: 'add', outcome: 'applied', trigger: 'webhook' },
  ]);
  expect((await inboxRows(world)).map((r) => r.status)).toEqual(['done']);
  expect(await metricValue(instance.metrics, 'tierlink_webhook_processing_seconds')).toBe(1);
});

test('each delivery is parsed once, by the adapter, on every path: read, stored read stands, re-read failed', async () => {
  await instance.close();
  const parses: string[] = [];
  const counting: DeliveryParser = (delivery) => {
    parses.push(delivery.trigger ?? '');
    return parsePatreonDelivery(delivery);
  };
  instance = await startInstance(world, { parseDelivery: counting });
  expect(['registered', 'updated']).toContain((await instance.registration.ensure(world.campaignId)).state);
  const memberParses = jest.spyOn(memberPayload, 'memberFromPayload');
  try {
    const patron = await linkedPatron('bronze');
    const delivered = () => world.patreon.deliveries().filter((d) => d.uri === instance.webhookUrl).length;
    setTier(patron.patreonUserId, 'gold'); // read, stored, applied
    await instance.idle();
    world.clock.advance(2 * 24 * HOUR);
    setTier(patron.patreonUserId, 'gold'); // the charge: the stored read stands
    await instance.idle();
    world.patreon.injectFault({ method: 'GET', path: /^\/api\/oauth2\/v2\/members\//, status: 503, times: Infinity });
    setTier(patron.patreonUserId, 'silver'); // the re-read fails: the delivered state is stored
    await instance.idle();
    expect((await inboxRows(world)).map((r) => r.status)).toEqual(['done', 'done', 'done']);
    expect(await world.repos.snapshots.get('patreon', world.campaignId, patron.memberId)).toMatchObject({ readBy: 'webhook-payload' });
    expect(delivered()).toBe(3);
    expect(parses).toHaveLength(3);
    expect(memberParses).toHaveBeenCalledTimes(3);
  } finally {
    memberParses.mockRestore();
  }
});

test('a tier created after the catalog was read grants its role on the first delivery (its data comes with the re-read)', async () => {
  const patron = await linkedPatron('bronze');
  const role = world.discord.sandbox.createRole(world.guildId, { name: 'Diamond', position: 1 }).id;
  const diamond = world.patreon.createTier(world.campaignId, { title: 'Diamond', amountCents: 5000, chatRoleIds: [role] }).id;
  world.patreon.resetRequests();
  world.patreon.setMembership(patron.patreonUserId, world.campaignId, {
    patronStatus: 'active_patron',
    tierIds: [diamond],
    lastChargeStatus: 'Paid',
    lastChargeDate: world.clock.now(),
  });
  await instance.idle();
  expect(rolesOf(patron.discordUserId)).toContain(role);
  expect(world.patreon.requests().map((r) => r.path)).toEqual([`/api/oauth2/v2/members/${patron.memberId}`]);
});

test('a member whose service profile carries their Discord id is linked from it and gets the role', async () => {
  const patron = world.addPatron({ tier: 'silver', socialDiscord: true });
  setTier(patron.patreonUserId, 'silver');
  await instance.idle();
  expect(await world.repos.links.byDiscordUser(patron.discordUserId, 'patreon')).toMatchObject({
    externalId: patron.patreonUserId,
    method: 'social',
  });
  expect(tierRolesOf(patron.discordUserId)).toEqual([world.roles.silver]);
});

test('a redelivered delivery costs no read and changes nothing: its state equals the stored read; it adds a row only while its own is being worked', async () => {
  const patron = await linkedPatron('bronze');
  setTier(patron.patreonUserId, 'gold');
  await instance.idle();
  const reads = memberReads().length;
  const [first] = world.patreon.deliveries().filter((d) => d.webhookId === webhookId);
  for (let i = 0; i < 3; i++) expect((await world.patreon.redeliver(first!.id)).status).toBe(200);
  await instance.idle();
  // Each replay re-arms the row with those bytes; one that comes while every copy is being worked
  // adds one more: the rows are bounded by the copies in flight, never more than one per replay.
  const rows = await inboxRows(world);
  expect(rows.length).toBeLessThanOrEqual(4);
  expect(rows.every((r) => r.status === 'done')).toBe(true);
  expect(memberReads()).toHaveLength(reads);
  expect(puts()).toHaveLength(1);
  expect(tierRolesOf(patron.discordUserId)).toEqual([world.roles.gold]);
});

test('a charge that changes no role costs no read: the delivery equals the stored read for roles', async () => {
  const patron = await linkedPatron('gold');
  setTier(patron.patreonUserId, 'gold');
  await instance.idle();
  const reads = memberReads().length;
  world.clock.advance(2 * 24 * HOUR);
  // The monthly charge: a new charge date, the same tier and standing.
  setTier(patron.patreonUserId, 'gold');
  await instance.idle();
  expect(world.patreon.deliveries().filter((d) => d.webhookId === webhookId)).toHaveLength(2);
  expect(memberReads()).toHaveLength(reads);
  expect(puts()).toHaveLength(1);
  expect((await inboxRows(world)).map((r) => r.status)).toEqual(['done', 'done']);
  // …while a delivery that changes the tier is read first, then acted on.
  setTier(patron.patreonUserId, 'silver');
  await instance.idle();
  expect(memberReads()).toHaveLength(reads + 1);
  expect(tierRolesOf(patron.discordUserId)).toEqual([world.roles.silver]);
});

test('a tier and back within the replay window: the second change, byte for byte the first delivery, is read and applied', async () => {
  const patron = await linkedPatron('bronze');
  setTier(patron.patreonUserId, 'bronze');
  await instance.idle();
  const bronzeDelivery = world.patreon
    .deliveries()
    .filter((d) => d.webhookId === webhookId)
    .at(-1);
  setTier(patron.patreonUserId, 'gold');
  await instance.idle();
  expect(tierRolesOf(patron.discordUserId)).toEqual([world.roles.gold]);
  const reads = memberReads().length;
  // Back to Bronze: Patreon renders the same bytes as the first delivery (same charge date, same tier).
  setTier(patron.patreonUserId, 'bronze', { deliver: false });
  expect((await world.patreon.redeliver(bronzeDelivery!.id)).status).toBe(200);
  await instance.idle();
  expect(memberReads()).toHaveLength(reads + 1);
  expect(tierRolesOf(patron.discordUserId)).toEqual([world.roles.bronze]);
});

test('replays cost at most one read per member per window; the rest are confirmed by one re-check at its end, none dropped', async () => {
  await instance.close();
  instance = await startInstance(world, { readWindowMs: 60_000 });
  expect(['registered', 'updated']).toContain((await instance.registration.ensure(world.campaignId)).state);
  webhookId = world.patreon.webhooks().find((w) => w.uri === instance.webhookUrl)!.id;
  const patron = await linkedPatron('bronze');
  setTier(patron.patreonUserId, 'bronze');
  await instance.idle();
  const bronzeDelivery = world.patreon
    .deliveries()
    .filter((d) => d.webhookId === webhookId)
    .at(-1);
  world.clock.advance(2 * MINUTE);
  setTier(patron.patreonUserId, 'gold');
  await instance.idle();
  world.clock.advance(2 * MINUTE);
  const reads = memberReads().length;
  // An old delivery replayed again and again: it differs from the stored Gold, so it may change roles.
  for (let i = 0; i < 4; i++) {
    expect((await world.patreon.redeliver(bronzeDelivery!.id)).status).toBe(200);
    await instance.idle();
  }
  expect(memberReads()).toHaveLength(reads + 1);
  expect(tierRolesOf(patron.discordUserId)).toEqual([world.roles.gold]);
  expect((await jobRows(world)).filter((j) => j.kind === MEMBER_RECHECK_JOB && j.status === 'pending')).toHaveLength(1);
});

test('deliveries for one member that arrive together coalesce: one read in flight and at most one behind it', async () => {
  const patron = await linkedPatron('bronze');
  setTier(patron.patreonUserId, 'bronze');
  await instance.idle();
  const bronzeDelivery = world.patreon
    .deliveries()
    .filter((d) => d.webhookId === webhookId)
    .at(-1);
  setTier(patron.patreonUserId, 'gold', { deliver: false });
  const reads = memberReads().length;
  const doc = JSON.parse(bronzeDelivery!.body) as { data: { attributes: Record<string, unknown>; relationships: Record<string, unknown> } };
  doc.data.relationships.currently_entitled_tiers = { data: [{ type: 'tier', id: world.tiers.gold }] };
  const answers = await Promise.all(
    Array.from({ length: 8 }, (_, i) => {
      doc.data.attributes.note = `copy ${i}`;
      return world.patreon.deliverRaw({ webhookId, trigger: 'members:update', body: JSON.stringify(doc) });
    }),
  );
  expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
  await instance.idle();
  expect(memberReads().length - reads).toBeLessThanOrEqual(2);
  expect(tierRolesOf(patron.discordUserId)).toEqual([world.roles.gold]);
});

test.each([
  { name: 'upgrade then cancel, delivered cancel then upgrade', changes: ['gold', null] as const, expected: [] as string[] },
  { name: 'cancel then upgrade, delivered upgrade then cancel', changes: [null, 'gold'] as const, expected: ['gold'] },
])('$name: the roles match what the service reports now, also after the held events replay', async ({ changes, expected }) => {
  const patron = await linkedPatron('bronze');
  setTier(patron.patreonUserId, 'bronze');
  await instance.idle();
  expect(tierRolesOf(patron.discordUserId)).toEqual([world.roles.bronze]);

  world.patreon.pauseWebhook(webhookId);
  capture.events.length = 0;
  for (const tier of changes) setTier(patron.patreonUserId, tier);
  await world.patreon.flushDeliveries();
  expect(capture.events).toHaveLength(2);
  for (const event of [...capture.events].reverse()) {
    expect((await world.patreon.deliverRaw({ webhookId, trigger: event.trigger, body: event.body })).status).toBe(200);
  }
  await instance.idle();
  const want = expected.map((t) => world.roles[t as 'gold']);
  expect(tierRolesOf(patron.discordUserId)).toEqual(want);

  // The paused webhook held both events; re-enabling it replays them in their original order.
  expect((await instance.registration.ensure(world.campaignId)).healed).toBe(true);
  await instance.idle();
  expect(world.patreon.webhooks().find((w) => w.id === webhookId)).toMatchObject({ paused: false, queued: 0 });
  expect(tierRolesOf(patron.discordUserId)).toEqual(want);
  expect((await inboxRows(world)).every((r) => r.status === 'done')).toBe(true);
  // The held events are the same bytes that were delivered above: replays re-arm their rows, add none.
  expect(await inboxRows(world)).toHaveLength(3);
});

test('a member the service no longer knows (404 on re-read) is entitled to nothing: snapshot gone, granted roles removed', async () => {
  const patron = await linkedPatron('gold');
  setTier(patron.patreonUserId, 'gold');
  await instance.idle();
  expect(tierRolesOf(patron.discordUserId)).toEqual([world.roles.gold]);
  world.patreon.deleteMember(patron.memberId);
  await instance.idle();
  expect(await world.repos.snapshots.get('patreon', world.campaignId, patron.memberId)).toBeNull();
  expect(tierRolesOf(patron.discordUserId)).toEqual([]);
  expect(roleWrites(world).map((w) => w.method)).toEqual(['PUT', 'DELETE']);
});

test('when the re-read fails the payload may only keep or remove roles, and a re-check is queued; the re-check brings the state the service has by then', async () => {
  const patron = await linkedPatron('bronze');
  setTier(patron.patreonUserId, 'bronze');
  await instance.idle();
  expect(tierRolesOf(patron.discordUserId)).toEqual([world.roles.bronze]);
  const fault = world.patreon.injectFault({ method: 'GET', path: /^\/api\/oauth2\/v2\/members\//, status: 503, times: Infinity });
  setTier(patron.patreonUserId, 'gold');
  await instance.idle();
  // The payload says Gold: Bronze goes (a payload may remove), Gold waits for a read (it may not grant).
  expect(tierRolesOf(patron.discordUserId)).toEqual([]);
  expect(await world.repos.snapshots.get('patreon', world.campaignId, patron.memberId)).toMatchObject({
    readBy: 'webhook-payload',
    entitledTierIds: [world.tiers.gold],
  });
  expect(await jobRows(world)).toMatchObject([
    {
      kind: MEMBER_RECHECK_JOB,
      status: 'pending',
      payload: { campaignId: world.campaignId, memberId: patron.memberId, patreonUserId: patron.patreonUserId },
    },
  ]);
  expect((await inboxRows(world)).map((r) => r.status)).toEqual(['done', 'done']);

  setTier(patron.patreonUserId, 'silver', { deliver: false });
  world.clock.advance(MINUTE);
  expect(await instance.jobs.worker.sweep()).toBe(1);
  expect((await jobRows(world))[0]).toMatchObject({ status: 'pending' }); // still failing: retried later
  world.patreon.removeFault(fault);
  world.clock.advance(HOUR);
  expect(await instance.jobs.worker.sweep()).toBe(1);
  expect((await jobRows(world))[0]).toMatchObject({ status: 'done' });
  expect(tierRolesOf(patron.discordUserId)).toEqual([world.roles.silver]);
  expect(await world.repos.snapshots.get('patreon', world.campaignId, patron.memberId)).toMatchObject({ readBy: 'webhook' });
});

test('when the re-read fails, an old delivery does not overwrite a snapshot read after it arrived', async () => {
  await instance.close();
  instance = await startInstance(world, { process: false });
  await instance.registration.ensure(world.campaignId);
  const patron = await linkedPatron('bronze');
  setTier(patron.patreonUserId, null);
  await instance.idle();
  world.clock.advance(1000);
  setTier(patron.patreonUserId, 'gold');
  await instance.idle();
  const [stale, fresh] = await inboxRows(world);
  await instance.processor.runNow(fresh!.id);
  expect(tierRolesOf(patron.discordUserId)).toEqual([world.roles.gold]);

  world.patreon.injectFault({ method: 'GET', path: /^\/api\/oauth2\/v2\/members\//, status: 503, times: Infinity });
  world.clock.advance(1000);
  await instance.processor.runNow(stale!.id);
  expect(await inboxRows(world)).toMatchObject([{ status: 'done' }, { status: 'done' }]);
  expect(await world.repos.snapshots.get('patreon', world.campaignId, patron.memberId)).toMatchObject({
    readBy: 'webhook',
    entitledTierIds: [world.tiers.gold],
  });
  expect(tierRolesOf(patron.discordUserId)).toEqual([world.roles.gold]);
  expect(await jobRows(world)).toEqual([]);
});

test('when the re-read fails and the payload carries no usable state, the delivery is retried later, not guessed', async () => {
  const patron = await linkedPatron('bronze');
  setTier(patron.patreonUserId, 'bronze');
  await instance.idle();
  const fault = world.patreon.injectFault({ method: 'GET', path: /^\/api\/oauth2\/v2\/members\//, status: 503, times: Infinity });
  const body = JSON.stringify({
    data: {
      type: 'member',
      id: patron.memberId,
      attributes: { full_name: 'x' },
      relationships: {
        campaign: { data: { type: 'campaign', id: world.campaignId } },
        user: { data: { type: 'user', id: patron.patreonUserId } },
      },
    },
  });
  expect((await world.patreon.deliverRaw({ webhookId, trigger: 'members:update', body })).status).toBe(200);
  await instance.idle();
  expect(await inboxRows(world)).toMatchObject([{ status: 'done' }, { status: 'pending', attempts: 1 }]);
  expect(await metricValue(instance.metrics, 'tierlink_webhook_retries_total')).toBe(1);
  expect(tierRolesOf(patron.discordUserId)).toEqual([world.roles.bronze]);

  setTier(patron.patreonUserId, 'gold', { deliver: false });
  world.patreon.removeFault(fault);
  world.clock.advance(MINUTE);
  expect(await instance.processor.sweep()).toBe(1);
  expect((await inboxRows(world))[1]).toMatchObject({ status: 'done', attempts: 2 });
  expect(tierRolesOf(patron.discordUserId)).toEqual([world.roles.gold]);
});

test('a delivery that keeps failing is dead-lettered after the last attempt and counted', async () => {
  // Signed by the campaign's webhook, so the campaign is known; the body carries no member state, and the service is down.
  world.patreon.injectFault({ method: 'GET', path: /^\/api\/oauth2\/v2\/members\//, status: 503, times: Infinity });
  const body = JSON.stringify({ data: { type: 'member', id: 'm-unknown', attributes: {}, relationships: {} } });
  expect((await world.patreon.deliverRaw({ webhookId, trigger: 'members:update', body })).status).toBe(200);
  await instance.idle();
  for (let i = 0; i < 10; i++) {
    world.clock.advance(HOUR);
    await instance.processor.sweep();
  }
  expect(await inboxRows(world)).toMatchObject([{ status: 'dead', attempts: 8 }]);
  expect(await metricValue(instance.metrics, 'tierlink_webhook_dead_letters_total')).toBe(1);
  expect(await metricValue(instance.metrics, 'tierlink_webhook_retries_total')).toBe(7);
});

test('processed deliveries are pruned after a week; dead letters stay', async () => {
  const patron = await linkedPatron('bronze');
  setTier(patron.patreonUserId, 'gold');
  await instance.idle();
  world.patreon.injectFault({ method: 'GET', path: /^\/api\/oauth2\/v2\/members\//, status: 503, times: Infinity });
  const body = JSON.stringify({ data: { type: 'member', id: 'm-unknown', attributes: {}, relationships: {} } });
  await world.patreon.deliverRaw({ webhookId, trigger: 'members:update', body });
  await instance.idle();
  for (let i = 0; i < 10; i++) {
    world.clock.advance(HOUR);
    await instance.processor.sweep();
  }
  expect((await inboxRows(world)).map((r) => r.status)).toEqual(['done', 'dead']);
  world.clock.advance(8 * 24 * HOUR);
  await instance.processor.sweep();
  expect((await inboxRows(world)).map((r) => r.status)).toEqual(['dead']);
});

test('a concurrent burst larger than the immediate-start bound is processed in full', async () => {
  await instance.close();
  instance = await startInstance(world, { immediateConcurrency: 2 });
  await instance.registration.ensure(world.campaignId);
  world.discord.sandbox.setRateLimit({
    route: 'member-role',
    limit: 10_000,
    windowMs: 1_000,
    raised: '36 role changes in one server at once; the claim is that the queue processes every delivery, not the pace',
  });
  const patrons = await Promise.all(Array.from({ length: 12 }, () => linkedPatron('bronze')));
  for (const p of patrons) setTier(p.patreonUserId, 'silver', { deliver: false });
  // The service sends one webhook's deliveries one at a time; these arrive together.
  const answers = await Promise.all(
    patrons.map((p) =>
      world.patreon.deliverRaw({
        webhookId,
        trigger: 'members:update',
        body: {
          data: {
            type: 'member',
            id: p.memberId,
            relationships: {
              campaign: { data: { type: 'campaign', id: world.campaignId } },
              user: { data: { type: 'user', id: p.patreonUserId } },
            },
          },
        },
      }),
    ),
  );
  expect(answers.map((a) => a.status)).toEqual(patrons.map(() => 200));
  await instance.idle();
  for (const p of patrons) expect(tierRolesOf(p.discordUserId)).toEqual([world.roles.silver]);
  expect((await inboxRows(world)).every((r) => r.status === 'done' && r.attempts === 1)).toBe(true);
  expect(puts()).toHaveLength(12);
  world.discord.sandbox.setRateLimit({ route: 'member-role', limit: 10, windowMs: 10_000 });
});

test('posts:* deliveries are acknowledged and logged with no role effect', async () => {
  const patron = await linkedPatron('gold');
  const body = JSON.stringify({
    data: {
      type: 'post',
      id: '3000001',
      attributes: { title: 'Hello' },
      relationships: { campaign: { data: { type: 'campaign', id: world.campaignId } } },
    },
  });
  expect((await world.patreon.deliverRaw({ webhookId, trigger: 'posts:publish', body })).status).toBe(200);
  await instance.idle();
  expect(await inboxRows(world)).toMatchObject([{ trigger: 'posts:publish', status: 'done' }]);
  expect(memberReads()).toEqual([]);
  expect(roleWrites(world)).toEqual([]);
  expect(tierRolesOf(patron.discordUserId)).toEqual([]);
});

describe('a crash between receipt and processing', () => {
  test('a delivery stored by an instance that died before processing it is processed by the restarted one, exactly once', async () => {
    await instance.close();
    const dying = await startInstance(world, { process: false });
    await dying.registration.ensure(world.campaignId);
    const patron = await linkedPatron('bronze');
    setTier(patron.patreonUserId, 'gold');
    await world.patreon.flushDeliveries();
    expect(world.patreon.deliveries().at(-1)).toMatchObject({ status: 200 });
    expect(await inboxRows(world)).toMatchObject([{ status: 'pending', attempts: 0 }]);
    await dying.crash();
    expect(tierRolesOf(patron.discordUserId)).toEqual([]);

    instance = await startInstance(world);
    instance.processor.start();
    await world.discord.sandbox.waitForMemberRole(world.guildId, patron.discordUserId, world.roles.gold, { present: true });
    await instance.idle();
    expect(await inboxRows(world)).toMatchObject([{ status: 'done', attempts: 1 }]);
    expect(puts()).toHaveLength(1);
  });

  test('a delivery whose processing changed the roles but was never marked done is taken again after its lease, and sends no second PUT', async () => {
    await instance.close();
    const dying = await startInstance(world, { process: false });
    await dying.registration.ensure(world.campaignId);
    const patron = await linkedPatron('bronze');
    setTier(patron.patreonUserId, 'gold');
    await world.patreon.flushDeliveries();
    // The dying instance claims the row and does the work; it dies before marking the row done.
    const [row] = await createInboxQueue(world.db.database.db).claim({
      limit: 1,
      lockMs: 2 * MINUTE,
      now: world.clock.now(),
    });
    expect(await dying.processor.handleDelivery(row!)).toBe('reconciled');
    await dying.crash();
    expect(tierRolesOf(patron.discordUserId)).toEqual([world.roles.gold]);
    expect(puts()).toHaveLength(1);

    instance = await startInstance(world);
    expect(await instance.processor.sweep()).toBe(0); // the lease still holds
    world.clock.advance(2 * MINUTE + 1);
    expect(await instance.processor.sweep()).toBe(1);
    expect(await inboxRows(world)).toMatchObject([{ status: 'done', attempts: 2 }]);
    expect(puts()).toHaveLength(1);
    expect(tierRolesOf(patron.discordUserId)).toEqual([world.roles.gold]);
  });
});
