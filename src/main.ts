import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { createDoctor, renderDoctor } from './app/admin/doctor';
import { createMappingService, type ReconcileGuild } from './app/admin/mapping-service';
import { createSettingsService } from './app/admin/settings-service';
import { createTiersService } from './app/admin/tiers-service';
import type { DiscordBot } from './edges/bot/discord-bot';
import { createDiscordBot } from './edges/bot/discord-bot';
import { COMMANDS } from './edges/bot/commands';
import { createInteractionRouter } from './edges/bot/interaction-router';
import { registerCommands } from './edges/bot/register-commands';
import { createCreatorAccounts } from './edges/patreon/creator-accounts';
import type { Config } from './config';
import type { Database } from './edges/store/database';
import { openConfiguredDatabase } from './edges/store/open-configured';
import { createRepositories } from './edges/store/repositories';
import { createGuildDirectory, createGuildSnapshotCache, createRest, createRoleWriter } from './edges/discord';
import { createConnectService } from './app/admin/connect-service';
import { createLinkService } from './app/linking/link-service';
import { createOneTimeLinks } from './app/linking/one-time-links';
import { createStatusService } from './app/linking/status-service';
import { createWebApp } from './edges/web/app';
import { connectResultView } from './edges/web/connect-result-view';
import { checkHealth } from './edges/observability/health';
import { type Metrics, createMetrics } from './edges/observability/metrics';
import type { RetryPolicy } from './edges/patreon/http';
import { type Clock, type Random, type Sleep, realSleep, systemClock } from './shared/clock';
import { DAY } from './shared/clock';
import type { Logger } from './shared/logger';
import { createSecretBox } from './edges/store/secret-box';
import { loadOrCreateSecretKey } from './edges/store/secret-key';
import { createFullSync, createApiMeter } from './app/sync/full-sync';
import { createGuildContextLoader } from './app/sync/guild-context';
import { createReconciler } from './app/sync/reconciler';
import { formatSyncReport } from './core/sync-report';
import { createSyncScheduler, isSkipped } from './app/sync/sync-scheduler';
import { createWebhooks } from './app/webhooks';
import { createInboxQueue } from './edges/store/durable-queue';
import { createJobStore } from './edges/store/job-queue';
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

  const rest = createRest({
    apiBaseUrl: config.discord.apiBaseUrl,
    token: config.discord.token,
    logger,
    onRateLimited: (event) => metrics.discordRateLimited.inc({ scope: event.global ? 'global' : event.scope || 'route' }),
  });
  const directory = createGuildDirectory({ rest: rest.rest });
  const discordSnapshots = createGuildSnapshotCache({ directory, clock });
  const writer = createRoleWriter({ rest: rest.rest, directory, clock, logger, cache: discordSnapshots });

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

  const contexts = createGuildContextLoader({ ...repos, discordSnapshots });
  const apply = { writer, ledger: repos.ledger, clock, metrics, logger };
  const reconciler = createReconciler({ ...repos, contexts, directory, apply });
  const oneTimeLinks = createOneTimeLinks({ repo: repos.linkTokens, box, clock, publicUrl });

  // Full sync: the nightly run, /sync, npm run sync, the heal after a paused webhook, and the
  // guild-wide reconcile after /map or /settings (from stored snapshots, without re-reading the service).
  const meter = createApiMeter({ discordRest: rest.rest });
  const fullSync = createFullSync({ ...repos, contexts, directory, accounts, apply, meter });
  const scheduler = createSyncScheduler({ schedule: config.syncSchedule, database, fullSync, logger, runs: repos.syncRuns, clock });
  const reconcileGuild: ReconcileGuild = async (guildId, reason) => {
    const report = await fullSync.run({ trigger: 'manual', guildId, refreshMembers: false });
    const guild = report.guilds.find((g) => g.guildId === guildId);
    logger.info({ guildId, reason, changes: guild?.applied }, 'guild reconciled after a configuration change');
    return { members: guild?.linkedMembers ?? 0, changes: (guild?.applied.adds ?? 0) + (guild?.applied.removes ?? 0) };
  };

  // Webhooks: receive, store durably, process at once; jobs for re-checks and campaign heals.
  const webhooks = createWebhooks({
    webhooks: repos.webhooks,
    queues: { inbox: createInboxQueue(db), jobs: createJobStore(db) },
    accounts,
    campaigns: repos.campaigns,
    snapshots: repos.snapshots,
    links: repos.links,
    reconciler,
    publicUrl,
    staticSecret: config.patreon.webhookSecret,
    withLock: (name, fn) => database.tryWithLock(name, fn),
    requestCampaignSync: async (campaignId, reason, jobs) => {
      logger.info({ campaignId, reason }, 'campaign sync queued');
      await jobs.enqueue('campaign-sync', { campaignId, reason }, { dedupeKey: `campaign-sync:${campaignId}` });
    },
    jobHandlers: {
      'campaign-sync': async (payload) => {
        const outcome = await scheduler.runNow({ trigger: 'webhook-heal', campaignId: String(payload.campaignId) });
        // Another run holds the lock: that run covers this campaign too, unless it started before
        // the events were lost. Try again later rather than drop the heal.
        if (isSkipped(outcome)) throw new Error(outcome.reason);
      },
    },
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
    async runSync(options: { guildId?: string; dryRun: boolean; force: boolean; trigger: 'manual' | 'cli' }) {
      return scheduler.runNow({
        trigger: options.trigger,
        dryRun: options.dryRun,
        force: options.force,
        ...(options.guildId ? { guildId: options.guildId } : {}),
      });
    },
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
  let bot: DiscordBot | null = null;
  let housekeeping: NodeJS.Timeout | undefined;

  const app = createWebApp({
    logger,
    metrics,
    oneTimeLinks: services.oneTimeLinks,
    linkService: services.linkService,
    connectService: services.connectService,
    guilds: repos.guilds,
    campaigns: repos.campaigns,
    webhookRouter: services.receiver,
    connectView: (completion) => connectResultView(services, completion),
    health: () =>
      checkHealth({
        database: () => database.ping(),
        gateway: () => ({ ready: bot?.isReady() ?? false }),
        creators: async () =>
          Promise.all(
            (await repos.credentials.creators()).map(async (creatorUserId) => ({
              creatorUserId,
              ...(await services.accounts.sessionForCreator(creatorUserId).status()),
            })),
          ),
        webhooks: async () =>
          Promise.all(
            (await repos.campaigns.all()).map(async (c) => {
              const h = await services.registration.health(c.id);
              return {
                campaignId: c.id,
                registered: h.exists,
                paused: h.paused ?? false,
                numConsecutiveTimesFailed: h.numConsecutiveTimesFailed ?? 0,
              };
            }),
          ),
      }),
    isShuttingDown: () => shuttingDown,
  });

  const botServices = {
    guilds: repos.guilds,
    link: services.linkService,
    connect: services.connectService,
    status: services.statusService,
    tiers: services.tiers,
    mapping: services.mapping,
    settings: services.settings,
    sync: {
      runForGuild: async (guildId: string, opts: { dryRun: boolean; force: boolean }) =>
        formatSyncReport(await services.runSync({ ...opts, guildId, trigger: 'manual' }), { limit: 20, maxLength: 1900 }),
    },
    doctor: { report: async (guildId: string) => renderDoctor(await services.doctor.run(guildId)) },
  };

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

      bot = createDiscordBot({
        token: config.discord.token,
        rest: services.rest.rest,
        logger,
        onInteraction: createInteractionRouter(COMMANDS, { services: botServices, logger }),
        onMemberAdd: async (guildId, userId) => {
          const outcome = await services.reconciler.reconcileMember(guildId, userId, { trigger: 'rejoin' });
          const added = outcome.result?.applied.filter((c) => c.op === 'add').length ?? 0;
          if (added > 0) logger.info({ guildId, userId, added }, 'roles restored on rejoin');
        },
        onGuildAvailable: (guildId, name) => repos.guilds.ensure(guildId, name),
        onRolesChanged: (guildId) => services.discordSnapshots.invalidate(guildId),
        onRoleDeleted: (guildId, roleId) => services.mapping.forgetDeletedRole(guildId, roleId),
        ...(options.discordWaitGuildTimeoutMs !== undefined ? { waitGuildTimeoutMs: options.discordWaitGuildTimeoutMs } : {}),
      });
      await bot.start();
      await registerCommands({
        rest: services.rest.rest,
        applicationId: config.discord.applicationId,
        guildId: config.discord.guildId,
        commands: COMMANDS,
        appState: repos.appState,
        logger,
      });
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
      const finished = await services.webhooks.stop(grace);
      if (!finished) logger.warn('stopped with work in flight; its leases expire and another start picks it up');
      await Promise.race([closing, new Promise((r) => setTimeout(r, 5000).unref())]);
      server?.closeAllConnections();
      await bot?.stop();
      if (ownsDatabase) await database.close();
      logger.info('stopped');
    },
  };
}

/** `npm start`: configuration, then the service, until SIGTERM or SIGINT (a second one exits at once). */
async function main(): Promise<void> {
  const { loadConfigOrExit, cliLogger, exitOnError } = await import('./cli/cli-support');
  const { handleShutdownSignals } = await import('./cli/shutdown-signals');
  const config = loadConfigOrExit('service');
  const logger = cliLogger(config);
  const fail = exitOnError(logger);
  let tierlink: Tierlink;
  try {
    tierlink = await createTierlink({ config, logger });
  } catch (error) {
    return fail(error);
  }
  handleShutdownSignals({ signals: process, stop: () => tierlink.stop(), exit: (code) => process.exit(code), logger });
  try {
    const { url } = await tierlink.start();
    logger.info({ url }, 'Tierlink is running');
  } catch (error) {
    logger.error({ err: error }, 'start-up failed');
    await tierlink.stop().catch(() => undefined);
    fail(error);
  }
}

if (require.main === module) void main();
