import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkPublicUrl } from '../../../../src/edges/outbound/observability/public-url-check';
import { createLogger } from '../../../../src/edges/outbound/observability/logger';
import { MemoryLog } from '../../../support/e2e';
import { freePort } from '../../../support/service-process';

/** PUBLIC_URL is asked for /healthz after start: a Tierlink answers `{"ok": …}`; anything else is one warning naming PUBLIC_URL. */

async function serve(handler: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

function check(publicUrl: string) {
  const log = new MemoryLog();
  const logger = createLogger({ level: 'info', destination: log });
  return { log, done: checkPublicUrl({ publicUrl, logger, attempts: 2, delayMs: 10 }) };
}

test('an address that answers as Tierlink (200 or 503 with {"ok": …}) passes silently', async () => {
  const tierlink = await serve((_req, res) => {
    res.writeHead(503, { 'content-type': 'application/json' });
    res.end('{"ok":false}');
  });
  try {
    const { log, done } = check(tierlink.url);
    expect(await done).toBe(true);
    expect(log.lines).toEqual([]);
  } finally {
    await tierlink.close();
  }
});

test('an address that reaches another server: one warning naming PUBLIC_URL, what answered, and the fix', async () => {
  const other = await serve((_req, res) => {
    res.writeHead(404);
    res.end('Not Found');
  });
  try {
    const { log, done } = check(other.url);
    expect(await done).toBe(false);
    expect(log.lines).toHaveLength(1);
    expect(JSON.parse(log.lines[0]!)).toMatchObject({
      level: 40,
      msg: `PUBLIC_URL ${other.url} does not reach this Tierlink (GET /healthz: it answered 404 and not as Tierlink: it reaches another server): set PUBLIC_URL to the https address people and Patreon reach it at (docs/operating.md, "HTTPS"), and register ${other.url}/oauth/callback on Patreon's portal → My Clients → your client.`,
    });
  } finally {
    await other.close();
  }
});

test('an address nobody answers at: the warning says so, with the errno', async () => {
  const url = `http://127.0.0.1:${await freePort()}`;
  const { log, done } = check(url);
  expect(await done).toBe(false);
  expect(JSON.parse(log.lines[0]!).msg).toContain(
    `PUBLIC_URL ${url} does not reach this Tierlink (GET /healthz: no answer (ECONNREFUSED))`,
  );
});

test('a service that stops meanwhile ends the check without a warning', async () => {
  const url = `http://127.0.0.1:${await freePort()}`;
  const log = new MemoryLog();
  const stopping = new AbortController();
  const done = checkPublicUrl({
    publicUrl: url,
    logger: createLogger({ level: 'info', destination: log }),
    attempts: 3,
    delayMs: 60_000,
    signal: stopping.signal,
  });
  setTimeout(() => stopping.abort(), 50);
  expect(await done).toBe(false);
  expect(log.lines).toEqual([]);
});
