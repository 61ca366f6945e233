import { performance } from 'node:perf_hooks';
import { shouldHoldRemovals } from '../../core/planner';
import type { GuildContext } from '../../core/planner/types';
import {
  type GuildSyncReport,
  type PlannedMember,
  type SyncReport,
  type SyncStatus,
  type SyncTrigger,
  changeLines,
} from '../../core/sync-report';
import type { Metrics } from '../../edges/observability/metrics';
import type { GuildRepository } from '../../edges/store/repositories/guild-repository';
import type { AuditEntry, LedgerRepository } from '../../edges/store/repositories/ledger-repository';
import type { SyncRunRepository } from '../../edges/store/repositories/sync-run-repository';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import { type ApiMeter, addCalls, callsBetween } from './api-meter';
import { type CampaignOutcome, type CampaignPass, describeError } from './campaign-pass';
import type { GuildContextLoader } from './guild-context';
import type { GuildPass } from './guild-pass';
import type { GraceChecks, GraceEnd } from './grace-checks';
import { type RoleApplier, type Trigger, auditEntry } from './role-applier';

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
}

export interface FullSyncDeps {
  guilds: Pick<GuildRepository, 'bindings' | 'campaignsOf' | 'name'>;
  ledger: Pick<LedgerRepository, 'forGuild' | 'audit'>;
  syncRuns: Pick<SyncRunRepository, 'start' | 'finish'>;
  contexts: GuildContextLoader;
  campaignPass: CampaignPass;
  guildPass: GuildPass;
  applier: Pick<RoleApplier, 'applyMany' | 'adopt'>;
  graceChecks: Pick<GraceChecks, 'schedule'>;
  /**
   * Hands the guilds of a run over to other instances once the campaign pass is done (see
   * src/app/sync/guild-spread.ts); true when it took them, and this run then syncs none itself.
   */
  spread?(guilds: ReadonlyArray<{ guildId: string; campaigns: CampaignOutcome[] }>, options: FullSyncOptions): Promise<boolean>;
  meter?: ApiMeter;
  clock: Clock;
  metrics: Pick<Metrics, 'roleChanges' | 'syncRuns' | 'syncDurationSeconds'>;
  logger: Logger;
}

/** The label a run's role changes carry in the audit log and in Discord's audit-log reason. */
function auditTrigger(trigger: SyncTrigger): Trigger {
  return trigger === 'map' || trigger === 'settings' ? trigger : 'sync';
}

interface GuildRun {
  guildId: string;
  campaignIds: string[];
  campaigns: Map<string, CampaignOutcome>;
  options: FullSyncOptions;
  pendingLinks: Map<string, string>;
}

/**
 * The nightly safety net, also what `/sync`, `npm run sync`, the heal after a paused webhook and
 * the guild-wide apply after `/map` or `/settings` run: the campaign pass reads every member of
 * each campaign once, page by page; the guild pass reads every member of each guild once, page by
 * page, and plans each member that matters with the pure planner; the role applier applies the
 * changes. Cost grows with pages and changes, never members × calls: no member is fetched on its
 * own. A read error on any page keeps every removal of the guilds it concerns, and a mass removal
 * above the guild's threshold is held until forced.
 */
