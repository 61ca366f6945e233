import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { createDoctor } from './app/admin/doctor';
import { createMappingService, type ReconcileGuild } from './app/admin/mapping-service';
import { createSettingsService } from './app/admin/settings-service';
import { createTiersService } from './app/admin/tiers-service';
import { createBot } from './edges/bot';
import { createCreatorAccounts } from './edges/patreon/creator-accounts';
import type { Config } from './config';
import type { Database } from './edges/store/database';
import { openConfiguredDatabase } from './edges/store/open-configured';
import { createRepositories } from './edges/store/repositories';
import { createDiscordAccess } from './edges/discord';
import { createJobQueue, createJobStore } from './edges/store/job-queue';
import { createConnectService } from './app/admin/connect-service';
import { createLinkService } from './app/linking/link-service';
import { createOneTimeLinks } from './app/linking/one-time-links';
import { createStatusService } from './app/linking/status-service';
import { createWeb } from './edges/web';
import { checkHealth, healthChecks } from './edges/observability/health';
import { type Metrics, createMetrics } from './edges/observability/metrics';
import type { RetryPolicy } from './edges/patreon/http';
import { type Clock, type Random, type Sleep, realSleep, systemClock } from './shared/clock';
import { DAY } from './shared/clock';
import type { Logger } from './shared/logger';
import { createSecretBox } from './edges/store/secret-box';
import { loadOrCreateSecretKey } from './edges/store/secret-key';
import { createApiMeter } from './app/sync/api-meter';
import { createSync } from './app/sync';
import { createWebhooks } from './app/webhooks';
import { createInboxQueue } from './edges/store/durable-queue';
import { createWebhookEndpoint } from './edges/web/webhook-endpoint';

export interface TierlinkOptions {
  config: Config;
  logger: Logger;
  clock?: Clock;
  sleep?: Sleep;
  random?: Random;
  /** An open database (tests, the demo); otherwise the configured one is opened and owned. */
  database?: Database;
  metrics?: Metrics;
  /** Tests: how long discord.js waits for guilds listed in READY. */
  discordWaitGuildTimeoutMs?: number;
  /** Tests: faster back-off against the sandbox. */
  patreonRetry?: Partial<RetryPolicy>;
  /** Tests: faster sweeps of the durable queues. */
  pollMs?: number;
  /** How long `stop()` waits for in-flight work before it closes anyway (its leases then expire and a later start takes it). Default 10 s. */
  shutdownGraceMs?: number;
}

export interface Tierlink {
  /** Listens, connects the bot, registers commands and webhooks, schedules the sync. */
  start(): Promise<{ url: string; port: number }>;
  /** Graceful: stop taking requests, finish in-flight work within a bound, close the gateway and the database. */
  stop(): Promise<void>;
  publicUrl(): string;
  readonly services: ReturnType<typeof buildServices>;
}

