import { shouldHoldRemovals } from '../../core/planner';
import type { GuildContext, MemberState } from '../../core/planner/types';
import { type GuildSyncReport, type PlannedMember, type SyncTrigger, changeLines } from '../../core/sync-report';
import { emptyGuildReport } from '../../core/empty-guild-report';
import type { Metrics } from '../../edges/outbound/observability/metrics';
import type { GuildRepository } from '../../edges/outbound/store/repositories/guild-repository';
import type { AuditEntry, LedgerRepository } from '../../edges/outbound/store/repositories/ledger-repository';
import type { SyncRunRepository, SyncRunRow } from '../../edges/outbound/store/repositories/sync-run-repository';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import { type ApiMeter, addCalls, callsBetween } from './api-meter';
import { type CampaignOutcome, describeError } from './campaign-pass';
import type { FullSyncOptions } from './full-sync';
import type { GuildContextLoader } from './guild-context';
import type { GuildPass } from './guild-pass';
import type { GraceChecks, GraceEnd } from './grace-checks';
import { type RoleApplier, type Trigger, auditEntry } from './role-applier';
import type { RunProgress } from './sync-progress';
import type { PatronMessages } from '../membership/patron-messages';
import type { ConnectorRefresh } from './connector-refresh';

/** Changes a guild's report lists (all are counted); the audit log keeps every one. */
export const LISTED_CHANGES = 1000;

export interface GuildSyncDeps {
  guilds: Pick<GuildRepository, 'name' | 'patronMessages'>;
  ledger: Pick<LedgerRepository, 'countInGuild' | 'audit'>;
  syncRuns: Pick<SyncRunRepository, 'finish'>;
  contexts: GuildContextLoader;
  guildPass: GuildPass;
  applier: Pick<RoleApplier, 'applyMany' | 'adopt'>;
  graceChecks: Pick<GraceChecks, 'schedule'>;
  /** Direct messages to patrons after the apply (a declined payment the sync found); none when absent. */
  patronMessages?: Pick<PatronMessages, 'afterApply'>;
  /** Judges each campaign's connector by the roles the listing shows (not on a dry run); none when absent. */
  connectorRefresh?: ConnectorRefresh;
  meter?: ApiMeter;
  clock: Clock;
  metrics: Pick<Metrics, 'roleChanges'>;
  logger: Logger;
}

/** One guild of a full sync, its `sync_runs` row already written (`openRun`, src/app/sync/full-sync.ts). */
export interface GuildRun {
  guildId: string;
  campaignIds: string[];
  campaigns: Map<string, CampaignOutcome>;
  options: Pick<FullSyncOptions, 'trigger' | 'dryRun' | 'force' | 'adopt'>;
  pendingLinks: Map<string, string>;
  runId: number | null;
  startedAt: Date;
  /** Why the run's row could not be written, if it could not. */
  startError: string | null;
  resumed: SyncRunRow | null;
  progress: RunProgress;
}

/** The label a run's role changes carry in the audit log and in Discord's audit-log reason. */
function auditTrigger(trigger: SyncTrigger): Trigger {
  return trigger === 'map' || trigger === 'settings' ? trigger : 'sync';
}

