import { type E2E, startE2E } from '../support/e2e';
import { fromOutside } from '../support/outside-address';

/**
 * Attacks on the operator's surfaces: read `/healthz`'s internal detail or `/metrics` from outside,
 * with or without a forged `X-Forwarded-For: 127.0.0.1`. Refusals: outside, `/healthz` says only
 * `{"ok":…}` and `/metrics` answers 401, unless the bearer token is given; only a request from the
 * loopback address that no proxy forwarded counts as local.
 */

const HEALTH_TOKEN = 'health-token-0123456789abcdef';
const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

let e: E2E;
beforeAll(async () => {
  e = await startE2E({ connected: true, env: { HEALTH_TOKEN, METRICS_TOKEN } });
}, 60_000);
afterAll(() => e?.stop());

const get = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers: { connection: 'close', ...headers } });

describe('/healthz', () => {
  test('from outside: {"ok":true} and nothing else, also with a forged X-Forwarded-For or a wrong token', async () => {
    const attempts: Array<Record<string, string>> = [
      {},
      { 'x-forwarded-for': '127.0.0.1' },
      { forwarded: 'for=127.0.0.1' },
      { authorization: 'Bearer wrong-token-0123456789' },
    ];
    for (const headers of attempts) {
      const res = await get(fromOutside(`${e.url}/healthz`), headers);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ ok: true });
    }
  });

  test('from outside with HEALTH_TOKEN: the details', async () => {
    const res = await get(fromOutside(`${e.url}/healthz`), { authorization: `Bearer ${HEALTH_TOKEN}` });
    expect(await res.json()).toMatchObject({ ok: true, checks: { database: { ok: true }, creatorTokens: { ok: true } } });
  });

  test('from the loopback address: the details, unless a proxy forwarded the request (then it is someone else’s)', async () => {
    expect(await (await get(`${e.url}/healthz`)).json()).toMatchObject({ checks: { discordGateway: { ok: true } } });
    expect(await (await get(`${e.url}/healthz`, { 'x-forwarded-for': '203.0.113.7' })).json()).toEqual({ ok: true });
  });
});

describe('/metrics', () => {
  test('from outside: 401 with a Bearer challenge, also with a forged X-Forwarded-For', async () => {
    const attempts: Array<Record<string, string>> = [
      {},
      { 'x-forwarded-for': '127.0.0.1' },
      { authorization: 'Bearer wrong-token-0123456789' },
    ];
    for (const headers of attempts) {
      const res = await get(fromOutside(`${e.url}/metrics`), headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect(await res.text()).not.toContain('tierlink_');
    }
  });

  test('from outside with METRICS_TOKEN, or from the loopback address: Prometheus text', async () => {
    for (const [url, headers] of [
      [fromOutside(`${e.url}/metrics`), { authorization: `Bearer ${METRICS_TOKEN}` }],
      [`${e.url}/metrics`, {}],
    ] as const) {
      const res = await get(url, headers);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('tierlink_http_requests_total');
    }
  });
});

describe('the public routes, per address', () => {
  test('/link and /connect: 60 a minute from one address, then a 429 page with Retry-After; other addresses are still served', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((await get(fromOutside(`${e.url}/link/not-a-token-${i}`))).status);
    expect(new Set(statuses)).toEqual(new Set([410])); // the page for an unknown or expired link
    const refused = await get(fromOutside(`${e.url}/connect/not-a-token`));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.text()).toContain('Too many requests');
    expect((await get(`${e.url}/link/not-a-token`)).status).toBe(410);
  });

  test('/oauth/callback and /dashboard have their own budgets; refused requests add no access-log line', async () => {
    for (let i = 0; i < 60; i++) await get(fromOutside(`${e.url}/oauth/callback?state=x&code=y`));
    const before = e.log.lines.length;
    for (let i = 0; i < 50; i++) expect((await get(fromOutside(`${e.url}/oauth/callback?state=x&code=y`))).status).toBe(429);
    const added = e.log.lines.slice(before).map((l) => JSON.parse(l) as { msg: string });
    expect(added.map((l) => l.msg)).toEqual(['too many requests from one address: refused until its window ends']);
    const dashboard: number[] = [];
    for (let i = 0; i < 301; i++) dashboard.push((await get(fromOutside(`${e.url}/dashboard/x`))).status);
    expect(dashboard.slice(0, 300).every((s) => s !== 429)).toBe(true);
    expect(dashboard[300]).toBe(429);
  });
});

test('a request with 12 KiB of URL and of header from outside writes a bounded log line', async () => {
  const before = e.log.text().length;
  const res = await get(fromOutside(`${e.url}/nothing-here?q=${'x'.repeat(12 * 1024)}`), { 'x-patreon-event': 'y'.repeat(3000) });
  expect(res.status).toBe(404);
  const added = e.log.text().length - before;
  expect(added).toBeLessThan(1024);
});