function buildServices(options: TierlinkOptions, database: Database) {
  const { config, logger } = options;
  const clock = options.clock ?? systemClock;
  const sleep = options.sleep ?? realSleep;
  const random = options.random ?? Math.random;
  const metrics = options.metrics ?? createMetrics();
  const { db } = database;
  const box = createSecretBox(loadOrCreateSecretKey(config.secretKey, config.dataDir));

  let listeningUrl: string | null = null;
  const publicUrl = () => config.publicUrl ?? listeningUrl ?? `http://localhost:${config.port}`;
  const redirectUri = () => `${publicUrl()}/oauth/callback`;

  const repos = createRepositories(db, box);

  const discord = createDiscordAccess({ apiBaseUrl: config.discord.apiBaseUrl, token: config.discord.token, clock, logger, metrics });
  const { rest, directory, writer, snapshots: discordSnapshots } = discord;

  const accounts = createCreatorAccounts({
    service: {
      baseUrl: config.patreon.baseUrl,
      clientId: config.patreon.clientId,
      clientSecret: config.patreon.clientSecret,
      clock,
      sleep,
      random,
      logger,
      ...(options.patreonRetry ? { retry: options.patreonRetry } : {}),
      onRequest: (info) => {
        if (info.outcome !== 'ok' && info.errorKind) metrics.patreonErrors.inc({ kind: info.errorKind });
      },
    },
    credentials: repos.credentials,
    campaigns: repos.campaigns,
  });

  const oneTimeLinks = createOneTimeLinks({ repo: repos.linkTokens, box, clock, publicUrl });

  // Durable background work: each subsystem registers its own job kinds.
  const jobStore = createJobStore(db);
  const jobQueue = createJobQueue({
    store: jobStore,
    clock,
    random,
    logger,
    ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
  });

  // Sync: the one role applier, the reconciler of one member, the full sync and its scheduler.
  const meter = createApiMeter({ discordRest: rest.rest });
  const sync = createSync({
    repos,
    discord,
    accounts,
    database,
    jobs: jobQueue,
    schedule: config.syncSchedule,
    meter,
    clock,
    metrics,
    logger,
  });
  const { contexts, reconciler, fullSync, scheduler } = sync;
  const reconcileGuild: ReconcileGuild = (guildId, trigger) => sync.applyGuild(guildId, trigger);
  const requestCampaignSync = (campaignId: string, reason: string) => sync.requestCampaignSync(campaignId, reason);

  // Webhooks: receive, store durably, process at once; jobs for re-checks and campaign heals.
  const webhooks = createWebhooks({
    webhooks: repos.webhooks,
    inbox: createInboxQueue(db),
    jobs: { queue: jobQueue, store: jobStore },
    accounts,
    campaigns: repos.campaigns,
    snapshots: repos.snapshots,
    links: repos.links,
    reconciler,
    publicUrl,
    staticSecret: config.patreon.webhookSecret,
    withLock: (name, fn) => database.tryWithLock(name, fn),
    requestCampaignSync,
    metrics,
    logger,
    clock,
    random,
    pollMs: options.pollMs,
  });
  const { processor, registration } = webhooks;
  const receiver = createWebhookEndpoint(webhooks.intake);

  // Patron and creator flows.
  const linkService = createLinkService({ ...repos, oneTimeLinks, accounts, reconciler, clock, logger, metrics, redirectUri });
  const connectService = createConnectService({
    ...repos,
    oneTimeLinks,
    accounts,
    box,
    clock,
    logger,
    redirectUri,
    publicUrl,
    preferredCampaignId: config.patreon.campaignId,
    onBound: async (bound) => {
      const result = await registration.ensure(bound.campaignId);
      if (result.state === 'failed')
        logger.warn({ campaignId: bound.campaignId, detail: result.detail }, 'webhook registration failed at connect');
    },
  });
  const statusService = createStatusService({ ...repos, reconciler });
  const tiers = createTiersService({ ...repos, accounts, contexts, clock, logger });
  const mapping = createMappingService({
    mappings: repos.mappings,
    guilds: repos.guilds,
    tiers,
    snapshots: discordSnapshots,
    reconcileGuild,
    logger,
  });
  const settings = createSettingsService({ guilds: repos.guilds, snapshots: discordSnapshots, reconcileGuild, logger });
  const doctor = createDoctor({
    ...repos,
    accounts,
    contexts,
    snapshots: discordSnapshots,
    directory,
    clock,
    webhookHealth: async (campaignId) => {
      const health = await registration.health(campaignId);
      return {
        webhookId: health.webhookId,
        registered: health.exists,
        paused: health.paused ?? false,
        numConsecutiveTimesFailed: health.numConsecutiveTimesFailed ?? 0,
        checkedAt: health.checkedAt,
        manualSecret: health.manualSecret,
      };
    },
    lastSync: async (guildId) => {
      const run = await repos.syncRuns.lastFinished(guildId);
      return run
        ? {
            startedAt: run.startedAt,
            finishedAt: run.finishedAt,
            status: run.status,
            heldRemovals: run.heldRemovals,
            heldReason: run.heldReason,
            errors: run.errors,
          }
        : null;
    },
  });

  return {
    clock,
    metrics,
    database,
    box,
    repos,
    rest,
    directory,
    discordSnapshots,
    writer,
    accounts,
    contexts,
    reconciler,
    oneTimeLinks,
    fullSync,
    scheduler,
    webhooks,
    processor,
    receiver,
    registration,
    jobQueue,
    linkService,
    connectService,
    statusService,
    tiers,
    mapping,
    settings,
    doctor,
    reconcileGuild,
    publicUrl,
    redirectUri,
    setListeningUrl(url: string) {
      listeningUrl = url;
    },
    /** One sync run for `/sync` and the CLI: the same code path. */
    runSync: sync.runSync,
  };
}

