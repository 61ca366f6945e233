import type { Database } from '../../src/edges/outbound/store/database';
import { type Logger, silentLogger } from '../../src/shared/logger';
import type { World } from './world';
import { serviceOver } from './service-over';

/**
 * A second instance of Tierlink beside the world's, built by the composition root (src/compose.ts)
 * as `npm start` builds it, on its own database handle, REST client and service client: its sync's
 * calls can be counted apart from the world's.
 */
export function wireSync(
  world: World,
  database: Database = world.db.database,
  options: { concurrency?: number; guildPageSize?: number; logger?: Logger } = {},
) {
  const { logger = silentLogger, ...syncTuning } = options;
  const services = serviceOver(
    { patreon: world.patreon, discord: world.discord.sandbox, raisedLimits: world.discord.raisedLimits },
    database,
    {
      clock: world.clock,
      logger,
      syncTuning,
    },
  );
  world.onClose(async () => services.discordBudget?.close?.());
  const { sync, repos } = services;
  return {
    fullSync: sync.fullSync,
    sync,
    jobs: services.jobQueue,
    syncRuns: repos.syncRuns,
    repos,
    invalidate: () => services.discord.snapshots.invalidate(),
    patronMessages: services.patronMessages,
  };
}
