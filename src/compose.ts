import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { createCreatorAdmin } from './app/admin';
import { createChannels } from './app/channels';
import { createDashboard } from './app/dashboard';
import { createAuditBrowser } from './app/dashboard/audit';
import { createGuildPermissions } from './app/guild-permissions';
import { createJoining } from './app/joining';
import { createPrivacy } from './app/membership/privacy';
import { createJoinLinks } from './app/joining/join-links';
import { createLinking } from './app/linking';
import type { EntitlementSource } from './core/entitlement-source';
import { createPatreonSource } from './edges/outbound/patreon/patreon-source';
import { createCompSource } from './app/comps/comp-source';
import { createKofiSource } from './edges/outbound/kofi/kofi-source';
import { type KofiPaymentStore, createKofiPaymentStore } from './edges/outbound/kofi/payment-store';
import { createKofiPayments } from './edges/outbound/kofi/kofi-payments';
import { KOFI } from './edges/outbound/kofi/kofi-payment';
import { type SyncSubsystemDeps, createSync } from './app/sync';
import { type ApiMeter, createApiMeter } from './app/sync/api-meter';
import { createWebhooks } from './app/webhooks';
import { createRetention } from './app/housekeeping/retention';
import { createScheduledBackups } from './app/housekeeping/scheduled-backups';
import { backupFolder, runBackupProcess } from './edges/outbound/store/backup/backup-process';
import type { Config } from './config';
import { createDiscordSignIn } from './app/discord-sign-in';
import { type DiscordAccess, type DiscordAccessOptions, createDiscordAccess, createDiscordUserOAuth } from './edges/outbound/discord';
import type { BudgetStore } from './edges/outbound/discord/request-budget';
import { createPatronMessages } from './app/membership/patron-messages';
import { type Metrics, createMetrics } from './edges/outbound/observability/metrics';
import { createCreatorAccounts } from './edges/outbound/patreon/creator-accounts';
import { parsePatreonDelivery } from './edges/outbound/patreon/delivery-parser';
import { type ServiceDialect, keyValueDialectStore } from './edges/outbound/patreon/dialect';
import type { BudgetLimits } from './edges/outbound/patreon/request-budget';
import type { RetryPolicy } from './edges/outbound/patreon/http';
import type { Database } from './edges/outbound/store/database';
import { createInboxQueue } from './edges/outbound/store/durable-queue';
import { createPostgresBudgetStore } from './edges/outbound/store/discord-budget-store';
import { createFences } from './edges/outbound/store/fences';
import { createPostgresPatreonBudgetStore } from './edges/outbound/store/patreon-budget-store';
import type { PatreonBudgetStore } from './edges/outbound/patreon/request-budget';
import { createInstanceRegistry } from './edges/outbound/store/instance-registry';
import { createJobQueue, createJobStore } from './edges/outbound/store/job-queue';
import { type Repositories, createRepositories } from './edges/outbound/store/repositories';
import { createRetentionStore } from './edges/outbound/store/retention-store';
import { createSecretBox } from './edges/outbound/store/secret-box';
import { loadOrCreateSecretKey } from './edges/outbound/store/secret-key';
import { type Clock, type Random, type Sleep, realSleep, systemClock } from './shared/clock';
import { createFenceScope } from './shared/fence';
import type { Logger } from './shared/logger';

/**
 * The composition of the subsystems (src/main.ts adds the edges that face people, the bot and the
 * web, and the lifecycle): each subsystem comes from its one factory, and this is the only place
 * they are wired to each other.
 */

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
  /** Tests whose membership stand-in raised Patreon's limits (and says why there): Tierlink's own pacing to match. */
  patreonLimits?: Partial<Record<ServiceDialect, BudgetLimits | null>>;
  /** Tests: faster sweeps of the durable queues. */
  pollMs?: number;
  /** How long `stop()` waits for in-flight work before it closes anyway (its leases then expire and a later start takes it). Default 10 s. */
  shutdownGraceMs?: number;
  /** Tests: a shorter instance heartbeat and shard lease than {@link INSTANCE_LEASE_MS}. */
  instanceLeaseMs?: number;
  /**
   * Tests and benches: Discord's client beyond the configuration (the bot's id when known, a count
   * of the global limit raised beside a stand-in whose limits are raised by name, no cache of a
   * guild's roles).
   */
  discordAccess?: Pick<DiscordAccessOptions, 'botUserId' | 'rest' | 'snapshotTtlMs'>;
  /**
   * Tests: the Discord client of an earlier build of these services, kept (a test world whose
   * database is reset between tests is one process: its count of Discord's limits carries over).
   */
  discord?: { access: DiscordAccess; budget: BudgetStore | null; meter: ApiMeter };
  /** Tests and benches: the full sync's page size and bulk concurrency. */
  syncTuning?: Pick<SyncSubsystemDeps, 'concurrency' | 'guildPageSize'>;
}

