import { signWebhookBody } from '../../../../src/app/webhooks/verify-signature';
import { type World, createWorld } from '../../../support/world';
import { type Instance, inboxRows, memoryLogger, metricValue, roleWrites, startInstance } from '../../../app/webhooks/harness';

let world: World;
let instance: Instance;
let log: ReturnType<typeof memoryLogger>;
let webhookId: string;
let secret: string;
/** A real member delivery body, as the sandbox rendered it. */
let body: string;

beforeAll(async () => {
  world = await createWorld();
});
afterAll(() => world.close());

beforeEach(async () => {
  await world.reset();
  world.patreon.clearDeliveries();
  log = memoryLogger('info');
  instance = await startInstance(world, { logger: log.logger });
  // The service stand-in outlives world.reset(): the webhook of the previous test is re-pointed here.
  expect(['registered', 'updated']).toContain((await instance.registration.ensure(world.campaignId)).state);
  const [webhook] = world.patreon.webhooks();
  webhookId = webhook!.id;
  secret = webhook!.secret;
  const patron = world.addPatron({ tier: 'gold' });
  world.patreon.setMembership(patron.patreonUserId, world.campaignId, { tierIds: [world.tiers.silver] });
  await instance.idle();
  const [delivery] = world.patreon.deliveries();
  expect(delivery?.status).toBe(200);
  body = delivery!.body;
  world.patreon.clearDeliveries();
  world.patreon.resetRequests();
  world.discord.sandbox.resetRequests();
  log.lines.length = 0;
});
afterEach(() => instance.close());

const memberReads = () => world.patreon.requests().filter((r) => r.path.startsWith('/api/oauth2/v2/members/'));

const twoMiB = `{"data":{"type":"member","id":"x","attributes":{"note":"${'x'.repeat(2 * 1024 * 1024)}"}}}`;

interface Case {
  name: string;
  make(): { body: string; signature?: string | null };
  status: number;
  result: string;
}
const cases: Case[] = [
  {
    name: 'signed with the wrong secret',
    make: () => ({ body, signature: signWebhookBody('not-the-secret', body) }),
    status: 401,
    result: 'rejected_signature',
  },
  {
    name: 'with a truncated signature',
    make: () => ({ body, signature: signWebhookBody(secret, body).slice(0, 20) }),
    status: 401,
    result: 'rejected_signature',
  },
  { name: 'without a signature header', make: () => ({ body, signature: null }), status: 401, result: 'rejected_signature' },
  {
    name: 'altered after signing',
    make: () => ({
      body: body.replace('"patron_status":"active_patron"', '"patron_status":"former_patron"'),
      signature: signWebhookBody(secret, body),
    }),
    status: 401,
    result: 'rejected_signature',
  },
  { name: 'empty and unsigned', make: () => ({ body: '', signature: null }), status: 401, result: 'rejected_signature' },
  { name: 'empty, correctly signed', make: () => ({ body: '' }), status: 400, result: 'rejected_body' },
  { name: 'not JSON, correctly signed', make: () => ({ body: 'members:update <html>' }), status: 400, result: 'rejected_body' },
  {
    name: 'of JSON that is not a JSON:API document, correctly signed',
    make: () => ({ body: '[1,2,3]' }),
    status: 400,
    result: 'rejected_body',
  },
  { name: 'of 2 MiB, correctly signed', make: () => ({ body: twoMiB }), status: 413, result: 'too_large' },
];

test.each(cases)(
  'a delivery $name is refused with $status, logged, counted, and never stored or processed',
  async ({ make, status, result }) => {
    const input = make();
    const acceptedBefore = await metricValue(instance.metrics, 'tierlink_webhook_deliveries_total', { result: 'accepted' });
    const delivery = await world.patreon.deliverRaw({
      webhookId,
      trigger: 'members:update',
      body: input.body,
      ...(input.signature !== undefined ? { signature: input.signature } : {}),
    });
    await instance.idle();
    expect(delivery.status).toBe(status);
    expect(await metricValue(instance.metrics, 'tierlink_webhook_deliveries_total', { result })).toBe(1);
    expect(await metricValue(instance.metrics, 'tierlink_webhook_deliveries_total', { result: 'accepted' })).toBe(acceptedBefore);
    expect(await inboxRows(world)).toHaveLength(1); // only the set-up delivery
    expect(memberReads()).toEqual([]);
    expect(roleWrites(world)).toEqual([]);
    const line = log.lines.find((l) => String(l.msg).startsWith('webhook delivery rejected'));
    expect(line).toMatchObject({ level: 40, status });
    expect(JSON.stringify(log.lines)).not.toContain(signWebhookBody(secret, body));
    expect(JSON.stringify(log.lines)).not.toContain(secret);
  },
);

