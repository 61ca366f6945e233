import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import express from 'express';
import { queryRows } from '../../../src/edges/outbound/store/database';
import { type WebhookRepository, createWebhookRepository } from '../../../src/edges/outbound/store/repositories/webhook-repository';
import { type JobHandler, type JobQueue, createJobQueue, createJobStore } from '../../../src/edges/outbound/store/job-queue';
import { createInboxQueue } from '../../../src/edges/outbound/store/durable-queue';
import { type Metrics, createMetrics } from '../../../src/edges/outbound/observability/metrics';
import { createLogger } from '../../../src/edges/outbound/observability/logger';
import { silentLogger } from '../../../src/shared/logger';
import type { Logger } from '../../../src/shared/logger';
import { createSecretBox } from '../../../src/edges/outbound/store/secret-box';
import { type WebhooksDeps, createWebhooks } from '../../../src/app/webhooks';
import { parsePatreonDelivery } from '../../../src/edges/outbound/patreon/delivery-parser';
import { WEBHOOK_PATH } from '../../../src/app/webhooks/delivery';
import type { WebhookProcessor } from '../../../src/app/webhooks/processor';
import type { WebhookRegistration } from '../../../src/app/webhooks/registration';
import type { WebhookSecrets } from '../../../src/app/webhooks/webhook-secrets';
import { createWebhookEndpoint } from '../../../src/edges/inbound/web/webhook-endpoint';
import { SECRET_KEY, type World } from '../../support/world';

/**
 * One Tierlink instance as far as webhooks go, built by `createWebhooks` as the composition root
 * builds it: the endpoint on a real express server (port 0), the processor over the inbox, the job
 * queue with the re-check handler, and registration pointed at the server. Over the shared test world.
 */
export interface Instance {
  url: string;
  webhookUrl: string;
  server: Server;
  metrics: Metrics;
  webhooks: WebhookRepository;
  secrets: WebhookSecrets;
  processor: WebhookProcessor;
  jobs: JobQueue;
  registration: WebhookRegistration;
  syncRequests: Array<{ campaignId: string; reason: string }>;
  /** Waits until every delivery the sandbox sent so far has been answered and processed. */
  idle(): Promise<void>;
  /** Stops everything in order. */
  close(): Promise<void>;
  /** Drops the instance the way a killed process would: connections cut, no draining, nothing marked done. */
  crash(): Promise<void>;
}

export interface InstanceOptions {
  /** False: the receiver stores and answers but nothing processes (a processor that died). Default true. */
  process?: boolean;
  staticSecret?: string;
  /** Where the membership service is (PATREON_BASE_URL); the stand-in's address by default. */
  serviceBaseUrl?: string;
  logger?: Logger;
  recheckDelayMs?: number;
  /**
   * How long a member read for a delivery covers later ones (`MemberRefreshDeps.readWindowMs`).
   * Default 0 here: the world's clock stands still, so with the product's 5 s every later delivery
   * for a member would wait for a re-check; the tests of the window set it.
   */
  readWindowMs?: number;
  immediateConcurrency?: number;
  /** Job kinds of the caller (the sync subsystem's `campaign-sync`), worked by the same durable queue. */
  jobHandlers?: Record<string, JobHandler>;
  /** The lease on a claimed delivery, and how often it is renewed while worked. */
  lockMs?: number;
  renewEveryMs?: number;
  /** The delivery parser (default the Patreon adapter's); a test wraps it to count the parses. */
  parseDelivery?: WebhooksDeps['parseDelivery'];
  /** What registration does with a paused or failing webhook. Default: recorded in `syncRequests`. */
  requestCampaignSync?: WebhooksDeps['requestCampaignSync'];
}

