import type { GuildDirectory } from '../../edges/outbound/discord/guild-directory';
import type { FenceScope } from '../../shared/fence';
import type { GuildSnapshotCache } from '../../edges/outbound/discord/guild-snapshot-cache';
import type { MemberRoles } from '../../edges/outbound/discord/member-roles';
import type { RoleWriter } from '../../edges/outbound/discord/role-writer';
import type { Metrics } from '../../edges/outbound/observability/metrics';
import type { CreatorAccounts } from '../../edges/outbound/patreon/creator-accounts';
import type { Database } from '../../edges/outbound/store/database';
import type { JobQueue } from '../../edges/outbound/store/job-queue';
import type { Repositories } from '../../edges/outbound/store/repositories';
import type { EntitlementSource } from '../../core/entitlement-source';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import { MemberIntake } from '../membership/member-intake';
import { MemberStates } from '../membership/member-states';
import type { PatronMessages } from '../membership/patron-messages';
import type { ApiMeter } from './api-meter';
import { createCampaignPass } from './campaign-pass';
import { createFullSync } from './full-sync';
import { createGuildContextLoader } from './guild-context';
import { createGuildPass } from './guild-pass';
import { createConnectorRefresh } from './connector-refresh';
import { GRACE_END_JOB, createGraceChecks } from './grace-checks';
import { type GuildSpread, createGuildSpread } from './guild-spread';
import { createReconciler } from './reconciler';
import { createRoleApplier } from './role-applier';
import { createStrictPreview } from './strict-preview';
import { createChangePreview } from './change-preview';
import { createSyncScheduler, isSkipped } from './sync-scheduler';
import type { FullSync } from './full-sync';
import type { GuildContextLoader } from './guild-context';
import type { Reconciler } from './reconciler';
import type { RoleApplier } from './role-applier';
import type { StrictPreviewer } from './strict-preview';
import type { ChangePreviewer } from './change-preview';
import type { SyncOutcome, SyncScheduler } from './sync-scheduler';

/** The job that applies a guild-wide change once the full sync running when it was asked for has finished. */
export const GUILD_RECONCILE_JOB = 'guild-reconcile';
/** The job that syncs one campaign (after its webhook was found paused: events were held back). */
export const CAMPAIGN_SYNC_JOB = 'campaign-sync';

/** What a guild-wide apply after `/map` or `/settings` did, or that it waits behind a running sync. */
export type GuildApplyOutcome = { kind: 'applied'; members: number; changes: number } | { kind: 'queued' };

export interface SyncSubsystemDeps {
  repos: Pick<
    Repositories,
    'guilds' | 'campaigns' | 'mappings' | 'ruleRoles' | 'links' | 'snapshots' | 'ledger' | 'syncRuns' | 'roleAllowances'
  >;
  discord: { writer: RoleWriter; directory: GuildDirectory; snapshots: GuildSnapshotCache; memberRoles: MemberRoles };
  /** Every entitlement source, registered once in the composition root (Patreon, comps, …). */
  sources: readonly EntitlementSource[];
  accounts: Pick<CreatorAccounts, 'clientForCampaign'>;
  /** `refreshStatistics`: the full sync analyses the tables that grew (`statistics` in src/app/sync/full-sync.ts). */
  database: Pick<Database, 'tryWithLock'> & Partial<Pick<Database, 'refreshStatistics'>>;
  jobs: Pick<JobQueue, 'enqueue' | 'register' | 'store'>;
  /** SYNC_SCHEDULE. */
  schedule: string;
  /** SYNC_TIMEZONE: the time zone of the schedule. */
  timezone?: string;
  meter?: ApiMeter;
  clock: Clock;
  metrics: Metrics;
  logger: Logger;
  /** Members applied at once by a bulk apply; 8 when absent. */
  concurrency?: number;
  /** Discord member page size of the guild pass, 1..1000; 1000 when absent. */
  guildPageSize?: number;
  /** Direct messages to patrons after a member's roles are applied (src/app/membership/patron-messages.ts); none when absent. */
  patronMessages?: Pick<PatronMessages, 'afterApply'>;
  /** Live instances (the instance table): with several, the nightly sync's guilds are spread over them. */
  liveInstances?(): Promise<number>;
  /** The fence of the work under way, checked where the role applier records grants (docs/outages-and-fencing.md). */
  fences?: FenceScope;
  /**
   * Reads a member's Patreon state afresh before a grace period's end removes anything (the
   * webhooks' `confirmMember`); throws when the read fails. Without it the end plans from storage.
   */
  confirmMember?(discordUserId: string): Promise<void>;
}

