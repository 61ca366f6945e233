import { performance } from 'node:perf_hooks';
import type { GuildSyncReport, SyncReport, SyncStatus, SyncTrigger } from '../../core/sync-report';
import type { Metrics } from '../../edges/outbound/observability/metrics';
import type { Database } from '../../edges/outbound/store/database';
import type { GuildRepository } from '../../edges/outbound/store/repositories/guild-repository';
import type { LedgerRepository } from '../../edges/outbound/store/repositories/ledger-repository';
import type { SyncRunRepository, SyncRunRow } from '../../edges/outbound/store/repositories/sync-run-repository';
import { createRunProgress } from './sync-progress';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import { type ApiMeter, callsBetween } from './api-meter';
import { type CampaignOutcome, type CampaignPass, describeError } from './campaign-pass';
import type { GuildContextLoader } from './guild-context';
import type { GuildPass } from './guild-pass';
import type { GraceChecks } from './grace-checks';
import type { RoleApplier } from './role-applier';
import { type GuildRun, createGuildSync } from './guild-sync';
import type { PatronMessages } from '../membership/patron-messages';
import type { ConnectorRefresh } from './connector-refresh';

export interface FullSyncOptions {
  trigger: SyncTrigger;
  /** Only this guild (and the campaigns it serves). */
  guildId?: string;
  /** Only this campaign (and the guilds it serves). */
  campaignId?: string;
  /** Plan only: no role, ledger or link is changed (member snapshots and tiers are still refreshed). */
  dryRun?: boolean;
  /** Apply removals above the guild's threshold. A read error still holds them. */
  force?: boolean;
  /**
   * Also record as Tierlink's grants the tier roles that entitled, linked members already hold
   * (given by hand or by another bot), so they are removed when those pledges end. No request is
   * sent for them. With `dryRun`, only counted.
   */
  adopt?: boolean;
  /**
   * `false`: plan from the stored snapshots without listing the campaign's members again. For a
   * change on our side (`/map`, `/settings`), where the service's data has not changed and webhooks
   * keep the snapshots current. Default `true`.
   */
  refreshMembers?: boolean;
  /**
   * Runs of these guilds that a stopped process left `running` (closed by the scheduler): this run
   * takes them over. Their applied changes are not sent again in any case: the plan is made from
   * the server as it is now, where they show.
   */
  resumes?: readonly SyncRunRow[];
}

export interface FullSyncDeps {
  guilds: Pick<GuildRepository, 'bindings' | 'campaignsOf' | 'name' | 'patronMessages'>;
  ledger: Pick<LedgerRepository, 'countInGuild' | 'audit'>;
  syncRuns: Pick<SyncRunRepository, 'start' | 'finish' | 'progress'>;
  contexts: GuildContextLoader;
  campaignPass: CampaignPass;
  guildPass: GuildPass;
  applier: Pick<RoleApplier, 'applyMany' | 'adopt'>;
  graceChecks: Pick<GraceChecks, 'schedule'>;
  /** Direct messages to patrons after the apply (a declined payment the sync found); none when absent. */
  patronMessages?: Pick<PatronMessages, 'afterApply'>;
  /** Judges each campaign's connector by the roles the listing shows (src/app/sync/connector-refresh.ts). */
  connectorRefresh?: ConnectorRefresh;
  /**
   * Hands the guilds of a run over to other instances once the campaign pass is done (see
   * src/app/sync/guild-spread.ts); true when it took them, and this run then syncs none itself.
   */
  spread?(guilds: ReadonlyArray<{ guildId: string; campaigns: CampaignOutcome[] }>, options: FullSyncOptions): Promise<boolean>;
  /**
   * Analyses the tables that grew (src/edges/outbound/store/planner-statistics.ts), called between
   * the campaign pass and the guild pass: the embedded database has no autovacuum, and without
   * statistics a page of the guild pass reads whole tables.
   */
  statistics?: Pick<Database, 'refreshStatistics'>;
  meter?: ApiMeter;
  clock: Clock;
  metrics: Pick<Metrics, 'roleChanges' | 'syncRuns' | 'syncDurationSeconds' | 'syncProgress'>;
  logger: Logger;
}

