import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import express from 'express';
import { storeCampaign } from '../src/app/admin/campaign-catalog';
import { WEBHOOK_PATH } from '../src/app/webhooks/delivery';
import { signWebhookBody } from '../src/app/webhooks/verify-signature';
import { createWebhookEndpoint } from '../src/edges/inbound/web/webhook-endpoint';
import { systemClock } from '../src/shared/clock';
import { createDiscordSandbox } from '@tierlink/sandbox/discord';
import { createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { type ScratchDatabase, openScratchDatabase } from './scratch-database';
import { serviceOver } from '../test/support/service-over';
import { UNPACED_PATREON } from '../test/support/raised-limits';

/**
 * Webhook figures for `npm run bench`:
 * - the latency from a member change in the membership-service stand-in to the role change on the
 *   Discord stand-in, through the whole path (signed delivery over HTTP → receiver → inbox → processor
 *   → re-read → snapshot → reconciler → Discord REST), median and p99 over `changes` changes;
 * - accepted deliveries per second at the receiver (signature verification and the durable inbox
 *   write, processing not started), with `concurrency` deliveries in flight.
 *
 * Each database is fresh: PGlite in a temporary data directory (the production default, on disk),
 * and PostgreSQL in a temporary database created under `postgresUrl` and dropped afterwards.
 * Both stand-ins run in this process, so the figures include their cost; they are one machine's.
 */
export interface WebhookBenchOptions {
  /** A PostgreSQL server URL (a database on it is created and dropped); PostgreSQL rows are skipped without it. */
  postgresUrl?: string;
  /** Member changes for the latency figure. Default 500. */
  changes?: number;
  /** Deliveries for the throughput figure (after a warm-up). Default 5,000. */
  deliveries?: number;
  concurrency?: number;
}

export interface BenchRow {
  name: string;
  value: string;
  goal?: string;
}

function listen(app: express.Express): Promise<{ server: http.Server; url: string }> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
  });
}

function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

/**
 * Both stand-ins, and Tierlink's services over `db` as the composition root builds them, with the
 * webhook endpoint served over HTTP. `process: false`
 * leaves answered deliveries in the inbox (the receiver-only figure).
 */
async function startStack(db: ScratchDatabase, options: { process: boolean }) {
  const clock = systemClock;
  const raisedLimits =
    "the figures are Tierlink's own (deliveries accepted, change → role); Discord's and Patreon's pace have their own rows";
  const patreon = await createMembershipServiceSandbox({ clock, rateLimits: 'none', raisedLimits });
  const discord = await createDiscordSandbox({
    rateLimits: { global: { limit: 10_000, windowMs: 1000 }, routes: { 'member-role': { limit: 100_000, windowMs: 1_000 } } },
    raisedLimits,
  });
  // The service as the composition root builds it (as `npm start` does), over the stand-ins: its pace raised with theirs.
  const services = serviceOver({ patreon, discord, raisedLimits }, db.database, {
    clock,
    random: Math.random,
    patreonLimits: UNPACED_PATREON,
    // The client's own back-off, not the tests' quick one.
    patreonRetry: {},
    discordAccess: { rest: { globalRequestsPerSecond: 10_000 } },
  });
  const { repos, accounts, webhooks } = services;
  // The web server the service's webhook endpoint is mounted on; registration names its address.
  const app = express();
  const { server, url } = await listen(app);
  services.setListeningUrl(url);
  const { onAccepted, ...intake } = webhooks.intake;
  app.use(WEBHOOK_PATH, createWebhookEndpoint(options.process ? { ...intake, onAccepted } : intake));
  return {
    clock,
    patreon,
    discord,
    repos,
    accounts,
    webhooks,
    url,
    async close(graceMs: number) {
      await webhooks.stop(graceMs);
      await services.discordBudget?.close?.();
      await closeServer(server);
      await patreon.close();
      await discord.close();
    },
  };
}

