import type { Database } from '../../edges/outbound/store/database';
import type { JobQueue } from '../../edges/outbound/store/job-queue';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { CampaignOutcome } from './campaign-pass';
import type { FullSync, FullSyncOptions } from './full-sync';
import { FULL_SYNC_LOCK } from './sync-scheduler';

/** One guild of a nightly sync, handed to whichever instance's job worker takes it. */
export const GUILD_SYNC_JOB = 'guild-sync';

/** The lock of one guild's handed-over sync: a job taken twice (its lease ran out) runs once. */
const guildLock = (guildId: string) => `${FULL_SYNC_LOCK}:guild:${guildId}`;

export interface GuildSpreadDeps {
  database: Pick<Database, 'tryWithLock'>;
  jobs: Pick<JobQueue, 'register' | 'store'>;
  fullSync: Pick<FullSync, 'runGuild'>;
  /** How many live instances there are (the instance table; one on the embedded database). */
  liveInstances(): Promise<number>;
  clock: Clock;
  logger: Logger;
}

interface HandedCampaign {
  report: CampaignOutcome['report'];
  staleBefore: string;
}

/**
 * Spreading the nightly sync over the live instances (docs/decisions.md §17): the instance that
 * holds the full-sync lock reads every campaign once (the campaign pass, as always), then, when
 * there are several guilds and several instances, writes one durable job per guild carrying the
 * campaigns' outcomes, and lets the lock go. Every instance's job worker takes them; each runs the
 * very guild pass and apply the lock holder would have run, from the same outcomes, under the
 * full-sync lock held *shared* (guild jobs run side by side, while `/sync`, `npm run sync` and the
 * guild-wide applies, which hold it exclusively, wait their turn or are queued, as during any sync).
 */
export interface GuildSpread {
  /** The full sync's `spread`: hands the guilds over when it is worth it; true when it did. */
  spread(guilds: ReadonlyArray<{ guildId: string; campaigns: CampaignOutcome[] }>, options: FullSyncOptions): Promise<boolean>;
}

export function createGuildSpread(deps: GuildSpreadDeps): GuildSpread {
  const { logger } = deps;

  deps.jobs.register(GUILD_SYNC_JOB, async (payload) => {
    const guildId = String(payload.guildId);
    const campaigns = ((payload.campaigns as HandedCampaign[] | undefined) ?? []).map((c): CampaignOutcome => ({
      report: c.report,
      staleBefore: new Date(c.staleBefore),
      // Only nightly, applying runs are handed over, and their campaign pass has already deleted the
      // snapshots of departed members: none left in the store counts as departed.
      departed: () => false,
    }));
    const options: FullSyncOptions = { trigger: 'schedule' };
    const outer = await deps.database.tryWithLock(
      FULL_SYNC_LOCK,
      () => deps.database.tryWithLock(guildLock(guildId), () => deps.fullSync.runGuild(guildId, campaigns, options)),
      { shared: true },
    );
    // Another run holds the lock exclusively: this guild's turn comes after it (the queue backs off).
    if (!outer.acquired) throw new Error('another full sync is running; the server is synced after it');
    if (!outer.value.acquired) logger.info({ guildId }, 'full sync: this server is being synced by another instance already');
  });

  return {
    async spread(guilds: ReadonlyArray<{ guildId: string; campaigns: CampaignOutcome[] }>, options: FullSyncOptions): Promise<boolean> {
      const nightly = options.trigger === 'schedule' && options.dryRun !== true && !options.guildId && !options.campaignId;
      if (!nightly || options.adopt === true || guilds.length < 2) return false;
      const instances = await deps.liveInstances();
      if (instances < 2) return false;
      const now = deps.clock.now();
      const written = await deps.jobs.store.insertMany(
        GUILD_SYNC_JOB,
        guilds.map((g) => ({
          payload: {
            guildId: g.guildId,
            campaigns: g.campaigns.map((c): HandedCampaign => ({ report: c.report, staleBefore: c.staleBefore.toISOString() })),
          },
          runAt: now,
          dedupeKey: `${GUILD_SYNC_JOB}:${g.guildId}`,
        })),
      );
      logger.info({ guilds: guilds.length, written, instances }, 'full sync: servers handed to the instances');
      return true;
    },
  };
}
