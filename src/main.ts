import { setTimeout as sleep } from 'node:timers/promises';
import { type Services, type TierlinkOptions, buildServices } from './compose';
import { createBot } from './edges/inbound/bot';
import { publicUrlWarning } from './config';
import { listBotGuilds } from './edges/outbound/discord/bot-guilds';
import { checkHealth, databaseAnswers, gatewayFailing, healthChecks } from './edges/outbound/observability/health';
import { createInboxQueue } from './edges/outbound/store/durable-queue';
import { openConfiguredDatabase } from './edges/outbound/store/open-configured';
import { resealSecrets } from './edges/outbound/store/reseal-secrets';
import { createWeb } from './edges/inbound/web';
import { type HttpServer, listen } from './edges/inbound/web/http-server';
import { createInteractionsEndpoint } from './edges/inbound/web/interactions-endpoint';
import { createWebhookEndpoint } from './edges/inbound/web/webhook-endpoint';
import { createKofiEndpoint } from './edges/inbound/web/kofi-endpoint';
import { DAY } from './shared/clock';
import { inStep } from './shared/startup-step';
import { within } from './shared/within';
import { explainContext, explainFailure } from './edges/outbound/observability/explain-failure';
import { checkPublicUrl } from './edges/outbound/observability/public-url-check';
import { type RunningSnapshotEndpoint, startSnapshotEndpoint } from './edges/inbound/local/snapshot-endpoint';

export type { TierlinkOptions } from './compose';

export interface Tierlink {
  /** Listens, connects the bot, registers commands and webhooks, schedules the sync. */
  start(): Promise<{ url: string; port: number }>;
  /** Graceful: stop taking requests, finish in-flight work within a bound, close the gateway and the database. */
  stop(): Promise<void>;
  publicUrl(): string;
  readonly services: Services;
}