export function createSync(deps: SyncSubsystemDeps): SyncSubsystem {
  const { repos, discord, clock, metrics, logger } = deps;
  const applier = createRoleApplier({
    writer: discord.writer,
    ledger: repos.ledger,
    clock,
    metrics,
    logger,
    ...(deps.concurrency !== undefined ? { concurrency: deps.concurrency } : {}),
    ...(deps.fences ? { fences: deps.fences } : {}),
  });
  const contexts = createGuildContextLoader({ ...repos, discordSnapshots: discord.snapshots });
  const graceChecks = createGraceChecks({ jobs: deps.jobs.store, logger });
  const states = new MemberStates(deps.sources, repos.links);
  const reconciler = createReconciler({
    ...repos,
    states,
    contexts,
    memberRoles: discord.memberRoles,
    applier,
    graceChecks,
    ...(deps.patronMessages ? { patronMessages: deps.patronMessages } : {}),
    ...(deps.fences ? { fences: deps.fences } : {}),
    clock,
    logger,
  });
  const intake = new MemberIntake({ ...repos, reconciler, metrics, clock, logger });
  const campaignPass = createCampaignPass({
    ...repos,
    intake,
    accounts: deps.accounts,
    clock,
    logger,
    ...(deps.meter ? { meter: deps.meter } : {}),
  });
  const guildPass = createGuildPass({
    ...repos,
    states,
    directory: discord.directory,
    clock,
    logger,
    ...(deps.guildPageSize !== undefined ? { pageSize: deps.guildPageSize } : {}),
  });
  const spread = (...args: Parameters<GuildSpread['spread']>) => spreader?.spread(...args) ?? Promise.resolve(false);
  const fullSync = createFullSync({
    ...repos,
    spread,
    contexts,
    campaignPass,
    guildPass,
    applier,
    graceChecks,
    ...(deps.patronMessages ? { patronMessages: deps.patronMessages } : {}),
    connectorRefresh: createConnectorRefresh({ ...repos, snapshots: discord.snapshots, directory: discord.directory, logger }),
    ...(deps.database.refreshStatistics ? { statistics: { refreshStatistics: () => deps.database.refreshStatistics!() } } : {}),
    clock,
    metrics,
    logger,
    ...(deps.meter ? { meter: deps.meter } : {}),
  });
  const strict = createStrictPreview({ contexts, guildPass, clock });
  const changes = createChangePreview({ contexts, guildPass, clock });
  const liveInstances = deps.liveInstances;
  const spreader = liveInstances
    ? createGuildSpread({ database: deps.database, jobs: deps.jobs, fullSync, liveInstances, clock, logger })
    : null;
  const scheduler = createSyncScheduler({
    schedule: deps.schedule,
    ...(deps.timezone !== undefined ? { timezone: deps.timezone } : {}),
    database: deps.database,
    fullSync,
    logger,
    runs: repos.syncRuns,
    clock,
  });

  async function applyGuild(guildId: string, trigger: 'map' | 'settings'): Promise<GuildApplyOutcome> {
    const outcome = await scheduler.runNow({ trigger, guildId, refreshMembers: false });
    if (isSkipped(outcome)) {
      await deps.jobs.enqueue(GUILD_RECONCILE_JOB, { guildId, trigger }, { dedupeKey: `${GUILD_RECONCILE_JOB}:${guildId}` });
      logger.info({ guildId, trigger }, 'guild-wide apply queued behind the running full sync');
      return { kind: 'queued' };
    }
    const guild = outcome.guilds.find((g) => g.guildId === guildId);
    logger.info({ guildId, trigger, changes: guild?.applied }, 'guild reconciled after a configuration change');
    return { kind: 'applied', members: guild?.linkedMembers ?? 0, changes: (guild?.applied.adds ?? 0) + (guild?.applied.removes ?? 0) };
  }

  deps.jobs.register(GUILD_RECONCILE_JOB, async (payload) => {
    const trigger = payload.trigger === 'settings' ? 'settings' : 'map';
    const outcome = await scheduler.runNow({ trigger, guildId: String(payload.guildId), refreshMembers: false });
    // Still another run: try again later (the queue backs off) rather than drop the change.
    if (isSkipped(outcome)) throw new Error(outcome.reason);
  });
  deps.jobs.register(GRACE_END_JOB, async (payload) => {
    const { guildId, userId } = payload;
    if (typeof guildId !== 'string' || typeof userId !== 'string') throw new Error(`${GRACE_END_JOB} needs guildId and userId`);
    // Read first: a payment that went through minutes ago, whose webhook is late or lost, keeps the
    // roles. A failed read throws, and the queue retries with back-off: nothing is removed on a state
    // Patreon may no longer hold. Then planned from what is stored, so one still in grace (another
    // campaign) is scheduled again.
    if (deps.confirmMember) await deps.confirmMember(userId);
    await reconciler.reconcileMember(guildId, userId, { trigger: 'grace' });
  });
  deps.jobs.register(CAMPAIGN_SYNC_JOB, async (payload) => {
    const outcome = await scheduler.runNow({ trigger: 'webhook-heal', campaignId: String(payload.campaignId) });
    // Another run holds the lock: that run covers this campaign too, unless it started before the
    // events were lost. Try again later rather than drop the heal.
    if (isSkipped(outcome)) throw new Error(outcome.reason);
  });

  return {
    applier,
    contexts,
    reconciler,
    states,
    intake,
    fullSync,
    scheduler,
    applyGuild,
    strict,
    changes,

    async requestCampaignSync(campaignId: string, reason: string): Promise<void> {
      logger.info({ campaignId, reason }, 'campaign sync queued');
      await deps.jobs.enqueue(CAMPAIGN_SYNC_JOB, { campaignId, reason }, { dedupeKey: `${CAMPAIGN_SYNC_JOB}:${campaignId}` });
    },

    runSync(options: { guildId?: string; dryRun: boolean; force: boolean; adopt?: boolean; trigger: 'manual' | 'cli' }) {
      return scheduler.runNow({
        trigger: options.trigger,
        dryRun: options.dryRun,
        force: options.force,
        adopt: options.adopt === true,
        ...(options.guildId ? { guildId: options.guildId } : {}),
      });
    },
  };
}