/**
 * How long an instance's heartbeat keeps it alive and its gateway shards held (docs/decisions.md
 * §17): it renews every fifth of that, so an instance killed outright is replaced within about 15 s
 * plus a round, and a slow moment of a few seconds never costs a shard.
 */
export const INSTANCE_LEASE_MS = 15_000;

export type Services = ReturnType<typeof buildServices>;

/**
 * Every entitlement source Tierlink plans from, registered once here: Patreon (read through the
 * creators' tokens), the servers' comps, and Ko-fi's payments when KOFI_VERIFICATION_TOKEN is set.
 * Adding a source is its adapter's folder plus one line here.
 */
export function entitlementSources(
  repos: Pick<Repositories, 'snapshots' | 'comps'>,
  clock: Clock,
  optional: { kofi?: Pick<KofiPaymentStore, 'ofSupporters' | 'donationSettings'> | null } = {},
): EntitlementSource[] {
  return [
    createPatreonSource({ snapshots: repos.snapshots }),
    createCompSource({ comps: repos.comps, clock }),
    ...(optional.kofi ? [createKofiSource({ payments: optional.kofi })] : []),
  ];
}

/** The request budgets a process shares with the others on its database. */
export interface SharedBudgets {
  discord: BudgetStore | null;
  patreon: PatreonBudgetStore | null;
}

/**
 * Discord's and Patreon's request budgets as this process counts them (docs/decisions.md §19): on
 * PostgreSQL, shared by every process on the database (the one running alone may count Discord's
 * global limit whole; `me` is its heartbeat's id); on the embedded database, none: its one process
 * counts them in memory.
 */
export function sharedBudgets(database: Database, me: { id: string; instanceLeaseMs: number }, logger: Logger): SharedBudgets {
  if (database.engine !== 'postgres') return { discord: null, patreon: null };
  return {
    discord: createPostgresBudgetStore(database.db, {
      id: me.id,
      claim: true,
      instanceLeaseMs: me.instanceLeaseMs,
      onError: (error) => logger.warn({ err: error }, "counting Discord's global limit alone failed; counting it with the other instances"),
    }),
    patreon: createPostgresPatreonBudgetStore(database.db),
  };
}