/** The whole path, built as the composition root builds it, against both stand-ins. */
async function measureLatency(db: ScratchDatabase, changes: number): Promise<BenchRow[]> {
  const { clock, patreon, discord, repos, accounts, webhooks, close } = await startStack(db, { process: true });
  try {
    const guild = discord.createGuild({ name: 'Bench Club' });
    const roles = {
      silver: discord.createRole(guild.guildId, { name: 'Silver', position: 1 }).id,
      gold: discord.createRole(guild.guildId, { name: 'Gold', position: 1 }).id,
    };
    const tiers = {
      silver: patreon.createTier(patreon.campaignId, { title: 'Silver', amountCents: 500, chatRoleIds: [roles.silver] }).id,
      gold: patreon.createTier(patreon.campaignId, { title: 'Gold', amountCents: 1000, chatRoleIds: [roles.gold] }).id,
    };
    const connected = await accounts.connect({
      accessToken: patreon.creatorTokens.accessToken,
      refreshToken: patreon.creatorTokens.refreshToken,
      expiresAt: new Date(clock.now().getTime() + patreon.creatorTokens.expiresIn * 1000),
      scopes: patreon.creatorTokens.scopes,
    });
    await storeCampaign(
      { campaigns: repos.campaigns, clock },
      connected.creatorUserId,
      await connected.client.getCampaign(patreon.campaignId),
    );
    await repos.guilds.ensure(guild.guildId, 'Bench Club');
    await repos.guilds.bind(guild.guildId, patreon.campaignId);

    const registered = await webhooks.registration.ensure(patreon.campaignId);
    if (registered.state !== 'registered') throw new Error(`webhook registration: ${registered.detail}`);
    webhooks.processor.start();

    const patrons = Array.from({ length: 10 }, (_, i) => {
      const discordUserId = discord.addMember(guild.guildId, { username: `bench${i}` }).userId;
      const user = patreon.createUser({ fullName: `Bench Patron ${i}` });
      return { discordUserId, patreonUserId: user.id, tier: 'silver' as 'silver' | 'gold' };
    });
    for (const p of patrons) await repos.links.linkOauth('patreon', p.discordUserId, p.patreonUserId, clock.now());

    const change = async (p: (typeof patrons)[number], to: 'silver' | 'gold'): Promise<number> => {
      const from = p.tier;
      const start = performance.now();
      patreon.setMembership(p.patreonUserId, patreon.campaignId, {
        patronStatus: 'active_patron',
        tierIds: [tiers[to]],
        lastChargeStatus: 'Paid',
        lastChargeDate: clock.now(),
      });
      await discord.waitForMemberRole(guild.guildId, p.discordUserId, roles[to], { present: true, timeoutMs: 10_000 });
      if (from !== to) await discord.waitForMemberRole(guild.guildId, p.discordUserId, roles[from], { present: false, timeoutMs: 10_000 });
      p.tier = to;
      return performance.now() - start;
    };
    // Warm-up: every patron gets a first role (creates members, fills caches and JIT).
    for (const p of patrons) await change(p, 'silver');
    for (const p of patrons) await change(p, 'gold');

    const samples: number[] = [];
    for (let i = 0; i < changes; i++) {
      const p = patrons[i % patrons.length]!;
      samples.push(await change(p, p.tier === 'gold' ? 'silver' : 'gold'));
    }
    await patreon.flushDeliveries();
    await webhooks.stop(5000);
    samples.sort((a, b) => a - b);
    return [
      { name: `Webhook: member change → role change, median (${changes} changes, ${db.label})`, value: ms(percentile(samples, 50)) },
      {
        name: `Webhook: member change → role change, p99 (${changes} changes, ${db.label})`,
        value: ms(percentile(samples, 99)),
        goal: '< 250 ms',
      },
    ];
  } finally {
    await close(1000);
  }
}