/** Builds every part of Tierlink and wires them; nothing else wires (docs/architecture.md). */
export async function createTierlink(options: TierlinkOptions): Promise<Tierlink> {
  const { config, logger } = options;
  const ownsDatabase = !options.database;
  const database = options.database ?? (await inStep('database', () => openConfiguredDatabase(config, logger)));
  try {
    await inStep('database', () => database.migrate());
  } catch (error) {
    if (ownsDatabase) await database.close();
    throw error;
  }
  const services = buildServices(options, database);
  try {
    await resealSecrets(database.db, services.box, logger);
  } catch (error) {
    if (ownsDatabase) await database.close();
    throw error;
  }
  const { repos, metrics, linking, admin, sync, webhooks } = services;
  let shuttingDown = false;
  let server: HttpServer | null = null;
  let housekeeping: NodeJS.Timeout | undefined;
  let snapshotEndpoint: RunningSnapshotEndpoint | null = null;
  const stopping = new AbortController();
  // Commands are answered only once the configured campaigns are bound (src/edges/inbound/bot/interaction-router.ts).
  let serving = false;
  const { instance } = services;

  const bot = createBot({
    token: config.discord.token,
    applicationId: config.discord.applicationId,
    commandGuildId: config.discord.guildId,
    rest: services.rest.rest,
    logger,
    ...{
      authority: admin.authority,
      link: linking.link,
      connect: admin.connect,
      status: linking.status,
      tiers: admin.tiers,
      mapping: admin.mapping,
      comps: admin.comps,
      kofi: services.kofi,
      rules: admin.rules,
      settings: admin.settings,
      confirmations: admin.confirmations,
      staff: services.permissions,
      audit: services.audit,
      adoption: admin.adoption,
      allowances: admin.allowances,
      privacy: services.privacy,
    },
    runSync: sync.runSync,
    doctor: admin.doctor,
    members: sync.reconciler,
    guilds: repos.guilds,
    roleSnapshots: services.discord.snapshots,
    memberRoles: services.discord.memberRoles,
    registeredCommands: repos.appState,
    gateway: { instance, leases: services.instances, fixedShardCount: config.instances.shardCount },
    fences: {
      holds: (fence) => services.fences.store.holds(fence, services.clock.now()),
      claimInteraction: (interactionId, fence) =>
        services.fences.store.claimInteraction(interactionId, instance.id, fence, services.clock.now()),
      scope: services.fences.scope,
    },
    isServing: () => serving,
    ...(options.discordWaitGuildTimeoutMs !== undefined ? { waitGuildTimeoutMs: options.discordWaitGuildTimeoutMs } : {}),
  });
  const app = createWeb({
    logger,
    metrics,
    oneTimeLinks: linking.oneTimeLinks,
    linkService: linking.link,
    connectService: admin.connect,
    discordStep: linking.discordStep,
    guilds: repos.guilds,
    tierTitles: repos.campaigns,
    tiers: admin.tiers,
    registration: webhooks.registration,
    runSync: sync.runSync,
    webhookRouter: createWebhookEndpoint(webhooks.intake),
    ...(services.kofi ? { kofiRouter: createKofiEndpoint({ receive: services.kofi.receive, logger }) } : {}),
    dashboard: services.dashboard,
    ...(config.instances.publicKey
      ? {
          interactionsRouter: createInteractionsEndpoint({
            publicKeyHex: config.instances.publicKey,
            handle: (payload) => bot.handleInteraction(payload),
            claim: (interactionId) => services.fences.store.claimInteraction(interactionId, instance.id, null, services.clock.now()),
            clock: services.clock,
            logger,
          }),
        }
      : {}),
    joining: services.joining,
    health: () =>
      checkHealth(healthChecks({ database, gateway: bot, ...repos, accounts: services.accounts, registration: webhooks.registration })),
    healthOk: async () => (await databaseAnswers(database)) && gatewayFailing(bot.gaps()).length === 0,
    healthToken: config.healthToken,
    metricsToken: config.metricsToken,
    trustProxy: config.trustProxy,
    hsts: config.publicUrl?.startsWith('https:') === true,
    isShuttingDown: () => shuttingDown,
    publicUrl: services.publicUrl,
  });

  /**
   * Binds the campaign of the creator tokens in the environment before any command is served
   * (the guilds the bot is in are read over REST: no gateway session is open yet). Instances that
   * start together take turns (a lock), so each finds the binding the first one made.
   */
  async function connectFromEnvironment(): Promise<void> {
    const { creatorAccessToken, creatorRefreshToken } = config.patreon;
    if (!creatorAccessToken) return;
    const tokens = { accessToken: creatorAccessToken, refreshToken: creatorRefreshToken ?? '' };
    const connect = async () => {
      // Only to name the servers the bot is in that stay unbound (a warning), never to bind them.
      const botGuildIds = await listBotGuilds(services.rest.rest).then(
        (guilds) => guilds.map((g) => g.id),
        (error: unknown) => {
          logger.warn({ err: error }, 'reading the servers the bot is in failed; unbound servers are not named');
          return [];
        },
      );
      await admin.connectFromEnvironment(tokens, config.discord.bindGuildIds, botGuildIds);
    };
    try {
      for (let waited = 0; ; waited += 250) {
        const outcome = await database.tryWithLock('connect-from-environment', connect);
        if (outcome.acquired) return;
        if (waited >= 60_000) return await connect();
        await sleep(250);
      }
    } catch (error) {
      const explained = explainFailure(error, explainContext(config), 'patreon');
      logger.error(
        explained ? {} : { err: error },
        `connecting the creator from PATREON_CREATOR_ACCESS_TOKEN failed: ${explained?.message ?? (error as Error).message} /connect still works.`,
      );
    }
  }

  return {
    services,
    publicUrl: services.publicUrl,
    async start() {
      server = await inStep('web', () => listen(app, config.port));
      services.setListeningUrl(`http://localhost:${server.port}`);
      logger.info({ port: server.port, publicUrl: services.publicUrl() }, 'web server listening');
      // `npm run backup` asks this process for a copy of the embedded database it holds.
      const { snapshot } = database;
      if (snapshot && ownsDatabase) snapshotEndpoint = await startSnapshotEndpoint({ dataDir: config.dataDir, snapshot, logger });
      logger.info({ url: services.dashboard.url() }, 'dashboard on (sign in with Discord)');
      const plainHttp = publicUrlWarning(services.publicUrl());
      if (plainHttp) logger.warn(plainHttp);
      // The embedded database has one process by construction: rows an earlier process left are
      // void, and the work it was doing when it stopped is free now, not when its leases run out.
      if (database.engine === 'pglite') {
        await services.instances.reset();
        const reclaimed = (await createInboxQueue(database.db).reclaimAll()) + (await services.jobQueue.store.queue.reclaimAll());
        if (reclaimed > 0) logger.info({ reclaimed }, 'work the previous process left in flight is taken up again now');
      }
      webhooks.start();
      services.jobQueue.worker.start();
      void services.jobQueue.worker.sweep().catch((error: unknown) => logger.warn({ err: error }, 'the job sweep at start failed'));
      await services.kofi?.start();
      await connectFromEnvironment();
      serving = true;
      await inStep('discord', () => bot.start());
      logger.info({ instance: instance.id, shards: bot.shards() }, 'serving commands');
      webhooks.registration.start();
      sync.scheduler.start();
      // A sync a stopped process left running goes on now, not at the next night.
      void sync.scheduler.resumeAbandoned();
      services.channels.start();
      services.retention.start();
      services.backups?.start();
      housekeeping = setInterval(() => {
        const before = new Date(services.clock.now().getTime() - DAY);
        repos.linkTokens.prune(before).catch((error: unknown) => logger.warn({ err: error }, 'pruning link tokens failed'));
        services.dashboard.prune().catch((error: unknown) => logger.warn({ err: error }, 'pruning dashboard sessions failed'));
        services.kofi?.pruneLinkCodes(before).catch((error: unknown) => logger.warn({ err: error }, 'pruning Ko-fi link codes failed'));
      }, 60 * 60_000);
      housekeeping.unref();
      void checkPublicUrl({ publicUrl: services.publicUrl(), logger, signal: stopping.signal });
      return { url: services.publicUrl(), port: server.port };
    },

    async stop() {
      if (shuttingDown) return;
      shuttingDown = true;
      stopping.abort();
      clearInterval(housekeeping);
      const closing = server?.close(5000);
      const grace = options.shutdownGraceMs ?? 10_000;
      // First, so the other instances take the gateway shards over at once (they answer from then on),
      // the interactions already being answered here finish first.
      await bot.stop(grace);
      await sync.scheduler.stop();
      await services.channels.stop();
      await services.retention.stop();
      await services.backups?.stop();
      const done = await Promise.all([webhooks.stop(grace), services.jobQueue.worker.stop(grace)]);
      if (done.includes(false)) logger.warn('stopped with work in flight; its leases expire and another start picks it up');
      // Messages to patrons already started are sent (or given up) before the Discord client closes; none starts now.
      await within(services.patronMessages.settled(), grace, () => undefined);
      services.discord.scheduler.close();
      services.discord.rest.close();
      await services.discordBudget
        ?.close?.()
        .catch((error: unknown) => logger.warn({ err: error }, "giving up Discord's global limit failed"));
      await services.accounts.oddValues.flush();
      await closing;
      await snapshotEndpoint?.close();
      if (ownsDatabase) await database.close();
      logger.info('stopped');
    },
  };
}
