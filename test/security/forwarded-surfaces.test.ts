import http from 'node:http';
import express from 'express';
import { parseConfig } from '../../src/config';
import { type E2E, startE2E } from '../support/e2e';
import { fromOutside, outsideAddress } from '../support/outside-address';

/**
 * Attacks through forwarding headers. (1) The operator's surfaces (`/metrics`, the detailed
 * `/healthz`) behind a reverse proxy on the same machine: every request arrives from 127.0.0.1, and
 * a proxy that adds only `X-Forwarded-Proto` (or `Via`, or passes the public Host on) made it look
 * local. Refusal: any forwarding header, or a Host that is not this machine's, and the request is
 * not local (fail closed). (2) A client that writes `X-Forwarded-For` to choose its rate-limit
 * budget: only the proxies TRUST_PROXY names are believed (the loopback address by default; no
 * longer every private network).
 */

/**
 * A GET with exactly these headers (node:http, which sends a Host of the caller's choosing; fetch
 * does not), answered as a fetch Response.
 */
function get(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { connection: 'close', ...headers } }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (c: Buffer) => chunks.push(c));
      answer.on('end', () => resolve(new Response(Buffer.concat(chunks), { status: answer.statusCode ?? 0 })));
    });
    request.on('error', reject);
  });
}

describe('the operator’s surfaces from the loopback address', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E();
  }, 60_000);
  afterAll(() => e?.stop());

  test('local without any forwarding header: the details and the metrics', async () => {
    expect((await get(`${e.url}/metrics`)).status).toBe(200);
    expect(await (await get(`${e.url}/healthz`)).json()).toHaveProperty('checks');
  });

  test.each([
    ['X-Forwarded-Proto alone', { 'x-forwarded-proto': 'https' }],
    ['X-Forwarded-Host', { 'x-forwarded-host': 'tierlink.example.com' }],
    ['X-Forwarded-Port', { 'x-forwarded-port': '443' }],
    ['Via', { via: '1.1 proxy' }],
    ['X-Real-IP naming loopback', { 'x-real-ip': '127.0.0.1' }],
    ['a public Host passed on', { host: 'tierlink.example.com' }],
  ])('%s: not local, so no metrics and no details', async (_name, headers) => {
    const metrics = await get(`${e.url}/metrics`, headers);
    expect(metrics.status).toBe(401);
    expect(await metrics.text()).not.toContain('tierlink_');
    expect(await (await get(`${e.url}/healthz`, headers)).json()).toEqual({ ok: true });
  });
});

describe('whose X-Forwarded-For names the client', () => {
  let e: E2E | undefined;
  afterEach(async () => {
    await e?.stop();
    e = undefined;
  });

  /** 61 requests to /link from outside, each naming another client; the statuses. */
  async function forgedClients(url: string): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) {
      statuses.push((await get(fromOutside(`${url}/link/not-a-token`), { 'x-forwarded-for': `198.51.100.${i}` })).status);
    }
    return statuses;
  }

  test('by default a client outside this machine cannot choose its budget by writing the header', async () => {
    e = await startE2E();
    const statuses = await forgedClients(e.url);
    expect(statuses.slice(0, 60).every((s) => s === 410)).toBe(true);
    expect(statuses[60]).toBe(429);
  });

  test('a proxy named in TRUST_PROXY is believed: each client it names has its own budget', async () => {
    e = await startE2E({ env: { TRUST_PROXY: `loopback, ${outsideAddress().replace(/^\[|\]$/g, '')}` } });
    expect((await forgedClients(e.url)).every((s) => s === 410)).toBe(true);
  });

  test('the default trusts the loopback address only: no private, link-local or unique-local network', () => {
    const config = parseConfig({
      DISCORD_TOKEN: 't',
      DISCORD_APPLICATION_ID: '123456789012345678',
      PATREON_CLIENT_ID: 'c',
      PATREON_CLIENT_SECRET: 's',
      DISCORD_CLIENT_SECRET: 'd',
    });
    if (!config.ok) throw config.error;
    expect(config.value.trustProxy).toBe('loopback');
    const trusts = express().set('trust proxy', config.value.trustProxy).get('trust proxy fn') as (a: string, i: number) => boolean;
    expect(['127.0.0.1', '::1'].map((a) => trusts(a, 0))).toEqual([true, true]);
    expect(['10.0.0.5', '192.168.1.20', '172.16.0.9', '169.254.1.1', 'fd00::5', '192.0.2.2'].map((a) => trusts(a, 0))).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