test.each(['X-Patreon-Signature', 'X-Service-Signature'])(
  'a correctly signed delivery is accepted with the signature in %s alone',
  async (header) => {
    // Other bytes than the set-up delivery's (the same bytes again would be a replay).
    const fresh = body.replace('{"data":', '{"data" :');
    const res = await fetch(instance.webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Patreon-Event': 'members:pledge:update', [header]: signWebhookBody(secret, fresh) },
      body: fresh,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    await instance.idle();
    const rows = await inboxRows(world);
    expect(rows.at(-1)).toMatchObject({ trigger: 'members:pledge:update', campaign_id: world.campaignId, status: 'done' });
    // The member state equals what the set-up delivery's read stored: it changes no role, so no read.
    expect(memberReads()).toEqual([]);
    expect(await metricValue(instance.metrics, 'tierlink_webhook_deliveries_total', { result: 'accepted' })).toBe(2);
  },
);

test('the stored row holds the exact bytes, the trigger and the receipt time; a delivery without X-Patreon-Event stores no trigger', async () => {
  const spaced = body.replace('{"data":', '{ "data" :');
  const res = await fetch(instance.webhookUrl, {
    method: 'POST',
    headers: { 'X-Service-Signature': signWebhookBody(secret, spaced) },
    body: spaced,
  });
  expect(res.status).toBe(200);
  await instance.idle();
  const rows = await instance.webhooks.deliveries();
  expect(rows.at(-1)).toMatchObject({
    body: spaced,
    trigger: null,
    campaignId: world.campaignId,
    receivedAt: world.clock.now(),
    status: 'done',
  });
});

test('a body signed with one campaign’s secret that names another campaign is refused with 403', async () => {
  const other = body.replaceAll(`"id":"${world.campaignId}"`, '"id":"999999"');
  expect(other).not.toBe(body);
  const delivery = await world.patreon.deliverRaw({ webhookId, trigger: 'members:update', body: other });
  expect(delivery.status).toBe(403);
  expect(await inboxRows(world)).toHaveLength(1);
});

test('PATREON_WEBHOOK_SECRET verifies deliveries of a hand-registered webhook; the campaign comes from the verified body', async () => {
  const manual = await startInstance(world, { staticSecret: 'hand-registered-secret', process: false });
  const fresh = body.replace('{"data":', '{"data" :');
  try {
    const res = await fetch(manual.webhookUrl, {
      method: 'POST',
      headers: { 'X-Patreon-Event': 'members:update', 'X-Patreon-Signature': signWebhookBody('hand-registered-secret', fresh) },
      body: fresh,
    });
    expect(res.status).toBe(200);
    expect((await inboxRows(world)).at(-1)).toMatchObject({ campaign_id: world.campaignId, status: 'pending' });
  } finally {
    await manual.close();
  }
});

test('a secret stored by another instance after this one cached its list is found on the next unmatched delivery', async () => {
  await instance.secrets.candidates();
  await instance.webhooks.upsert(
    {
      id: 'w-other',
      campaignId: world.campaignId,
      uri: 'http://elsewhere.invalid/webhooks/patreon',
      triggers: ['members:update'],
      secret: 'fresh-secret',
      paused: false,
      numConsecutiveTimesFailed: 0,
      lastAttemptedAt: null,
    },
    world.clock.now(),
  );
  world.clock.advance(2000);
  const res = await fetch(instance.webhookUrl, {
    method: 'POST',
    headers: { 'X-Patreon-Signature': signWebhookBody('fresh-secret', body) },
    body,
  });
  expect(res.status).toBe(200);
});

test('other methods are answered 405', async () => {
  const res = await fetch(instance.webhookUrl);
  expect(res.status).toBe(405);
  expect(res.headers.get('allow')).toBe('POST');
});
