import { createApiMeter } from '../../src/app/sync/api-meter';
import { createSync } from '../../src/app/sync';
import { createDiscordAccess } from '../../src/edges/outbound/discord';
import { createMetrics } from '../../src/edges/outbound/observability/metrics';
import { createCreatorAccounts } from '../../src/edges/outbound/patreon/creator-accounts';
import type { Database } from '../../src/edges/outbound/store/database';
import { createJobQueue, createJobStore } from '../../src/edges/outbound/store/job-queue';
import { createRepositories } from '../../src/edges/outbound/store/repositories';
import { createSecretBox } from '../../src/edges/outbound/store/secret-box';
import { realSleep } from '../../src/shared/clock';
import { type Logger, silentLogger } from '../../src/shared/logger';
import { SECRET_KEY, type World } from './world';
import { tierlinkRestBeside } from './raised-limits';
import { entitlementSources } from '../../src/compose';

/**
 * The sync subsystem built from the same factories as `main.ts` builds it, on its own database
 * handle, REST client and service client: one instance of Tierlink as far as the sync goes, whose
 * calls can be counted.
 */
export function wireSync(
  world: World,
  database: Database = world.db.database,
  options: { concurrency?: number; guildPageSize?: number; logger?: Logger } = {},
) {
  const { clock } = world;
  const { logger = silentLogger, ...syncOptions } = options;
  const repos = createRepositories(database.db, createSecretBox(SECRET_KEY));
  const discord = createDiscordAccess({
    apiBaseUrl: world.discord.sandbox.apiBaseUrl,
    token: world.discord.sandbox.botToken,
    botUserId: world.discord.sandbox.botUserId,
    ...tierlinkRestBeside(world.discord.raisedLimits),
    clock,
  });
  const meter = createApiMeter({ discordRest: discord.rest.rest });
  const accounts = createCreatorAccounts({
    service: {
      baseUrl: world.patreon.url,
      clientId: world.patreon.clientId,
      clientSecret: world.patreon.clientSecret,
      clock,
      sleep: realSleep,
      random: () => 0.5,
      logger: silentLogger,
      retry: { baseDelayMs: 5, maxDelayMs: 20 },
      onRequest: meter.onPatreonRequest,
    },
    credentials: repos.credentials,
    campaigns: repos.campaigns,
  });
  const jobs = createJobQueue({ store: createJobStore(database.db), clock, random: () => 0.5, logger });
  const sync = createSync({
    sources: entitlementSources(repos, clock),
    repos,
    discord,
    accounts,
    database,
    jobs,
    schedule: '0 4 * * *',
    meter,
    clock,
    metrics: createMetrics({ defaultMetrics: false }),
    logger,
    ...syncOptions,
  });
  return { fullSync: sync.fullSync, sync, jobs, syncRuns: repos.syncRuns, repos, invalidate: () => discord.snapshots.invalidate() };
}
