import { generateKeyPairSync, sign } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { createInteractionsEndpoint, MAX_INTERACTION_BODY_BYTES } from '../../../../src/edges/inbound/web/interactions-endpoint';
import { createManualClock } from '@tierlink/sandbox';
import { silentLogger } from '../../../../src/shared/logger';

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const publicKeyHex = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('hex');
const clock = createManualClock(new Date('2026-11-20T12:00:00Z'));
const handled: Array<Record<string, unknown>> = [];
let server: Server;
let url: string;

beforeAll(async () => {
  const app = express();
  app.use('/interactions', createInteractionsEndpoint({ publicKeyHex, handle: (p) => handled.push(p), clock, logger: silentLogger }));
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/interactions`;
});
afterAll(() => new Promise((r) => server.close(r)));
beforeEach(() => handled.splice(0));

/** Signed as Discord signs: Ed25519 over the timestamp (seconds) followed by the raw body. */
function post(body: string, options: { at?: Date; signWith?: string; signature?: string | null } = {}) {
  const timestamp = String(Math.floor((options.at ?? clock.now()).getTime() / 1000));
  const signature = sign(null, Buffer.from(`${timestamp}${options.signWith ?? body}`), privateKey).toString('hex');
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'X-Signature-Timestamp': timestamp };
  if (options.signature !== null) headers['X-Signature-Ed25519'] = options.signature ?? signature;
  return fetch(url, { method: 'POST', headers, body });
}

const command = JSON.stringify({ id: '1', type: 2, token: 't', guild_id: '2', data: { name: 'status' } });

test('a signed PING is answered {"type":1} as JSON, and nothing is handed on', async () => {
  const res = await post(JSON.stringify({ id: '1', type: 1 }));
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(await res.json()).toEqual({ type: 1 });
  expect(handled).toEqual([]);
});

test('a signed command is handed on as parsed and answered 202 with no body', async () => {
  const res = await post(command);
  expect(res.status).toBe(202);
  expect(await res.text()).toBe('');
  expect(handled).toEqual([JSON.parse(command)]);
});

test('a missing, malformed or wrong signature, other bytes than signed, or a stale timestamp: 401, nothing handled', async () => {
  const refused = [
    await post(command, { signature: null }),
    await post(command, { signature: 'zz' }),
    await post(command, { signature: '00'.repeat(64) }),
    await post(command, { signWith: `${command} ` }),
    await post(command, { at: new Date(clock.now().getTime() - 10 * 60_000) }),
    await post(command, { at: new Date(clock.now().getTime() + 10 * 60_000) }),
  ];
  expect(refused.map((r) => r.status)).toEqual([401, 401, 401, 401, 401, 401]);
  expect(handled).toEqual([]);
});

test('a signed body that is not an interaction is 400; one above the size bound is 413', async () => {
  expect((await post('not json')).status).toBe(400);
  expect((await post('[1,2]')).status).toBe(400);
  expect((await post('x'.repeat(MAX_INTERACTION_BODY_BYTES + 1))).status).toBe(413);
  expect(handled).toEqual([]);
});

test('a compressed body is refused 415 unread, even when signed: the signature covers the bytes sent', async () => {
  const timestamp = String(Math.floor(clock.now().getTime() / 1000));
  const signature = sign(null, Buffer.from(`${timestamp}${command}`), privateKey).toString('hex');
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'Content-Encoding': 'gzip',
      'X-Signature-Timestamp': timestamp,
      'X-Signature-Ed25519': signature,
    },
    body: command,
  });
  expect(res.status).toBe(415);
  expect(handled).toEqual([]);
});

test('an address past its budget of refused requests is answered 429 unread, a signed command included, until its window ends', async () => {
  let now = 0;
  const lines: Array<Record<string, unknown>> = [];
  const logger = { ...silentLogger, warn: (fields: Record<string, unknown>) => void lines.push(fields) } as typeof silentLogger;
  const app = express();
  app.use(
    '/interactions',
    createInteractionsEndpoint({
      publicKeyHex,
      handle: (p) => handled.push(p),
      clock,
      logger,
      unverifiedLimit: { limit: 3, windowMs: 60_000 },
      limiterNow: () => now,
    }),
  );
  const limitedServer = app.listen(0, '127.0.0.1');
  await new Promise((r) => limitedServer.once('listening', r));
  const limitedUrl = `http://127.0.0.1:${(limitedServer.address() as AddressInfo).port}/interactions`;
  const timestamp = String(Math.floor(clock.now().getTime() / 1000));
  const signed = {
    'X-Signature-Timestamp': timestamp,
    'X-Signature-Ed25519': sign(null, Buffer.from(`${timestamp}${command}`), privateKey).toString('hex'),
  };
  const send = (headers: Record<string, string>) =>
    fetch(limitedUrl, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: command });
  try {
    // A signed PING or command is never counted.
    expect((await send(signed)).status).toBe(202);
    const forged = { 'X-Signature-Timestamp': timestamp, 'X-Signature-Ed25519': '00'.repeat(64) };
    expect([(await send(forged)).status, (await send(forged)).status, (await send(forged)).status]).toEqual([401, 401, 401]);
    const refused = await send(signed);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(handled).toHaveLength(1);
    // The signature never reaches a log line.
    expect(JSON.stringify(lines)).not.toContain('00'.repeat(64));
    now += 60_000;
    expect((await send(signed)).status).toBe(202);
    expect(handled).toHaveLength(2);
  } finally {
    await new Promise((r) => limitedServer.close(r));
  }
});
