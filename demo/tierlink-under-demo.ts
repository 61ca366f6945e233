import { standInEnvironment } from '@tierlink/sandbox';
import type { StartServiceUnderDemo } from '@tierlink/sandbox/demo';
import { parseConfig } from '../src/config';
import { createTierlink } from '../src/main';
import { formatSyncReport } from '../src/core/sync-report';

/**
 * The real service (`createTierlink`, as `npm start` runs it) on the embedded database in
 * `dataDir`, configured through `parseConfig` with the stand-ins' addresses and credentials: what
 * the demo story (in the sandbox package, which imports nothing of the product) shows.
 */
export const startTierlinkUnderDemo: StartServiceUnderDemo = async (world, options) => {
  const parsed = parseConfig({
    ...standInEnvironment(world.patreon, world.discord, world.guildId),
    DATA_DIR: options.dataDir,
    LOG_LEVEL: 'info',
    KOFI_VERIFICATION_TOKEN: world.kofi.token,
  });
  if (!parsed.ok) throw parsed.error;
  const tierlink = await createTierlink({
    config: parsed.value,
    logger: options.logger,
    clock: world.clock,
    // The stand-in sends GUILD_CREATE right after READY; no need to wait 15 s for a missing one.
    discordWaitGuildTimeoutMs: 2_000,
    // The demo's membership stand-in counts nothing (its world says why): Tierlink does not pace to it either.
    patreonLimits: { spec: null, patreon: null },
  });
  let url: string;
  try {
    ({ url } = await tierlink.start());
  } catch (error) {
    await tierlink.stop().catch(() => undefined);
    throw error;
  }
  const { services } = tierlink;
  let stopping: Promise<void> | null = null;
  return {
    url,
    dashboardUrl: services.dashboard.url(),
    campaignsOf: (guildId) => services.repos.guilds.campaignsOf(guildId),
    async sync(kind) {
      const outcome =
        kind === 'dry-run'
          ? await services.runSync({ dryRun: true, force: false, trigger: 'cli' })
          : await services.scheduler.runScheduled();
      if (outcome === null) return { skipped: 'the sync failed (see the service log)' };
      if ('skipped' in outcome) return { skipped: outcome.reason };
      return { report: outcome, text: formatSyncReport(outcome, { limit: 3 }) };
    },
    grantedRoleIds: async (guildId, userId) => (await services.repos.ledger.forUser(guildId, userId)).map((entry) => entry.roleId),
    pendingDeliveries: async () => (await services.repos.webhooks.deliveries()).filter((row) => row.status === 'pending').length,
    stop: () => (stopping ??= tierlink.stop()),
  };
};