/** A member delivery body of the size and shape the service sends (spec: Events, Delivery §1). */
function memberDeliveryBody(campaignId: string, n: number): string {
  return JSON.stringify({
    data: {
      type: 'member',
      id: `6e2c0d4f-95b1-4c49-9a51-${String(n).padStart(12, '0')}`,
      attributes: {
        currently_entitled_amount_cents: 500,
        full_name: `Bench Patron ${n}`,
        is_follower: false,
        last_charge_date: '2026-11-01T10:00:00.000+00:00',
        last_charge_status: 'Paid',
        lifetime_support_cents: 3500,
        note: '',
        patron_status: 'active_patron',
        pledge_relationship_start: '2026-05-01T10:00:00.000+00:00',
      },
      relationships: {
        address: { data: null },
        campaign: { data: { type: 'campaign', id: campaignId } },
        currently_entitled_tiers: { data: [{ type: 'tier', id: '7000002' }] },
        user: { data: { type: 'user', id: String(1_000_000 + n) } },
      },
    },
    included: [
      {
        type: 'campaign',
        id: campaignId,
        attributes: {
          created_at: '2025-01-01T00:00:00.000Z',
          creation_name: 'things',
          is_monthly: true,
          patron_count: 1200,
          pledge_url: '/checkout/casey',
          summary: 'A campaign',
          url: 'https://example.invalid/casey',
          vanity: 'casey',
        },
      },
      {
        type: 'tier',
        id: '7000002',
        attributes: {
          title: 'Silver',
          amount_cents: 500,
          published: true,
          chat_role_ids: ['123456789012345678'],
          description: '',
          url: '/checkout/casey?rid=7000002',
        },
      },
      {
        type: 'user',
        id: String(1_000_000 + n),
        attributes: {
          full_name: `Bench Patron ${n}`,
          vanity: null,
          url: `https://example.invalid/user?u=${n}`,
          social_connections: { discord: { user_id: '223456789012345678', url: null }, twitch: null, youtube: null },
        },
      },
    ],
    links: { self: `https://example.invalid/api/oauth2/v2/members/${n}` },
  });
}

/** Receiver only: verification against the stored secrets and the inbox INSERT, answered 200. */
async function measureThroughput(db: ScratchDatabase, deliveries: number, concurrency: number): Promise<BenchRow> {
  const { clock, repos, url, close } = await startStack(db, { process: false });
  const campaigns = ['5000001', '5000002', '5000003'];
  for (const [i, campaignId] of campaigns.entries()) {
    await repos.webhooks.upsert(
      {
        id: `90000${i}`,
        campaignId,
        uri: 'http://127.0.0.1/webhooks/patreon',
        triggers: ['members:update'],
        secret: `bench-secret-${i}`,
        paused: false,
        numConsecutiveTimesFailed: 0,
        lastAttemptedAt: null,
      },
      clock.now(),
    );
  }
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const target = new URL(`${url}${WEBHOOK_PATH}`);
  // The last campaign's secret signs, so every candidate is tried before the match.
  // Every delivery its own body: the same bytes twice would be a replay, acknowledged and not stored.
  const warmUp = Math.min(500, deliveries);
  const bodies = Array.from({ length: warmUp + deliveries }, (_, n) => {
    const body = Buffer.from(memberDeliveryBody(campaigns[2]!, n), 'utf8');
    return { body, signature: signWebhookBody('bench-secret-2', body) };
  });

  const post = (n: number) =>
    new Promise<number>((resolve, reject) => {
      const { body, signature } = bodies[n]!;
      const req = http.request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': body.length,
            'x-patreon-event': 'members:update',
            'x-patreon-signature': signature,
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  const run = async (from: number, count: number) => {
    let next = from;
    let failed = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < from + count) {
          const n = next++;
          if ((await post(n)) !== 200) failed++;
        }
      }),
    );
    if (failed > 0) throw new Error(`${failed} of ${count} deliveries were not accepted`);
  };

  try {
    await run(0, warmUp);
    const start = performance.now();
    await run(warmUp, deliveries);
    const seconds = (performance.now() - start) / 1000;
    return {
      name: `Webhook: accepted deliveries/s, verified and durably written (${db.label}, ${concurrency} in flight)`,
      value: `${Math.round(deliveries / seconds).toLocaleString('en-US')}/s`,
      goal: '≥ 1,000/s',
    };
  } finally {
    agent.destroy();
    await close(1000);
  }
}

export async function runWebhookBenchmarks(options: WebhookBenchOptions = {}): Promise<BenchRow[]> {
  const changes = options.changes ?? 500;
  const deliveries = options.deliveries ?? 5000;
  const concurrency = options.concurrency ?? 32;
  const rows: BenchRow[] = [];
  const engines: Array<() => Promise<ScratchDatabase>> = [() => openScratchDatabase()];
  if (options.postgresUrl) {
    const url = options.postgresUrl;
    engines.push(() => openScratchDatabase(url));
  }
  for (const open of engines) {
    let db = await open();
    try {
      rows.push(...(await measureLatency(db, changes)));
    } finally {
      await db.close();
    }
    db = await open();
    try {
      rows.push(await measureThroughput(db, deliveries, concurrency));
    } finally {
      await db.close();
    }
  }
  return rows;
}
