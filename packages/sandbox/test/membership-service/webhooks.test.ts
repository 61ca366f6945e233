import { createHmac } from 'node:crypto';
import type { MembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { getJson, sendJson } from './raw-http';
import type { WebhookReceiver } from '@tierlink/sandbox';
import { startWebhookReceiver } from '@tierlink/sandbox';

const WEBHOOKS = '/api/oauth2/v2/webhooks';
const hmacMd5 = (secret: string, raw: Buffer): string => createHmac('md5', secret).update(raw).digest('hex');

describe('membership-service sandbox: webhooks (spec: v2 webhook endpoints, Events)', () => {
  let sb: MembershipServiceSandbox;
  let receiver: WebhookReceiver;
  let token: string;
  let tierId: string;

  const createWebhook = async (triggers: string[], uri = receiver.url, accessToken = token) =>
    sendJson(sb.url, 'POST', WEBHOOKS, accessToken, {
      data: {
        type: 'webhook',
        attributes: { triggers, uri },
        relationships: { campaign: { data: { type: 'campaign', id: sb.campaignId } } },
      },
    });

  beforeEach(async () => {
    sb = await createMembershipServiceSandbox();
    receiver = await startWebhookReceiver();
    token = sb.creatorTokens.accessToken;
    tierId = sb.createTier(sb.campaignId, { title: 'Gold', amountCents: 500, chatRoleIds: ['123456789012345678'] }).id;
  });
  afterEach(async () => {
    await sb.close();
    await receiver.close();
  });

  it('creates a webhook with a generated secret and the spec attributes', async () => {
    const res = await createWebhook(['members:create', 'members:update']);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      type: 'webhook',
      id: expect.any(String),
      attributes: {
        last_attempted_at: null,
        paused: false,
        num_consecutive_times_failed: 0,
        secret: expect.any(String),
        triggers: ['members:create', 'members:update'],
        uri: receiver.url,
      },
    });
    expect(res.body.data.attributes.secret.length).toBeGreaterThanOrEqual(32);
  });

  it.each([
    ['an unknown trigger', { triggers: ['members:explode'] }],
    ['no triggers', { triggers: [] }],
    ['a relative uri', { uri: '/hook' }],
    ['an unknown attribute', { paused: true }],
  ])('refuses %s (400)', async (_label, attributes) => {
    const res = await sendJson(sb.url, 'POST', WEBHOOKS, token, {
      data: {
        type: 'webhook',
        attributes: { triggers: ['members:update'], uri: receiver.url, ...attributes },
        relationships: { campaign: { data: { type: 'campaign', id: sb.campaignId } } },
      },
    });
    expect(res.status).toBe(400);
  });

  it("lists and changes only the calling client's webhooks", async () => {
    const mine = (await createWebhook(['members:update'])).body.data.id as string;
    const otherClient = sb.createClient();
    const theirs = (await createWebhook(['members:update'], receiver.url, otherClient.creatorTokens.accessToken)).body.data.id as string;
    const list = await getJson(sb.url, `${WEBHOOKS}?fields[webhook]=uri,paused&include=campaign`, token);
    expect(list.body.data.map((w: { id: string }) => w.id)).toEqual([mine]);
    expect(list.body.data[0]).toEqual({
      type: 'webhook',
      id: mine,
      attributes: { uri: receiver.url, paused: false },
      relationships: { campaign: { data: { type: 'campaign', id: sb.campaignId } } },
    });
    const patch = await sendJson(sb.url, 'PATCH', `${WEBHOOKS}/${theirs}`, token, {
      data: { type: 'webhook', id: theirs, attributes: { paused: true } },
    });
    expect(patch.status).toBe(403);
    const ok = await sendJson(sb.url, 'PATCH', `${WEBHOOKS}/${mine}`, token, {
      data: { type: 'webhook', id: mine, attributes: { triggers: ['members:delete'], uri: `${receiver.url}?v=2` } },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data.attributes).toMatchObject({ triggers: ['members:delete'], uri: `${receiver.url}?v=2` });
    const wrongId = await sendJson(sb.url, 'PATCH', `${WEBHOOKS}/${mine}`, token, {
      data: { type: 'webhook', id: 'x', attributes: { paused: false } },
    });
    expect(wrongId.status).toBe(400);
  });

  it('delivers a signed member event right after the change, verifiable with HMAC-MD5 of the raw body in both headers', async () => {
    const secret = (await createWebhook(['members:create', 'members:update'])).body.data.attributes.secret as string;
    const user = sb.createUser({ fullName: 'Pat Ron', discordUserId: '323456789012345678' });
    const member = sb.setMembership(user.id, sb.campaignId, { tierIds: [tierId] });
    await sb.flushDeliveries();
    expect(receiver.received).toHaveLength(1);
    const [delivery] = receiver.received;
    if (!delivery) throw new Error('no delivery');
    expect(delivery.headers['x-patreon-event']).toBe('members:create');
    expect(delivery.headers['x-patreon-signature']).toBe(hmacMd5(secret, delivery.raw));
    expect(delivery.headers['x-service-signature']).toBe(hmacMd5(secret, delivery.raw));
    const body = JSON.parse(delivery.raw.toString('utf8'));
    expect(body.data).toMatchObject({
      type: 'member',
      id: member.id,
      attributes: {
        patron_status: 'active_patron',
        full_name: 'Pat Ron',
        is_follower: false,
        currently_entitled_amount_cents: 500,
        last_charge_status: 'Paid',
        note: '',
      },
      relationships: {
        address: { data: null },
        campaign: { data: { type: 'campaign', id: sb.campaignId } },
        currently_entitled_tiers: { data: [{ type: 'tier', id: tierId }] },
        user: { data: { type: 'user', id: user.id } },
      },
    });
    expect(Object.keys(body.data.attributes).sort()).toEqual(
      [
        'currently_entitled_amount_cents',
        'full_name',
        'is_follower',
        'last_charge_date',
        'last_charge_status',
        'lifetime_support_cents',
        'note',
        'patron_status',
        'pledge_relationship_start',
      ].sort(),
    );
    const types = body.included.map((r: { type: string }) => r.type).sort();
    expect(types).toEqual(['campaign', 'tier', 'user']);
    const includedUser = body.included.find((r: { type: string }) => r.type === 'user');
    expect(includedUser.attributes.social_connections.discord.user_id).toBe('323456789012345678');

    sb.setMembership(user.id, sb.campaignId, { patronStatus: 'declined_patron', lastChargeStatus: 'Declined' });
    await sb.flushDeliveries();
    expect(receiver.received[1]?.headers['x-patreon-event']).toBe('members:update');
    expect(sb.deliveries().map((d) => d.trigger)).toEqual(['members:create', 'members:update']);
  });

  it('sends only the signature headers asked for, and only subscribed triggers', async () => {
    await sb.close();
    sb = await createMembershipServiceSandbox({ signatureHeaders: ['X-Patreon-Signature'] });
    token = sb.creatorTokens.accessToken;
    await createWebhook(['members:update']);
    const user = sb.createUser({ fullName: 'A' });
    sb.setMembership(user.id, sb.campaignId, {}); // members:create: not subscribed
    sb.setMembership(user.id, sb.campaignId, { patronStatus: 'former_patron' });
    await sb.flushDeliveries();
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]?.headers['x-patreon-signature']).toMatch(/^[0-9a-f]{32}$/);
    expect(receiver.received[0]?.headers['x-service-signature']).toBeUndefined();
  });

  it('pauses after 3 consecutive failures, queues while paused, and replays in order on PATCH paused=false', async () => {
    const id = (await createWebhook(['members:update', 'members:create'])).body.data.id as string;
    const user = sb.createUser({ fullName: 'Pat' });
    receiver.respondWith(500);
    sb.setMembership(user.id, sb.campaignId, { note: 'one' });
    await sb.flushDeliveries();
    sb.setMembership(user.id, sb.campaignId, { note: 'two' });
    await sb.flushDeliveries();
    sb.setMembership(user.id, sb.campaignId, { note: 'three' });
    await sb.flushDeliveries();
    const state = await getJson(sb.url, `${WEBHOOKS}?fields[webhook]=paused,num_consecutive_times_failed,last_attempted_at`, token);
    expect(state.body.data[0].attributes).toMatchObject({
      paused: true,
      num_consecutive_times_failed: 3,
      last_attempted_at: expect.any(String),
    });
    // Every failed attempt retried the oldest event: nothing newer jumped the queue.
    expect(receiver.received.map((r) => JSON.parse(r.raw.toString()).data.attributes.note)).toEqual(['one', 'one', 'one']);

    sb.setMembership(user.id, sb.campaignId, { note: 'four' });
    await sb.flushDeliveries();
    expect(receiver.received).toHaveLength(3);

    receiver.respondWith(200);
    const patch = await sendJson(sb.url, 'PATCH', `${WEBHOOKS}/${id}`, token, {
      data: { type: 'webhook', id, attributes: { paused: false } },
    });
    expect(patch.body.data.attributes).toMatchObject({ paused: false, num_consecutive_times_failed: 0 });
    await sb.flushDeliveries();
    expect(receiver.received.slice(3).map((r) => JSON.parse(r.raw.toString()).data.attributes.note)).toEqual([
      'one',
      'two',
      'three',
      'four',
    ]);
    expect(sb.webhooks()[0]).toMatchObject({ paused: false, numConsecutiveTimesFailed: 0, queued: 0 });
  });

  it('counts a refused connection as a failure', async () => {
    await createWebhook(['members:create'], 'http://127.0.0.1:9/unreachable');
    sb.setMembership(sb.createUser({ fullName: 'X' }).id, sb.campaignId, {});
    await sb.flushDeliveries();
    expect(sb.deliveries()[0]).toMatchObject({ status: null, ok: false });
    expect(sb.webhooks()[0]).toMatchObject({ numConsecutiveTimesFailed: 1, paused: false, queued: 1 });
  });

  it('pauseWebhook queues later events until the owner unpauses', async () => {
    const id = (await createWebhook(['members:create'])).body.data.id as string;
    sb.pauseWebhook(id);
    sb.setMembership(sb.createUser({ fullName: 'X' }).id, sb.campaignId, {});
    await sb.flushDeliveries();
    expect(receiver.received).toHaveLength(0);
    expect(sb.webhooks()[0]).toMatchObject({ paused: true, queued: 1 });
    await sendJson(sb.url, 'PATCH', `${WEBHOOKS}/${id}`, token, { data: { type: 'webhook', id, attributes: { paused: false } } });
    await sb.flushDeliveries();
    expect(receiver.received).toHaveLength(1);
  });

  it('redelivers a past delivery byte for byte, and sends raw bodies with chosen signatures', async () => {
    const hook = (await createWebhook(['members:create'])).body.data;
    sb.setMembership(sb.createUser({ fullName: 'X' }).id, sb.campaignId, {});
    await sb.flushDeliveries();
    const [first] = sb.deliveries();
    if (!first) throw new Error('no delivery');
    const again = await sb.redeliver(first.id);
    expect(again).toMatchObject({ kind: 'redeliver', body: first.body, signature: first.signature, status: 204 });
    expect(receiver.received[1]?.raw.equals(receiver.received[0]?.raw ?? Buffer.alloc(0))).toBe(true);

    await sb.deliverRaw({ webhookId: hook.id, trigger: 'members:update', body: '{"data":null}', signature: 'deadbeef' });
    expect(receiver.received[2]?.headers['x-patreon-signature']).toBe('deadbeef');
    await sb.deliverRaw({ webhookId: hook.id, trigger: 'members:update', body: { data: null }, signature: null });
    expect(receiver.received[3]?.headers['x-patreon-signature']).toBeUndefined();
    await sb.deliverRaw({ webhookId: hook.id, trigger: 'members:update', body: '{"a":1}' });
    expect(receiver.received[4]?.headers['x-patreon-signature']).toBe(hmacMd5(hook.attributes.secret, Buffer.from('{"a":1}')));
  });

  it('delivers members:delete, and a deleted member then answers 404', async () => {
    await createWebhook(['members:delete']);
    const member = sb.setMembership(sb.createUser({ fullName: 'X' }).id, sb.campaignId, {});
    sb.deleteMember(member.id);
    await sb.flushDeliveries();
    expect(receiver.received.map((r) => r.headers['x-patreon-event'])).toEqual(['members:delete']);
    expect((await getJson(sb.url, `/api/oauth2/v2/members/${member.id}`, token)).status).toBe(404);
  });

  it('delivers posts:publish with a post payload', async () => {
    await createWebhook(['posts:publish']);
    const post = sb.publishPost(sb.campaignId, { title: 'Hello' });
    await sb.flushDeliveries();
    const body = JSON.parse(receiver.received[0]?.raw.toString() ?? '{}');
    expect(receiver.received[0]?.headers['x-patreon-event']).toBe('posts:publish');
    expect(body.data).toMatchObject({ type: 'post', id: post.id, attributes: { title: 'Hello' } });
  });
});