export function createGuildSync(deps: GuildSyncDeps): GuildSync {
  /** A failure costs only the refresh: the stored role stands until the next night. */
  async function refreshConnectors(guild: GuildContext, listed: ReadonlyMap<string, readonly string[]>): Promise<void> {
    try {
      await deps.connectorRefresh!.refresh(guild, listed);
    } catch (error) {
      deps.logger.warn({ err: error, guildId: guild.guildId }, 'full sync: the connectors’ highest roles could not be refreshed');
    }
  }

  const { clock, logger, metrics } = deps;

  async function auditHeld(
    guildId: string,
    pending: PlannedMember[],
    held: NonNullable<GuildSyncReport['held']>,
    trigger: Trigger,
  ): Promise<void> {
    const at = clock.now();
    const entries: AuditEntry[] = [];
    for (const { plan } of pending) {
      for (const change of plan.changes) {
        if (change.op !== 'remove') continue;
        entries.push(auditEntry({ guildId, userId: plan.userId, trigger, at }, change, 'held', held.reason, held.why ?? null));
      }
    }
    await deps.ledger.audit(entries);
  }

  return {
    async sync(run: GuildRun): Promise<GuildSyncReport> {
      const { guildId, options, progress } = run;
      const dryRun = options.dryRun === true;
      const startedAt = run.startedAt;
      const before = deps.meter?.read() ?? null;
      const served = run.campaignIds.map((id) => run.campaigns.get(id)).filter((c): c is CampaignOutcome => c !== undefined);
      const report = emptyGuildReport({
        runId: run.runId,
        guildId,
        campaignIds: run.campaignIds,
        startedAt: startedAt.toISOString(),
        adoptions: options.adopt === true ? { planned: 0, recorded: 0 } : null,
        resumed: run.resumed
          ? {
              runId: run.resumed.id,
              appliedBefore: run.resumed.appliedAdds + run.resumed.appliedRemoves,
              plannedBefore: run.resumed.plannedAdds + run.resumed.plannedRemoves,
            }
          : null,
        errors: [...(run.startError ? [run.startError] : []), ...served.flatMap((c) => (c.report.error ? [c.report.error] : []))],
      });
      let pending: PlannedMember[] = [];
      const graceEnds: GraceEnd[] = [];
      const declines: Array<{ userId: string; members: MemberState[] }> = [];
      const plannedAt = clock.now();
      let context: GuildContext | null = null;
      try {
        report.guildName = await deps.guilds.name(guildId);
        context = await deps.contexts.load(guildId);
        report.ourGrants = await deps.ledger.countInGuild(guildId);
        // Declined payments are gathered only where the server sends messages to patrons: read once, not per patron each night.
        const tells = deps.patronMessages !== undefined && !dryRun && (await deps.guilds.patronMessages(guildId));
        const connectorRoles = !dryRun && deps.connectorRefresh && context.connectors ? new Map<string, readonly string[]>() : null;
        pending = await deps.guildPass.plan(
          {
            guild: context,
            ...(connectorRoles ? { connectorRoles } : {}),
            campaigns: run.campaigns,
            pendingLinks: run.pendingLinks,
            graceEnds,
            ...(tells ? { declines } : {}),
            adopt: options.adopt === true,
            onPage: (r) =>
              progress.members(
                r,
                served.reduce((sum, c) => sum + c.report.members, 0),
              ),
          },
          report,
        );
        if (connectorRoles) await refreshConnectors(context, connectorRoles);
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
            why: { code: 'unreadable' },
          };
        } else if (options.force !== true && context !== null) {
          const verdict = shouldHoldRemovals(report.planned.removes, report.ourGrants, context.settings);
          if (verdict.hold)
            report.held = {
              removals: report.planned.removes,
              reason: `${verdict.reason ?? 'above the threshold'} (or npm run sync -- --force)`,
              why: {
                code: 'threshold',
                removals: report.planned.removes,
                share: report.ourGrants === 0 ? 100 : (report.planned.removes / report.ourGrants) * 100,
                grants: report.ourGrants,
                percent: context.settings.removalThresholdPercent,
                min: context.settings.removalThresholdMin,
              },
            };
        }
      }

      report.changeCount = report.planned.adds + report.planned.removes + report.planned.forgets + report.planned.blocked;
      if (dryRun) {
        report.changes = changeLines(pending, report.held !== null, null, 'planned', LISTED_CHANGES);
      } else {
        const toApply = report.planned.adds + report.planned.forgets + (report.held === null ? report.planned.removes : 0);
        await progress.applying(
          report,
          toApply,
          served.reduce((sum, c) => sum + c.report.members, 0),
        );
        let done = 0;
        const { results, stopped } = await deps.applier.applyMany(
          guildId,
          pending.map((p) => p.plan),
          auditTrigger(options.trigger),
          {
            removals: report.held === null,
            plannedAt,
            onBatch: async (batch) => {
              for (const [plan, outcome] of batch) {
                for (const change of plan.changes) {
                  if (outcome.applied.has(change)) {
                    done += 1;
                    if (change.op === 'add') report.applied.adds += 1;
                    else if (change.op === 'remove') report.applied.removes += 1;
                  } else if (outcome.failed.has(change)) {
                    done += 1;
                    report.failed += 1;
                  }
                }
              }
              await progress.applied(report, done);
            },
          },
        );
        report.applied = { adds: 0, removes: 0, forgets: 0 };
        report.failed = 0;
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
        report.changes = changeLines(pending, report.held !== null, results, adopted, LISTED_CHANGES);
        try {
          await deps.graceChecks.schedule(graceEnds);
        } catch (error) {
          logger.error({ err: error, guildId }, 'full sync: the checks at the end of grace periods could not be scheduled');
        }
        // After the roles: each declined payment's message, started and not awaited (it never holds up the sync).
        const guild = context;
        for (const d of guild ? declines : []) {
          try {
            if (guild) deps.patronMessages?.afterApply(guild, d.userId, d.members);
          } catch (error) {
            logger.error({ err: error, guildId, userId: d.userId }, 'full sync: a message to a patron could not be started');
          }
        }
        if (report.held) {
          try {
            await auditHeld(guildId, pending, report.held, auditTrigger(options.trigger));
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
      progress.done();
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
            heldWhy: report.held?.why ?? null,
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
    },
  };
}

/**
 * One guild of a full sync, once the campaign pass has read its campaigns: the guild pass plans its
 * members, a read error or a mass removal above the guild's threshold (unless forced) holds the
 * removals, the role applier applies the rest (a dry run only lists them), and the guild's
 * `sync_runs` row is finished with the counts. Read errors are values in the guild's report.
 */
export interface GuildSync {
  /** Plans and applies one guild of a run, and finishes its run row. */
  sync(run: GuildRun): Promise<GuildSyncReport>;
}
