import { Browser } from '../support/browser';
import { createTierlink } from '../../src/main';
import { createLogger } from '../../src/edges/outbound/observability/logger';
import { type E2E, E2E_SECRET_KEY, MemoryLog, startE2E } from '../support/e2e';
import { createTestDatabase } from '../support/test-database';

let e: E2E;
beforeAll(async () => {
  e = await startE2E({ connected: true });
}, 60_000);
afterAll(() => e?.stop());

/** A patron of the campaign in the guild; `tier` null = a member with no pledge. */
function patron(name: string, tier: string | null = e.tiers.gold) {
  const user = e.patreon.createUser({ fullName: name });
  const member = e.discord.addMember(e.guildId, { username: name.toLowerCase().replace(/\W/g, '') });
  const membership = e.patreon.setMembership(
    user.id,
    e.patreon.campaignId,
    { patronStatus: tier ? 'active_patron' : null, tierIds: tier ? [tier] : [], lastChargeDate: e.clock.now(), lastChargeStatus: 'Paid' },
    { deliver: false },
  );
  return { patreonUserId: user.id, discordUserId: member.userId, memberId: membership.id };
}

test('GET /healthz reports the database, the gateway, the creator token and the webhook', async () => {
  const res = await fetch(`${e.url}/healthz`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { ok: boolean; checks: Record<string, { ok: boolean; detail?: string }> };
  expect(body.ok).toBe(true);
  expect(body.checks.database).toEqual({ ok: true });
  expect(body.checks.discordGateway).toMatchObject({ ok: true, detail: 'connected' });
  expect(body.checks.creatorTokens).toMatchObject({ ok: true, detail: '1 connected' });
  expect(body.checks.webhooks).toMatchObject({ ok: true, detail: '1 delivering' });
});

test('GET /healthz answers 503 when the database does not answer', async () => {
  const db = await createTestDatabase();
  const log = new MemoryLog();
  const tierlink = await createTierlink({
    config: { ...e.config, port: 0 },
    logger: createLogger({ level: 'warn', destination: log }),
    database: db.database,
    discordWaitGuildTimeoutMs: 500,
  });
  const { url } = await tierlink.start();
  try {
    // No keep-alive: closing PGlite blocks the event loop for seconds under load, and a kept-alive
    // socket would then race the server's idle timeout (ECONNRESET), which is not what is tested.
    expect((await fetch(`${url}/healthz`, { headers: { connection: 'close' } })).status).toBe(200);
    await db.database.close();
    const res = await fetch(`${url}/healthz`);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { checks: { database: { ok: boolean } } }).checks.database.ok).toBe(false);
  } finally {
    await tierlink.stop();
    await db.close().catch(() => undefined);
  }
});

test('GET /metrics serves Prometheus text with the counters of what happened', async () => {
  const p = patron('Metric Mia');
  await e.link(p.discordUserId, p.patreonUserId);
  e.patreon.setMembership(p.patreonUserId, e.patreon.campaignId, {
    patronStatus: 'active_patron',
    tierIds: [e.tiers.silver],
    lastChargeDate: e.clock.now(),
    lastChargeStatus: 'Paid',
  });
  await e.discord.waitForMemberRole(e.guildId, p.discordUserId, e.roles.silver, { present: true, timeoutMs: 10_000 });
  const res = await fetch(`${e.url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  const text = await res.text();
  expect(text).toMatch(/tierlink_webhook_deliveries_total\{result="accepted"\} [1-9]/);
  expect(text).toMatch(/tierlink_role_changes_total\{kind="add",outcome="applied"\} [1-9]/);
  expect(text).toMatch(/tierlink_links_total\{outcome="linked"\} [1-9]/);
  expect(text).toMatch(/tierlink_http_requests_total\{route="GET \/link\/:token",status="3xx"\} [1-9]/);
  expect(text).toContain('tierlink_webhook_processing_seconds_bucket');
  expect(text).toContain('tierlink_queue_depth');
  expect(text).toContain('tierlink_process_resident_memory_bytes');
});

test('the logs of a whole run hold no token, secret, code, link token or signature it used', async () => {
  const p = patron('Secret Sam');
  const reply = await e.command(p.discordUserId, 'link');
  const linkToken = new URL(reply.urls[0]!).pathname.split('/').pop()!;
  const browser = new Browser();
  const signIn = await browser.get(reply.urls[0]!);
  const [signInCookie] = [...browser.cookies(e.url).values()];
  const discordAnswer = await e.discord.approveAuthorization(signIn.headers.get('location')!, p.discordUserId);
  const discordCode = new URL(discordAnswer).searchParams.get('code')!;
  const follow = await browser.get(discordAnswer);
  const flowCookie = [...browser.cookies(e.url).entries()].find(([name]) => name.startsWith('tierlink_flow_'))?.[1];
  const callback = await e.patreon.approveAuthorization(follow.headers.get('location')!, p.patreonUserId);
  const code = new URL(callback).searchParams.get('code')!;
  await browser.get(callback);
  // A forged delivery and a real one, so signatures pass through the receiver both ways.
  e.patreon.setMembership(p.patreonUserId, e.patreon.campaignId, {
    patronStatus: 'former_patron',
    tierIds: [],
    lastChargeDate: e.clock.now(),
    lastChargeStatus: 'Paid',
  });
  await e.discord.waitForMemberRole(e.guildId, p.discordUserId, e.roles.gold, { present: false, timeoutMs: 10_000 });
  const [webhook] = e.patreon.webhooks();
  await fetch(`${e.url}/webhooks/patreon`, {
    method: 'POST',
    headers: { 'x-patreon-signature': 'f'.repeat(32), 'content-type': 'application/json' },
    body: '{"data":{}}',
  });

  const secrets: Record<string, string> = {
    'bot token': e.discord.botToken,
    'client secret': e.patreon.clientSecret,
    SECRET_KEY: E2E_SECRET_KEY,
    'webhook secret': webhook!.secret,
    'link token': linkToken,
    'OAuth code': code,
    'flow cookie': flowCookie!,
    'Discord client secret': e.discord.clientSecret,
    'Discord OAuth code': discordCode,
    'Discord sign-in cookie': signInCookie!,
  };
  for (const [i, pair] of e.discord.userTokensIssuedTo(p.discordUserId).entries()) {
    secrets[`Discord access token ${i}`] = pair.accessToken;
    secrets[`Discord refresh token ${i}`] = pair.refreshToken;
  }
  for (const [i, pair] of [...e.patreon.tokensIssuedTo(e.patreon.creatorUserId), ...e.patreon.tokensIssuedTo(p.patreonUserId)].entries()) {
    secrets[`access token ${i}`] = pair.accessToken;
    secrets[`refresh token ${i}`] = pair.refreshToken;
  }
  for (const [i, delivery] of e.patreon.deliveries().entries()) secrets[`signature ${i}`] = delivery.signature;

  const logs = e.log.text();
  expect(logs.length).toBeGreaterThan(1000);
  expect(logs).toContain('patron linked');
  const leaked = Object.entries(secrets).filter(([, value]) => value.length >= 8 && logs.includes(value));
  expect(leaked.map(([name]) => name)).toEqual([]);
  expect(logs).toContain('/link/[redacted]');
});
