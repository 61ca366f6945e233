import { type HealthChecks, checkHealth } from '../../../../src/edges/outbound/observability/health';
import { pendingTimers, timersStartedBy } from '../../../support/started-timers';

/** Checks that answer as a healthy deployment does, with the gateway's state given. */
function checks(gateway: ReturnType<HealthChecks['gateway']>): HealthChecks {
  return {
    database: async () => undefined,
    gateway: () => gateway,
    creators: async () => [{ creatorUserId: '1', connected: true, refreshFailedAt: null, cooldownUntil: null }],
    webhooks: async () => [{ campaignId: '9', registered: true, paused: false, numConsecutiveTimesFailed: 0 }],
  };
}

describe('GET /healthz: the gateway check', () => {
  test('an instance holding shards reports them, connected', async () => {
    const report = await checkHealth(checks({ ready: true, shards: { held: [0, 2], count: 4 } }));
    expect(report.checks.discordGateway).toEqual({ ok: true, detail: 'connected', shards: [0, 2], shardCount: 4 });
  });

  test('an instance holding no shard says so: other instances hold the gateway, and it is not an outage', async () => {
    const report = await checkHealth(checks({ ready: true, shards: { held: [], count: 1 } }));
    expect(report.ok).toBe(true);
    expect(report.checks.discordGateway).toEqual({
      ok: true,
      detail: 'holds no shard: other instances hold the gateway',
      shards: [],
      shardCount: 1,
    });
  });

  test('an instance whose sessions are not all connected reports not connected', async () => {
    const report = await checkHealth(checks({ ready: false, shards: { held: [], count: null } }));
    expect(report.checks.discordGateway).toMatchObject({ ok: false, detail: 'not connected' });
  });

  test('without shard information (one gateway client), ready is connected', async () => {
    const report = await checkHealth(checks({ ready: true }));
    expect(report.checks.discordGateway).toEqual({ ok: true, detail: 'connected' });
  });

  test('a shard this instance holds without a session past the grace makes the instance unhealthy, named with the fix', async () => {
    const report = await checkHealth(checks({ ready: false, shards: { held: [], count: 2 }, gaps: [{ shardId: 1, forMs: 42_000 }] }));
    expect(report.ok).toBe(false);
    expect(report.checks.discordGateway).toMatchObject({ ok: false, withoutSession: [1], shards: [] });
    expect(String(report.checks.discordGateway!.detail)).toMatch(/^shard 1 has had no session for 42 s: this instance holds its lease/);
  });

  test('a gap shorter than a reconnection is reported as connecting, and the instance stays healthy', async () => {
    const report = await checkHealth(checks({ ready: false, shards: { held: [0], count: 1 }, gaps: [{ shardId: 0, forMs: 2_000 }] }));
    expect(report.ok).toBe(true);
    expect(report.checks.discordGateway).toEqual({ ok: true, detail: 'connecting', shards: [0], shardCount: 1 });
  });
});

test('a health check that answers at once leaves no timer behind (a load balancer probes every few seconds)', async () => {
  let report: Awaited<ReturnType<typeof checkHealth>> | undefined;
  const timers = await timersStartedBy(async () => {
    report = await checkHealth(checks({ ready: true }));
  });
  expect(report!.ok).toBe(true);
  expect(pendingTimers(timers)).toEqual([]);
});

test('a check that never answers is reported as such once its time is up', async () => {
  const report = await checkHealth({ ...checks({ ready: true }), database: () => new Promise<void>(() => undefined) }, 50);
  expect(report.ok).toBe(false);
  expect(report.checks.database).toEqual({ ok: false, detail: 'no answer within 50 ms' });
});