export function createFullSync(deps: FullSyncDeps): FullSync {
  const { clock, logger, metrics } = deps;
  const guildSync = createGuildSync(deps);

  /** Fresh statistics for the guild pass's page statements, once the campaigns are stored; a failure only costs speed. */
  async function refreshStatistics(): Promise<void> {
    if (!deps.statistics) return;
    try {
      const analysed = await deps.statistics.refreshStatistics();
      if (analysed.length > 0) logger.debug({ tables: analysed }, 'full sync: table statistics refreshed');
    } catch (error) {
      logger.warn({ err: error }, 'full sync: the table statistics could not be refreshed');
    }
  }

  /** Writes the guild's `sync_runs` row (taking over a run a stopped process left, if any). */
  async function openRun(
    guildId: string,
    campaignIds: string[],
    campaigns: Map<string, CampaignOutcome>,
    options: FullSyncOptions,
    pendingLinks: Map<string, string>,
  ): Promise<GuildRun> {
    const startedAt = clock.now();
    const resumed =
      options.dryRun === true ? null : ([...(options.resumes ?? [])].reverse().find((r) => r.guildId === guildId && !r.dryRun) ?? null);
    let runId: number | null = null;
    let startError: string | null = null;
    try {
      runId = await deps.syncRuns.start({
        trigger: options.trigger,
        guildId,
        campaignId: options.campaignId ?? null,
        dryRun: options.dryRun === true,
        forced: options.force === true,
        startedAt,
        resumedFrom: resumed?.id ?? null,
        attempt: resumed ? resumed.attempt + 1 : 1,
      });
    } catch (error) {
      startError = `recording this run failed: ${describeError(error)}`;
      logger.error({ err: error, guildId }, 'full sync: the run could not be recorded');
    }
    if (resumed) logger.info({ guildId, runId, resumedFrom: resumed.id }, 'full sync: takes over a run a stopped process left');
    return {
      guildId,
      campaignIds,
      campaigns,
      options,
      pendingLinks,
      runId,
      startedAt,
      startError,
      resumed,
      progress: createRunProgress({ syncRuns: deps.syncRuns, metrics, clock, logger }, runId, guildId),
    };
  }

  return {
    async runGuild(guildId: string, campaigns: readonly CampaignOutcome[], options: FullSyncOptions): Promise<GuildSyncReport> {
      const byId = new Map(campaigns.map((c) => [c.report.campaignId, c]));
      return guildSync.sync(await openRun(guildId, [...byId.keys()], byId, options, new Map()));
    },

    async run(options: FullSyncOptions): Promise<SyncReport> {
      const dryRun = options.dryRun === true;
      const wallStart = performance.now();
      const startedAt = clock.now();
      const meterStart = deps.meter?.read() ?? null;
      const errors: string[] = [];
      logger.info(
        {
          trigger: options.trigger,
          guildId: options.guildId,
          campaignId: options.campaignId,
          dryRun,
          force: options.force === true,
          adopt: options.adopt === true,
        },
        'full sync: started',
      );

      const bindings = (await deps.guilds.bindings()).filter(
        (b) =>
          (options.guildId === undefined || b.guildId === options.guildId) &&
          (options.campaignId === undefined || b.campaignId === options.campaignId),
      );
      const campaignsByGuild = new Map<string, string[]>();
      for (const b of bindings) campaignsByGuild.set(b.guildId, [...(campaignsByGuild.get(b.guildId) ?? []), b.campaignId]);
      if (bindings.length === 0 && options.guildId !== undefined) errors.push('this server serves no campaign yet: run /connect');
      else if (bindings.length === 0 && options.campaignId !== undefined) errors.push(`no server serves campaign ${options.campaignId}`);
      else if (bindings.length === 0) logger.info('full sync: no server serves a campaign yet; nothing to do');
      // Each guild is planned with all of its campaigns, even on a run for one campaign.
      for (const guildId of campaignsByGuild.keys()) campaignsByGuild.set(guildId, await deps.guilds.campaignsOf(guildId));

      const pendingLinks = new Map<string, string>();
      const campaigns = new Map<string, CampaignOutcome>();
      // Each guild's row is written first, so the run shows (and its progress counts) from the start;
      // a run that may hand its guilds to other instances leaves that to the instance that takes each.
      const mayHand = deps.spread !== undefined && campaignsByGuild.size > 1;
      const runs: GuildRun[] = [];
      const openAll = async () => {
        for (const [guildId, campaignIds] of campaignsByGuild)
          runs.push(await openRun(guildId, campaignIds, campaigns, options, pendingLinks));
      };
      if (!mayHand) await openAll();
      const read = new Map<string, { members: number; links: number }>();
      const onCampaignPage = async (campaignId: string, r: { members: number; linksMade: number }) => {
        read.set(campaignId, { members: r.members, links: r.linksMade });
        for (const run of runs) {
          if (!run.campaignIds.includes(campaignId)) continue;
          const sum = (k: 'members' | 'links') => run.campaignIds.reduce((n, id) => n + (read.get(id)?.[k] ?? 0), 0);
          await run.progress.campaigns(sum('members'), sum('links'));
        }
      };
      for (const campaignId of [...new Set(bindings.map((b) => b.campaignId))].sort()) {
        campaigns.set(
          campaignId,
          options.refreshMembers === false
            ? deps.campaignPass.stored(campaignId)
            : await deps.campaignPass.read(campaignId, dryRun, pendingLinks, onCampaignPage),
        );
      }

      await refreshStatistics();

      const guilds: GuildSyncReport[] = [];
      let spreadGuilds = 0;
      if (mayHand) {
        const handed = [...campaignsByGuild].map(([guildId, ids]) => ({
          guildId,
          campaigns: ids.flatMap((id) => campaigns.get(id) ?? []),
        }));
        if (await deps.spread!(handed, options)) {
          spreadGuilds = handed.length;
          logger.info({ guilds: handed.length }, 'full sync: the servers are handed to every instance, one job each');
        } else await openAll();
      }
      for (const run of runs) guilds.push(await guildSync.sync(run));

      const meterEnd = deps.meter?.read() ?? null;
      const wallMs = performance.now() - wallStart;
      const rateLimitWaitMs = meterStart && meterEnd ? Math.max(0, meterEnd.rateLimitWaitMs - meterStart.rateLimitWaitMs) : 0;
      const status: SyncStatus =
        errors.length > 0 || guilds.some((g) => g.status === 'failed') || [...campaigns.values()].some((c) => !c.report.complete)
          ? 'failed'
          : guilds.some((g) => g.status === 'held')
            ? 'held'
            : 'ok';
      const report: SyncReport = {
        trigger: options.trigger,
        dryRun,
        forced: options.force === true,
        status,
        startedAt: startedAt.toISOString(),
        finishedAt: clock.now().toISOString(),
        timing: {
          wallMs: Math.round(wallMs),
          rateLimitWaitMs: Math.round(rateLimitWaitMs),
          busyMs: Math.round(Math.max(0, wallMs - rateLimitWaitMs)),
        },
        campaigns: [...campaigns.values()].map((c) => c.report),
        guilds,
        ...(spreadGuilds > 0 ? { spreadGuilds } : {}),
        apiCalls: callsBetween(meterStart, meterEnd),
        errors,
      };
      metrics.syncRuns.inc({ status: dryRun ? 'dry_run' : status });
      if (!dryRun) metrics.syncDurationSeconds.observe(wallMs / 1000);
      logger.info(
        {
          trigger: options.trigger,
          status,
          dryRun,
          wallMs: report.timing.wallMs,
          rateLimitWaitMs: report.timing.rateLimitWaitMs,
          apiCalls: report.apiCalls,
        },
        'full sync: finished',
      );
      return report;
    },
  };
}

