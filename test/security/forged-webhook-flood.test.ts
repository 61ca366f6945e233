import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { sql } from 'drizzle-orm';
import { standInEnvironment } from '@tierlink/sandbox';
import { type DiscordSandbox, createDiscordSandbox } from '@tierlink/sandbox/discord';
import { type MembershipServiceSandbox, createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { type ScratchPostgres, createScratchPostgres } from '../../bench/scratch-database';
import { signWebhookBody } from '../../src/app/webhooks/verify-signature';
import { openDatabase, queryRows } from '../../src/edges/outbound/store/database';
import { silentLogger } from '../../src/shared/logger';
import { type ServiceProcess, startServiceProcess } from '../support/service-process';
import { onPostgres } from '../support/test-database';

/**
 * Attack: flood the webhook endpoint with forged deliveries (bad signatures), from one address and
 * from 10,000 addresses (as a proxy in front of Tierlink reports them), 10,000 requests each. Refusal:
 * no inbox row, no database write; the process's memory and its log stay bounded. The figures are
 * printed (they are measurements, not the assertion); the assertions are the bounds.
 */

const SECRET = 'the-real-webhook-secret';
const TOTAL = 10_000;
const CONCURRENCY = 50;

let patreon: MembershipServiceSandbox;
let discord: DiscordSandbox;
let dataDir: string;
let scratch: ScratchPostgres | null = null;
let service: ServiceProcess;

beforeAll(async () => {
  patreon = await createMembershipServiceSandbox();
  discord = await createDiscordSandbox({ botPublic: false });
  const { guildId } = discord.createGuild({ name: 'Flood Club' });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-flood-'));
  if (onPostgres()) scratch = await createScratchPostgres(process.env.DATABASE_URL!, 'tierlink_test');
  service = startServiceProcess(
    {
      ...standInEnvironment(patreon, discord, guildId),
      DATA_DIR: dataDir,
      SECRET_KEY: 'flood-test-secret-key-that-is-long-enough-1',
      PATREON_WEBHOOK_SECRET: SECRET,
      LOG_LEVEL: 'info',
      ...(scratch ? { DATABASE_URL: scratch.url } : {}),
    },
    dataDir,
  );
});

afterAll(async () => {
  service.child.kill('SIGKILL');
  await service.exited;
  await discord.close();
  await patreon.close();
  await scratch?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const body = JSON.stringify({
  data: {
    type: 'member',
    id: '0f3a1c2e-1111-2222-3333-444455556666',
    attributes: {
      patron_status: 'active_patron',
      currently_entitled_amount_cents: 100000,
      full_name: 'Forged Fred',
      note: 'x'.repeat(400),
    },
    relationships: { campaign: { data: { type: 'campaign', id: '5000001' } }, user: { data: { type: 'user', id: '666' } } },
  },
});

async function flood(url: string, headersOf: (i: number) => Record<string, string>): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < TOTAL) {
        const i = next++;
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-patreon-event': 'members:pledge:create', ...headersOf(i) },
          body,
        });
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    }),
  );
  return statuses;
}

async function tableCounts(): Promise<{ inbox: number; seen: number }> {
  const database = scratch
    ? await openDatabase({ engine: 'postgres', url: scratch.url, logger: silentLogger, poolSize: 1 })
    : await openDatabase({ engine: 'pglite', dataDir, logger: silentLogger });
  try {
    const [row] = await queryRows<{ inbox: number; seen: number }>(
      database.db,
      sql`select (select count(*)::int from webhook_inbox) as inbox, (select count(*)::int from webhook_seen) as seen`,
    );
    return row!;
  } finally {
    await database.close();
  }
}

/**
 * The minute-long windows (of the address budget, of the log's sampling) that a flood lasting `ms`
 * opens when the first window starts with it: a loaded machine can take longer than a minute.
 */
const windowsIn = (ms: number): number => Math.floor(ms / 60_000) + 1;

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

test('10,000 forged deliveries from one address, then from 10,000 addresses: nothing stored, memory and log bounded', async () => {
  const base = await service.running();
  const url = `${base}/webhooks/patreon`;
  // Start-up (the embedded database especially) peaks and settles: warm the HTTP path, then measure.
  for (let i = 0; i < 200; i++) await (await fetch(`${base}/healthz`)).arrayBuffer();
  await new Promise((r) => setTimeout(r, 5000));
  const rss0 = service.rss();
  const log0 = service.outputBytes();

  const started = Date.now();
  const one = await flood(url, (i) => ({ 'x-patreon-signature': signWebhookBody('not-the-secret', `${body}${i}`) }));
  const oneMs = Date.now() - started;
  const rss1 = service.rss();
  const log1 = service.outputBytes();
  // 30 refused after verification, then refused unread. Requests already past the budget check when
  // the 30th failure is counted (at most CONCURRENCY - 1 of them) are still verified and refused.
  // The budget is 30 a minute: a flood that a loaded machine stretches past a minute gets 30 more.
  const verified = one.get(401) ?? 0;
  expect(verified).toBeGreaterThanOrEqual(30);
  expect(verified).toBeLessThan(30 * windowsIn(oneMs) + CONCURRENCY);
  expect(Object.fromEntries(one)).toEqual({ 401: verified, 429: TOTAL - verified });

  const startedMany = Date.now();
  const many = await flood(url, (i) => ({
    'x-patreon-signature': signWebhookBody('not-the-secret', `${body}${i}`),
    // Through a proxy on this machine (trusted): every request from another client.
    'x-forwarded-for': `198.51.${Math.floor(i / 250)}.${i % 250}`,
  }));
  const manyMs = Date.now() - startedMany;
  const rss2 = service.rss();
  const log2 = service.outputBytes();
  expect(Object.fromEntries(many)).toEqual({ 401: TOTAL });

  // Compressed: refused before anything is inflated, even when the compressed bytes are signed.
  const gz = gzipSync(Buffer.from(body));
  const compressed = await fetch(url, {
    method: 'POST',
    headers: {
      'content-encoding': 'gzip',
      'content-type': 'application/json',
      'x-patreon-signature': signWebhookBody(SECRET, gz),
      'x-forwarded-for': '203.0.113.50',
    },
    body: gz,
  });
  expect(compressed.status).toBe(415);

  process.stdout.write(
    `\nforged-webhook flood (${scratch ? 'PostgreSQL' : 'PGlite'}):\n` +
      `  one address:     ${TOTAL} requests in ${oneMs} ms; RSS ${mib(rss0)} → ${mib(rss1)}; log +${log1 - log0} bytes\n` +
      `  10,000 addresses: ${TOTAL} requests in ${manyMs} ms; RSS ${mib(rss1)} → ${mib(rss2)}; log +${log2 - log1} bytes\n`,
  );
  // At most 30 rejection lines a minute (sampled, about 9 KiB) plus a line per address that went over
  // its budget (at most 10 a minute). The second flood can begin inside the sampling's last window.
  expect(log1 - log0).toBeLessThan(16 * 1024 * windowsIn(oneMs));
  expect(log2 - log1).toBeLessThan(16 * 1024 * (windowsIn(manyMs) + 1));
  expect(rss2 - rss0).toBeLessThan(64 * 1024 * 1024);

  service.child.kill('SIGTERM');
  expect(await service.exited).toBe(0);
  expect(await tableCounts()).toEqual({ inbox: 0, seen: 0 });
}, 300_000);