export async function startInstance(world: World, options: InstanceOptions = {}): Promise<Instance> {
  const logger = options.logger ?? silentLogger;
  const { clock } = world;
  const db = world.db.database.db;
  const metrics = createMetrics({ defaultMetrics: false });
  const webhooks = createWebhookRepository(db, createSecretBox(SECRET_KEY));
  // The server listens first, so the webhook uri is known when registration is built; the endpoint is mounted after.
  const app = express();
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const syncRequests: Instance['syncRequests'] = [];
  const shut = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  const jobStore = createJobStore(db);
  const jobs = createJobQueue({ store: jobStore, clock, random: () => 0.5, logger, handlers: options.jobHandlers ?? {} });
  const subsystem = (() => {
    try {
      return createWebhooks({
        webhooks,
        inbox: createInboxQueue(db),
        jobs: { queue: jobs, store: jobStore },
        accounts: world.accounts,
        campaigns: world.repos.campaigns,
        credentials: world.repos.credentials,
        snapshots: world.repos.snapshots,
        links: world.repos.links,
        intake: world.intake,
        parseDelivery: options.parseDelivery ?? parsePatreonDelivery,
        publicUrl: url,
        serviceBaseUrl: options.serviceBaseUrl ?? world.patreon.url,
        staticSecret: options.staticSecret,
        withLock: world.db.database.tryWithLock,
        requestCampaignSync:
          options.requestCampaignSync ??
          ((campaignId, reason) => {
            syncRequests.push({ campaignId, reason });
          }),
        metrics,
        logger,
        clock,
        random: () => 0.5,
        recheckDelayMs: options.recheckDelayMs,
        readWindowMs: options.readWindowMs ?? 0,
        immediateConcurrency: options.immediateConcurrency,
        lockMs: options.lockMs,
        renewEveryMs: options.renewEveryMs,
      });
    } catch (error) {
      void shut();
      throw error;
    }
  })();
  const { secrets, processor, registration } = subsystem;

  const started = new Set<Promise<void>>();
  const { onAccepted, ...intake } = subsystem.intake;
  app.use(
    WEBHOOK_PATH,
    createWebhookEndpoint({
      ...intake,
      ...(options.process === false
        ? {}
        : {
            onAccepted: (id: number) => {
              const run = onAccepted(id);
              started.add(run);
              void run.finally(() => started.delete(run));
              return run;
            },
          }),
    }),
  );

  return {
    url,
    webhookUrl: `${url}${WEBHOOK_PATH}`,
    server,
    metrics,
    webhooks,
    secrets,
    processor,
    jobs,
    registration,
    syncRequests,
    async idle() {
      for (let round = 0; round < 50; round++) {
        await world.patreon.flushDeliveries();
        await new Promise((r) => setImmediate(r));
        if (started.size === 0 && processor.worker.inFlight === 0 && jobs.worker.inFlight === 0) return;
        await Promise.allSettled([...started]);
        await new Promise((r) => setTimeout(r, 5));
      }
      throw new Error('the instance did not become idle');
    },
    async close() {
      await Promise.all([subsystem.stop(5000), jobs.worker.stop(5000)]);
      await shut();
    },
    async crash() {
      await shut();
      // A killed process leaves no timers behind; these stop only the sweeps, not the work in flight.
      void subsystem.stop(0);
      void jobs.worker.stop(0);
    },
  };
}

export async function inboxRows(
  world: World,
): Promise<Array<{ id: number; status: string; trigger: string | null; campaign_id: string | null; attempts: number }>> {
  const rows = await queryRows<{ id: number; status: string; trigger: string | null; campaign_id: string | null; attempts: number }>(
    world.db.database.db,
    sql`select id, status, trigger, campaign_id, attempts from webhook_inbox order by id`,
  );
  return rows.map((r) => ({ ...r, id: Number(r.id), attempts: Number(r.attempts) }));
}

export async function jobRows(
  world: World,
): Promise<Array<{ kind: string; status: string; payload: Record<string, unknown>; dedupe_key: string | null }>> {
  return queryRows(world.db.database.db, sql`select kind, status, payload, dedupe_key from jobs order by id`);
}

/** PUT and DELETE requests on member roles that the Discord stand-in answered. */
export function roleWrites(world: World): Array<{ method: string; path: string; status: number }> {
  return world.discord.sandbox
    .requests()
    .filter((r) => r.route.includes('/members/:u/roles/:r'))
    .map((r) => ({ method: r.method, path: r.path, status: r.status }));
}

/** A counter's value summed over the series whose labels include `labels`; for a histogram, its observation count. */
export async function metricValue(metrics: Metrics, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = metrics.registry.getSingleMetric(name);
  if (!metric) return 0;
  const { type, values } = await metric.get();
  const wanted = String(type) === 'histogram' ? `${name}_count` : name;
  return (values as Array<{ value: number; labels: object; metricName?: string }>)
    .filter((v) => (v.metricName ?? name) === wanted)
    .filter((v) => Object.entries(labels).every(([k, want]) => (v.labels as Record<string, unknown>)[k] === want))
    .reduce((sum, v) => sum + v.value, 0);
}

/** A production-configured logger (redaction included) that keeps its lines in memory. */
export function memoryLogger(level = 'debug'): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level, destination: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) } });
  return { logger, lines };
}