/**
 * The nightly safety net, also what `/sync`, `npm run sync`, the heal after a paused webhook and
 * the guild-wide apply after `/map` or `/settings` run: the campaign pass reads every member of
 * each campaign once, page by page; the guild pass reads every member of each guild once, page by
 * page, and plans each member that matters with the pure planner; the role applier applies the
 * changes (each guild: src/app/sync/guild-sync.ts). Cost grows with pages and changes, never members × calls: no member is fetched on its
 * own. A read error on any page keeps every removal of the guilds it concerns, and a mass removal
 * above the guild's threshold is held until forced.
 */
export interface FullSync {
  /**
   * One guild of a run whose campaign pass another instance did (src/app/sync/guild-spread.ts):
   * planned and applied exactly as that run would have, from the campaigns' outcomes it handed
   * over. Not locked by itself.
   */
  runGuild(guildId: string, campaigns: readonly CampaignOutcome[], options: FullSyncOptions): Promise<GuildSyncReport>;
  /**
   * One full sync of every binding, or of one guild or one campaign. Not locked by itself: go
   * through the scheduler's `runNow` (src/app/sync/sync-scheduler.ts), which holds the full-sync
   * lock, so that two runs never act at once. Read errors are values in the report; only a
   * failure to read the bindings themselves throws.
   */
  run(options: FullSyncOptions): Promise<SyncReport>;
}
