import { createManualClock } from '@tierlink/sandbox';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PatreonApiError, buildQuery, createHttp, kindForStatus, retryAfterSeconds } from '../../../../src/edges/outbound/patreon';
import { silentLogger } from '../../../../src/shared/logger';
import type { MembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';

describe('PatreonApiError', () => {
  it.each([
    [400, 'bad_request'],
    [401, 'unauthorized'],
    [403, 'forbidden'],
    [404, 'not_found'],
    [405, 'method_not_allowed'],
    [406, 'not_acceptable'],
    [410, 'gone'],
    [429, 'rate_limited'],
    [500, 'server'],
    [503, 'server'],
    [418, 'unexpected_status'],
  ])('maps %i to %s', (status, kind) => {
    expect(kindForStatus(status)).toBe(kind);
  });

  it('is named after its status or kind and carries method, path and code', () => {
    const e = new PatreonApiError({
      kind: 'unauthorized',
      status: 401,
      method: 'GET',
      path: '/api/oauth2/v2/identity',
      errors: [{ detail: 'bad token' }],
    });
    expect(e.name).toBe('PatreonApiError[401]');
    expect(e.code).toBe('unauthorized');
    expect(e.message).toBe('GET /api/oauth2/v2/identity answered 401: bad token');
    expect(new PatreonApiError({ kind: 'network', method: 'GET', path: '/x' }).name).toBe('PatreonApiError[network]');
  });
});

describe('retryAfterSeconds', () => {
  const now = new Date('2026-11-01T12:00:00Z');
  it('reads the header in seconds or as a date, else the body top level or inside errors', () => {
    expect(retryAfterSeconds(new Headers({ 'retry-after': '3' }), null, now)).toBe(3);
    expect(retryAfterSeconds(new Headers({ 'retry-after': 'Sun, 01 Nov 2026 12:00:05 GMT' }), null, now)).toBe(5);
    expect(retryAfterSeconds(new Headers(), { retry_after_seconds: 4 }, now)).toBe(4);
    expect(retryAfterSeconds(new Headers(), { errors: [{ retry_after_seconds: 2 }] }, now)).toBe(2);
    expect(retryAfterSeconds(new Headers(), { errors: [] }, now)).toBeNull();
  });
});

describe('buildQuery', () => {
  it('names include, fields[type] and page[cursor], brackets percent-encoded', () => {
    const q = buildQuery({ include: ['user', 'campaign'], fields: { member: ['patron_status', 'is_follower'] }, cursor: 'abc=' });
    expect(q.toString()).toBe('include=user%2Ccampaign&fields%5Bmember%5D=patron_status%2Cis_follower&page%5Bcursor%5D=abc%3D');
  });
});

describe('http retries against the sandbox', () => {
  let sb: MembershipServiceSandbox;
  const clock = createManualClock();
  let sleeps: number[];
  const http = (retry = {}) =>
    createHttp({
      baseUrl: sb.url,
      clock,
      random: () => 1,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      logger: silentLogger,
      retry,
    });
  const get = (h = http()) => h.request({ method: 'GET', path: '/api/oauth2/v2/identity', accessToken: sb.creatorTokens.accessToken });

  beforeEach(async () => {
    sb = await createMembershipServiceSandbox({ clock });
    sleeps = [];
  });
  afterEach(() => sb.close());

  it('backs off exponentially (capped) and gives up after maxAttempts on 5xx', async () => {
    sb.injectFault({ status: 500, times: Infinity });
    await expect(get(http({ maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 5000 }))).rejects.toMatchObject({ kind: 'server', status: 500 });
    expect(sleeps).toEqual([1000, 2000, 4000, 5000]);
    expect(sb.requests()).toHaveLength(5);
  });

  it('retries network errors', async () => {
    sb.injectFault({ status: 'reset', times: 1 });
    await expect(get()).resolves.toMatchObject({ status: 200 });
    expect(sb.requests().map((r) => r.status)).toEqual([0, 200]);
  });

  it('does not retry other 4xx', async () => {
    sb.injectFault({ status: 404 });
    await expect(get()).rejects.toMatchObject({ kind: 'not_found' });
    expect(sb.requests()).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('gives up on 429 past the number of waits or a too-long Retry-After', async () => {
    sb.injectFault({ status: 429, retryAfterSeconds: 1, times: Infinity });
    await expect(get(http({ maxRateLimitWaits: 2 }))).rejects.toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 1 });
    expect(sleeps).toEqual([1000, 1000]);
    sb.clearFaults();
    sleeps = [];
    sb.injectFault({ status: 429, retryAfterSeconds: 3600 });
    await expect(get()).rejects.toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 3600 });
    expect(sleeps).toEqual([]);
  });

  it('retries an unsafe request only on 429/503, never after a 500', async () => {
    sb.injectFault({ status: 500 });
    await expect(
      http().request({ method: 'POST', path: '/api/oauth2/token', form: new URLSearchParams(), unsafe: true }),
    ).rejects.toMatchObject({ status: 500 });
    expect(sb.requests()).toHaveLength(1);
  });
});

describe('http timeout', () => {
  it('times out a request that gets no answer', async () => {
    const server = createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const http = createHttp({
      baseUrl: `http://127.0.0.1:${port}`,
      clock: createManualClock(),
      random: () => 0,
      sleep: async () => undefined,
      logger: silentLogger,
      timeoutMs: 100,
      retry: { maxAttempts: 2 },
    });
    try {
      await expect(http.request({ method: 'GET', path: '/slow' })).rejects.toMatchObject({ kind: 'timeout' });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