/**
 * The sync subsystem: the one role applier every trigger goes through, the reconciler of one
 * member, the full sync (campaign pass, guild pass, apply) with its scheduler and cross-instance
 * lock, the guild-wide apply after a configuration change, which runs under the same lock
 * (queued behind a running sync), and the checks at the end of grace periods (`grace-checks.ts`).
 */
export interface SyncSubsystem {
  applier: RoleApplier;
  contexts: GuildContextLoader;
  reconciler: Reconciler;
  /** Every source's member states, and the one intake of read members (src/app/membership). */
  states: MemberStates;
  intake: MemberIntake;
  fullSync: FullSync;
  scheduler: SyncScheduler;
  applyGuild(guildId: string, trigger: 'map' | 'settings'): Promise<GuildApplyOutcome>;
  /** The roles strict mode acts on in a guild, and what turning it on would remove now (nothing is applied). */
  strict: StrictPreviewer;
  /** What a mapping or settings change would do to members' roles, before it is confirmed (nothing is applied). */
  changes: ChangePreviewer;
  /** Queues a sync of one campaign (deduplicated while one is pending). */
  requestCampaignSync(campaignId: string, reason: string): Promise<void>;
  /** One sync run for `/sync` and `npm run sync`: the same code path. */
  runSync(options: { guildId?: string; dryRun: boolean; force: boolean; adopt?: boolean; trigger: 'manual' | 'cli' }): Promise<SyncOutcome>;
}