export function createFullSync(deps: FullSyncDeps) {
  const { clock, logger, metrics } = deps;

  async function syncGuild(run: GuildRun): Promise<GuildSyncReport> {
    const { guildId, options } = run;
    const dryRun = options.dryRun === true;
    const startedAt = clock.now();
    const before = deps.meter?.read() ?? null;
    const served = run.campaignIds.map((id) => run.campaigns.get(id)).filter((c): c is CampaignOutcome => c !== undefined);
    const report: GuildSyncReport = {
      runId: null,
      guildId,
      guildName: null,
      campaignIds: run.campaignIds,
      status: 'ok',
      startedAt: startedAt.toISOString(),
      finishedAt: startedAt.toISOString(),
      discord: { pages: 0, members: 0 },
      linkedMembers: 0,
      usersPlanned: 0,
      ourGrants: 0,
      planned: { adds: 0, removes: 0, forgets: 0, blocked: 0 },
      applied: { adds: 0, removes: 0, forgets: 0 },
      failed: 0,
      held: null,
      adoptions: options.adopt === true ? { planned: 0, recorded: 0 } : null,
      errors: served.flatMap((c) => (c.report.error ? [c.report.error] : [])),
      apiCalls: {},
      changes: [],
    };
    let pending: PlannedMember[] = [];
    const graceEnds: GraceEnd[] = [];
    const plannedAt = clock.now();
    let context: GuildContext | null = null;
    try {
      report.runId = await deps.syncRuns.start({
        trigger: options.trigger,
        guildId,
        campaignId: options.campaignId ?? null,
        dryRun,
        forced: options.force === true,
        startedAt,
      });
      report.guildName = await deps.guilds.name(guildId);
      context = await deps.contexts.load(guildId);
      const ledger = await deps.ledger.forGuild(guildId);
      for (const entries of ledger.values()) report.ourGrants += entries.length;
      pending = await deps.guildPass.plan(
        { guild: context, ledger, campaigns: run.campaigns, pendingLinks: run.pendingLinks, graceEnds, adopt: options.adopt === true },
        report,
      );
    } catch (error) {
      report.errors.push(`syncing this server failed: ${describeError(error)}`);
      logger.error({ err: error, guildId }, 'full sync: the server could not be synced');
    }

    const all = pending.flatMap((p) => p.plan.changes);
    report.planned.adds = all.filter((c) => c.op === 'add').length;
    report.planned.removes = all.filter((c) => c.op === 'remove').length;
    report.planned.forgets = all.filter((c) => c.op === 'forget').length;
    report.planned.blocked = pending.reduce((sum, p) => sum + p.plan.blocked.length, 0);
    if (report.adoptions) report.adoptions.planned = pending.reduce((sum, p) => sum + (p.adoptions?.length ?? 0), 0);

    if (report.planned.removes > 0) {
      if (report.errors.length > 0) {
        report.held = {
          removals: report.planned.removes,
          reason: 'a page could not be read in this run, so no role was removed; the next complete run removes them',
        };
      } else if (options.force !== true && context !== null) {
        const verdict = shouldHoldRemovals(report.planned.removes, report.ourGrants, context.settings);
        if (verdict.hold)
          report.held = {
            removals: report.planned.removes,
            reason: `${verdict.reason ?? 'above the threshold'} (or npm run sync -- --force)`,
          };
      }
    }

    if (dryRun) {
      report.changes = changeLines(pending, report.held !== null, null);
    } else {
      const { results, stopped } = await deps.applier.applyMany(
        guildId,
        pending.map((p) => p.plan),
        auditTrigger(options.trigger),
        { removals: report.held === null, plannedAt },
      );
      if (stopped !== null) report.errors.push(stopped);
      for (const { plan } of pending) {
        const outcome = results.get(plan);
        for (const change of plan.changes) {
          if (change.op === 'remove' && report.held !== null) continue;
          if (outcome?.applied.has(change)) {
            if (change.op === 'add') report.applied.adds += 1;
            else if (change.op === 'remove') report.applied.removes += 1;
            else report.applied.forgets += 1;
          } else if (!outcome?.superseded) {
            report.failed += 1;
          }
        }
      }
      let adopted: 'applied' | 'failed' = 'applied';
      if (report.adoptions && report.adoptions.planned > 0) {
        try {
          report.adoptions.recorded = await deps.applier.adopt(
            guildId,
            pending.flatMap((p) => (p.adoptions ? [{ userId: p.plan.userId, adoptions: p.adoptions }] : [])),
          );
        } catch (error) {
          adopted = 'failed';
          report.errors.push(`recording the adopted roles failed: ${describeError(error)}`);
          logger.error({ err: error, guildId }, 'full sync: the adopted roles could not be recorded');
        }
      }
      report.changes = changeLines(pending, report.held !== null, results, adopted);
      try {
        await deps.graceChecks.schedule(graceEnds);
      } catch (error) {
        logger.error({ err: error, guildId }, 'full sync: the checks at the end of grace periods could not be scheduled');
      }
      if (report.held) {
        try {
          await auditHeld(guildId, pending, report.held.reason, auditTrigger(options.trigger));
        } catch (error) {
          logger.error({ err: error, guildId }, 'full sync: the held removals could not be audited');
        }
      }
    }
    if (report.held) {
      if (!dryRun) metrics.roleChanges.inc({ kind: 'remove', outcome: 'held' }, report.held.removals);
      logger.warn({ guildId, removals: report.held.removals, reason: report.held.reason, dryRun }, 'full sync: removals held');
    }

    report.status = report.errors.length > 0 ? 'failed' : report.held ? 'held' : 'ok';
    const finishedAt = clock.now();
    report.finishedAt = finishedAt.toISOString();
    report.apiCalls = callsBetween(before, deps.meter?.read() ?? null);
    for (const c of served) addCalls(report.apiCalls, c.report.apiCalls);
    if (report.runId !== null) {
      try {
        await deps.syncRuns.finish(report.runId, {
          status: report.status,
          finishedAt,
          pagesRead: served.reduce((sum, c) => sum + c.report.pages, 0) + report.discord.pages,
          membersSeen: served.reduce((sum, c) => sum + c.report.members, 0),
          links: report.linkedMembers,
          plannedAdds: report.planned.adds,
          plannedRemoves: report.planned.removes,
          appliedAdds: report.applied.adds,
          appliedRemoves: report.applied.removes,
          heldRemovals: report.held?.removals ?? 0,
          failedChanges: report.failed,
          errors: report.errors,
          apiCalls: report.apiCalls,
          heldReason: report.held?.reason ?? null,
        });
      } catch (error) {
        logger.error({ err: error, guildId, runId: report.runId }, 'full sync: the run record could not be written');
      }
    }
    logger.info(
      {
        guildId,
        status: report.status,
        dryRun,
        discordPages: report.discord.pages,
        members: report.discord.members,
        linked: report.linkedMembers,
        planned: report.planned,
        applied: report.applied,
        failed: report.failed,
        held: report.held?.removals ?? 0,
      },
      'full sync: server done',
    );
    return report;
  }

  async function auditHeld(guildId: string, pending: PlannedMember[], reason: string, trigger: Trigger): Promise<void> {
    const at = clock.now();
    const entries: AuditEntry[] = [];
    for (const { plan } of pending) {
      for (const change of plan.changes) {
        if (change.op !== 'remove') continue;
        entries.push(auditEntry({ guildId, userId: plan.userId, trigger, at }, change, 'held', reason));
      }
    }
    await deps.ledger.audit(entries);
  }

  return {
    /**
     * One guild of a run whose campaign pass another instance did (src/app/sync/guild-spread.ts):
     * planned and applied exactly as that run would have, from the campaigns' outcomes it handed
     * over. Not locked by itself.
     */
    runGuild(guildId: string, campaigns: readonly CampaignOutcome[], options: FullSyncOptions): Promise<GuildSyncReport> {
      const byId = new Map(campaigns.map((c) => [c.report.campaignId, c]));
      return syncGuild({ guildId, campaignIds: [...byId.keys()], campaigns: byId, options, pendingLinks: new Map() });
    },

    /**
     * One full sync of every binding, or of one guild or one campaign. Not locked by itself: go
     * through the scheduler's `runNow` (src/app/sync/sync-scheduler.ts), which holds the full-sync
     * lock, so that two runs never act at once. Read errors are values in the report; only a
     * failure to read the bindings themselves throws.
     */
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
      for (const campaignId of [...new Set(bindings.map((b) => b.campaignId))].sort()) {
        campaigns.set(
          campaignId,
          options.refreshMembers === false
            ? deps.campaignPass.stored(campaignId)
            : await deps.campaignPass.read(campaignId, dryRun, pendingLinks),
        );
      }

      const guilds: GuildSyncReport[] = [];
      const handed = [...campaignsByGuild].map(([guildId, ids]) => ({
        guildId,
        campaigns: ids.flatMap((id) => campaigns.get(id) ?? []),
      }));
      const spread = deps.spread !== undefined && handed.length > 0 && (await deps.spread(handed, options));
      if (spread) logger.info({ guilds: handed.length }, 'full sync: the servers are handed to every instance, one job each');
      for (const [guildId, campaignIds] of spread ? [] : campaignsByGuild) {
        guilds.push(await syncGuild({ guildId, campaignIds, campaigns, options, pendingLinks }));
      }

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
        ...(spread ? { spreadGuilds: handed.length } : {}),
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

export type FullSync = ReturnType<typeof createFullSync>;