/** Every subsystem, each from its one factory, wired to the others. */
export function buildServices(options: TierlinkOptions, database: Database) {
  const { config, logger } = options;
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const metrics = options.metrics ?? createMetrics();
  const pollMs = options.pollMs;
  const { db } = database;
  const box = createSecretBox(loadOrCreateSecretKey(config.secretKey, config.dataDir), config.secretKeyPrevious);
  let listeningUrl: string | null = null;
  const publicUrl = () => config.publicUrl ?? listeningUrl ?? `http://localhost:${config.port}`;

  const repos = createRepositories(db, box);
  // The fence of the work running now (a gateway event's shard, a queued row), checked at the ledger's write (docs/outages-and-fencing.md).
  const fenceScope = createFenceScope();
  const fences = createFences(db);
  // The instances of this installation and their gateway shards: also read to split shared budgets.
  const instanceLeaseMs = options.instanceLeaseMs ?? INSTANCE_LEASE_MS;
  const instances = createInstanceRegistry(db, { leaseMs: instanceLeaseMs });
  // This process: its heartbeat's id, also its name when it counts Discord's global limit alone.
  const instance = { id: randomUUID(), host: hostname(), pid: process.pid };
  const budgets = sharedBudgets(database, { id: instance.id, instanceLeaseMs }, logger);
  const discordBudget = options.discord ? options.discord.budget : budgets.discord;
  const discord =
    options.discord?.access ??
    createDiscordAccess({
      apiBaseUrl: config.discord.apiBaseUrl,
      token: config.discord.token,
      clock,
      logger,
      metrics,
      ...(discordBudget ? { budget: discordBudget } : {}),
      ...options.discordAccess,
    });
  // Every Discord and Patreon request counted, for each sync run's report of the calls it made.
  const meter = options.discord?.meter ?? createApiMeter({ discordRest: discord.rest.rest });
  const accounts = createCreatorAccounts({
    service: {
      baseUrl: config.patreon.baseUrl,
      clientId: config.patreon.clientId,
      clientSecret: config.patreon.clientSecret,
      clock,
      sleep: options.sleep ?? realSleep,
      random,
      logger,
      ...(options.patreonRetry ? { retry: options.patreonRetry } : {}),
      onRequest: (info) => {
        meter.onPatreonRequest(info);
        if (info.outcome !== 'ok' && info.errorKind) metrics.patreonErrors.inc({ kind: info.errorKind });
      },
    },
    ...repos,
    // Learned once per installation: no later process pays a rejected request to learn it again.
    dialectStore: keyValueDialectStore(repos.appState, config.patreon.baseUrl),
    ...(options.patreonLimits ? { budgetLimits: options.patreonLimits } : {}),
    // Every instance on one PostgreSQL shares Patreon's limits and refreshes a creator's tokens one at a time.
    ...(budgets.patreon ? { budgetStore: budgets.patreon } : {}),
    refreshLock: (name, refresh) => database.withLock(name, refresh),
    // What Patreon answered oddly, for every instance's /doctor.
    oddValueStore: repos.appState,
  });
  // Durable background work, shared: each subsystem registers its own job kinds.
  const jobStore = createJobStore(db);
  const jobQueue = createJobQueue({
    store: jobStore,
    clock,
    random,
    logger,
    fences: fenceScope,
    ...(pollMs !== undefined ? { pollMs } : {}),
  });

  const kofiStore = config.kofi.verificationToken ? createKofiPaymentStore(db) : null;
  const sources = entitlementSources(repos, clock, { kofi: kofiStore });
  // Direct messages to patrons (a declined payment), after their roles are applied.
  const patronMessages = createPatronMessages({
    guilds: repos.guilds,
    campaigns: repos.campaigns,
    preferences: repos.memberPreferences,
    records: repos.directMessages,
    messages: discord.directMessages,
    clock,
    logger,
  });
  const sync = createSync({
    repos,
    discord,
    sources,
    accounts,
    database,
    jobs: jobQueue,
    schedule: config.syncSchedule,
    timezone: config.syncTimezone,
    liveInstances: async () => (await instances.live()).filter((i) => !i.stopping).length,
    meter,
    clock,
    metrics,
    logger,
    fences: fenceScope,
    // Bound late: the webhooks are built below, and no job runs before the service starts.
    confirmMember: (discordUserId) => webhooks.confirmMember(discordUserId),
    patronMessages,
    ...options.syncTuning,
  });
  // Ko-fi's payments (KOFI_VERIFICATION_TOKEN): stored by POST /webhooks/kofi, processed by a job.
  const kofi =
    kofiStore && config.kofi.verificationToken
      ? createKofiPayments({
          verificationToken: config.kofi.verificationToken,
          store: kofiStore,
          links: repos.links,
          reconcileExternal: (source, externalId, opts) => sync.reconciler.reconcileExternal(source, externalId, opts),
          reconcileUser: (discordUserId, opts) => sync.reconciler.reconcileUser(discordUserId, opts),
          jobs: jobQueue,
          applyGuild: (guildId) => sync.applyGuild(guildId, 'settings'),
          clock,
          logger,
        })
      : null;
  // The mod-log and the announcements: posted after the fact from what the rest stored.
  const channels = createChannels({
    repos,
    channels: discord.channels,
    nameInServer: async (guildId, userId) => {
      const member = await discord.directory.getMember(guildId, userId);
      return member ? (member.nick ?? member.globalName ?? member.username) : null;
    },
    accounts,
    kofi: kofiStore,
    withLock: (name, fn) => database.tryWithLock(name, fn),
    clock,
    logger,
    ...(pollMs !== undefined ? { pollMs } : {}),
  });
  const webhooks = createWebhooks({
    ...repos,
    posts: channels,
    inbox: createInboxQueue(db),
    jobs: { queue: jobQueue, store: jobStore },
    accounts,
    intake: sync.intake,
    parseDelivery: parsePatreonDelivery,
    publicUrl,
    serviceBaseUrl: config.patreon.baseUrl,
    staticSecret: config.patreon.webhookSecret,
    withLock: (name, fn) => database.tryWithLock(name, fn),
    requestCampaignSync: (campaignId, reason) => sync.requestCampaignSync(campaignId, reason),
    metrics,
    logger,
    clock,
    random,
    pollMs,
    fences: fenceScope,
  });
  // Discord's OAuth2 for people (DISCORD_CLIENT_SECRET): every page signs the person in with it.
  const discordUserOAuth = createDiscordUserOAuth({
    clientId: config.discord.applicationId,
    clientSecret: config.discordOAuth.clientSecret,
    webBaseUrl: config.discordOAuth.webBaseUrl,
    apiBaseUrl: config.discord.apiBaseUrl,
  });
  const discordSignIn = createDiscordSignIn({ oauth: discordUserOAuth, box, clock, logger });
  const joinLinks = createJoinLinks({ guilds: repos.guilds, campaigns: repos.campaigns, publicUrl });
  const linking = createLinking({
    repos,
    accounts,
    reconciler: sync.reconciler,
    intake: sync.intake,
    discordUsers: discord.directory,
    box,
    clock,
    logger,
    metrics,
    publicUrl,
    joinUrl: async (guildId: string) => (await joinLinks.linkOf(guildId)).url,
    discordSignIn,
    patronMessages,
  });
  const joining = createJoining({
    repos,
    links: joinLinks,
    linking,
    sync,
    discord,
    oauth: discordUserOAuth,
    clock,
    logger,
    metrics,
    publicUrl,
    currency: config.patreon.currency,
    patronMessages,
  });
  // Optional scheduled backups (BACKUP_DIR): `npm run backup` in a child process, on BACKUP_SCHEDULE.
  const { dir: backupDir } = config.backups;
  const backups = backupDir
    ? createScheduledBackups({
        dir: backupDir,
        keep: config.backups.keep,
        schedule: config.backups.schedule,
        timezone: config.syncTimezone,
        run: runBackupProcess(config),
        folder: backupFolder(backupDir),
        state: repos.appState,
        withLock: (name, fn) => database.tryWithLock(name, fn),
        clock,
        logger,
      })
    : null;
  const admin = createCreatorAdmin({
    repos,
    accounts,
    discord,
    channels,
    sync,
    linking,
    registration: webhooks.registration,
    box,
    clock,
    logger,
    publicUrl,
    preferredCampaignId: config.patreon.campaignId,
    joining,
    environmentBinding: { tokens: Boolean(config.patreon.creatorAccessToken), guildIds: config.discord.bindGuildIds },
    ...(kofi ? { openCampaignIds: [KOFI] } : {}),
    currency: config.patreon.currency,
    ...(backups ? { backups } : {}),
    gateway: instances,
  });

  const retention = createRetention({
    store: createRetentionStore(db),
    appState: repos.appState,
    withLock: (name, fn) => database.tryWithLock(name, fn),
    clock,
    logger,
  });

  // Staff tools: who may look at other members (/status member, /audit) and enter the dashboard.
  const permissions = createGuildPermissions({ directory: discord.directory, snapshots: discord.snapshots, clock });
  const audit = createAuditBrowser({ ...repos, snapshots: discord.snapshots, logger });
  const dashboard = createDashboard({
    repos,
    kofi,
    discord,
    permissions,
    audit,
    admin,
    status: linking.status,
    registration: webhooks.registration,
    parseDelivery: parsePatreonDelivery,
    runSync: (options) => sync.runSync(options),
    oauth: discordUserOAuth,
    discordSignIn,
    box,
    clock,
    logger,
    publicUrl,
    joinUrl: async (guildId) => (await joining.links.linkOf(guildId)).url,
  });

  return {
    ...{ clock, metrics, database, box, repos, discord, rest: discord.rest, accounts, jobQueue, sync, webhooks, linking, admin, publicUrl },
    instances,
    instance,
    discordBudget,
    meter,
    fences: { scope: fenceScope, store: fences },
    ...{ permissions, audit, dashboard, channels, retention, joining, backups, kofi },
    privacy: createPrivacy({ memberPreferences: repos.memberPreferences, clock }),
    patronMessages,
    reconciler: sync.reconciler,
    scheduler: sync.scheduler,
    runSync: sync.runSync,
    processor: webhooks.processor,
    registration: webhooks.registration,
    setListeningUrl(url: string) {
      listeningUrl = url;
    },
  };
}