/** Builds every part of Tierlink and wires them; nothing else wires (DESIGN.md). */
export async function createTierlink(options: TierlinkOptions): Promise<Tierlink> {
  const { config, logger } = options;
  const ownsDatabase = !options.database;
  const database = options.database ?? (await openConfiguredDatabase(config, logger));
  try {
    await database.migrate();
  } catch (error) {
    if (ownsDatabase) await database.close();
    throw error;
  }
  const services = buildServices(options, database);
  const { repos, metrics } = services;
  let shuttingDown = false;
  let server: http.Server | null = null;
  let housekeeping: NodeJS.Timeout | undefined;

  const bot = createBot({
    token: config.discord.token,
    applicationId: config.discord.applicationId,
    commandGuildId: config.discord.guildId,
    rest: services.rest.rest,
    logger,
    link: services.linkService,
    connect: services.connectService,
    status: services.statusService,
    tiers: services.tiers,
    mapping: services.mapping,
    settings: services.settings,
    runSync: services.runSync,
    doctor: services.doctor,
    members: services.reconciler,
    guilds: repos.guilds,
    roleSnapshots: services.discordSnapshots,
    registeredCommands: repos.appState,
    ...(options.discordWaitGuildTimeoutMs !== undefined ? { waitGuildTimeoutMs: options.discordWaitGuildTimeoutMs } : {}),
  });

  const app = createWeb({
    logger,
    metrics,
    oneTimeLinks: services.oneTimeLinks,
    linkService: services.linkService,
    connectService: services.connectService,
    guilds: repos.guilds,
    tierTitles: repos.campaigns,
    tiers: services.tiers,
    registration: services.registration,
    runSync: services.runSync,
    webhookRouter: services.receiver,
    health: () =>
      checkHealth(
        healthChecks({
          database,
          gateway: bot,
          credentials: repos.credentials,
          accounts: services.accounts,
          campaigns: repos.campaigns,
          registration: services.registration,
        }),
      ),
    isShuttingDown: () => shuttingDown,
  });

  async function connectCreatorFromEnvironment(guildIds: readonly string[]): Promise<void> {
    const { creatorAccessToken, creatorRefreshToken } = config.patreon;
    if (!creatorAccessToken) return;
    const unbound = [];
    for (const guildId of guildIds) if ((await repos.guilds.campaignsOf(guildId)).length === 0) unbound.push(guildId);
    const targets = config.discord.guildId ? [config.discord.guildId] : unbound;
    const bound = await services.connectService.connectFromEnvironment(
      { accessToken: creatorAccessToken, refreshToken: creatorRefreshToken ?? '' },
      targets,
    );
    logger.info({ guilds: bound.map((b) => b.guildId), campaign: bound[0]?.campaignId ?? null }, 'creator connected from the environment');
  }

  return {
    services,
    publicUrl: services.publicUrl,

    async start() {
      server = http.createServer(app);
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(config.port, () => resolve());
      });
      const port = (server.address() as AddressInfo).port;
      services.setListeningUrl(`http://localhost:${port}`);
      logger.info({ port, publicUrl: services.publicUrl() }, 'web server listening');

      services.webhooks.start();
      services.jobQueue.worker.start();

      await bot.start();
      try {
        await connectCreatorFromEnvironment(bot.guildIds());
      } catch (error) {
        logger.error({ err: error }, 'connecting the creator from PATREON_CREATOR_ACCESS_TOKEN failed; /connect still works');
      }
      services.registration.start();
      services.scheduler.start();
      housekeeping = setInterval(() => {
        void repos.linkTokens
          .prune(new Date(services.clock.now().getTime() - DAY))
          .catch((error) => logger.warn({ err: error }, 'pruning link tokens failed'));
      }, 60 * 60_000);
      housekeeping.unref();
      return { url: services.publicUrl(), port };
    },

    async stop() {
      if (shuttingDown) return;
      shuttingDown = true;
      clearInterval(housekeeping);
      const closing = server
        ? new Promise<void>((resolve) => {
            server!.close(() => resolve());
            server!.closeIdleConnections();
          })
        : Promise.resolve();
      await services.scheduler.stop();
      const grace = options.shutdownGraceMs ?? 10_000;
      const [webhooksDone, jobsDone] = await Promise.all([services.webhooks.stop(grace), services.jobQueue.worker.stop(grace)]);
      const finished = webhooksDone && jobsDone;
      if (!finished) logger.warn('stopped with work in flight; its leases expire and another start picks it up');
      await Promise.race([closing, new Promise((r) => setTimeout(r, 5000).unref())]);
      server?.closeAllConnections();
      await bot.stop();
      if (ownsDatabase) await database.close();
      logger.info('stopped');
    },
  };
}
