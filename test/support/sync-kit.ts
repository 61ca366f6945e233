import { createCreatorAccounts } from '../../src/edges/patreon/creator-accounts';
import type { Database } from '../../src/edges/store/database';
import { createRepositories } from '../../src/edges/store/repositories';
import { createGuildDirectory, createGuildSnapshotCache, createRest, createRoleWriter } from '../../src/edges/discord';
import { createMetrics } from '../../src/edges/observability/metrics';
import { realSleep } from '../../src/shared/clock';
import { type Logger, silentLogger } from '../../src/shared/logger';
import { createSecretBox } from '../../src/edges/store/secret-box';
import { type FullSyncDeps, createApiMeter, createFullSync } from '../../src/app/sync/full-sync';
import { createGuildContextLoader } from '../../src/app/sync/guild-context';
import { SECRET_KEY, type World } from './world';

/**
 * The full sync wired as `main.ts` wires it, on its own database handle, REST client and service
 * client: one instance of Tierlink as far as the sync goes, whose calls can be counted.
 */
export function wireSync(
  world: World,
  database: Database = world.db.database,
  options: Partial<Pick<FullSyncDeps, 'concurrency' | 'guildPageSize'>> & { logger?: Logger } = {},
) {
  const { clock } = world;
  const { logger = silentLogger, ...syncOptions } = options;
  const repos = createRepositories(database.db, createSecretBox(SECRET_KEY));
  const { rest } = createRest({
    apiBaseUrl: world.discord.sandbox.apiBaseUrl,
    token: world.discord.sandbox.botToken,
    rest: { globalRequestsPerSecond: 10_000 },
  });
  const meter = createApiMeter({ discordRest: rest });
  const directory = createGuildDirectory({ rest, botUserId: world.discord.sandbox.botUserId });
  const discordSnapshots = createGuildSnapshotCache({ directory, clock, ttlMs: 60_000 });
  const writer = createRoleWriter({ rest, directory, clock, cache: discordSnapshots });
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
  const fullSync = createFullSync({
    ...repos,
    contexts: createGuildContextLoader({ ...repos, discordSnapshots }),
    directory,
    accounts,
    apply: { writer, ledger: repos.ledger, clock, metrics: createMetrics({ defaultMetrics: false }), logger },
    meter,
    ...syncOptions,
  });
  return { fullSync, syncRuns: repos.syncRuns, repos, invalidate: () => discordSnapshots.invalidate() };
}
