import { performance } from 'node:perf_hooks';
import type { APIRequest, RateLimitData, REST } from '@discordjs/rest';
import { toTierInput } from '../admin/campaign-catalog';
import type { CreatorAccounts } from '../../edges/patreon/creator-accounts';
import { snapshotFromMember } from '../service-records';
import type { TierInput } from '../../edges/store/repositories/campaign-repository';
import type { CampaignRepository } from '../../edges/store/repositories/campaign-repository';
import type { GuildRepository } from '../../edges/store/repositories/guild-repository';
import type { AuditEntry, LedgerRepository } from '../../edges/store/repositories/ledger-repository';
import type { LinkRepository } from '../../edges/store/repositories/link-repository';
import { type SnapshotRepository, type SnapshotRow, toMemberState } from '../../edges/store/repositories/snapshot-repository';
import type { SocialLinkCandidate } from '../../edges/store/repositories/link-repository';
import type { SyncRunRepository } from '../../edges/store/repositories/sync-run-repository';
import { DiscordProblemError } from '../../edges/discord/discord-problem';
import type { GuildDirectory, GuildMemberInfo } from '../../edges/discord/guild-directory';
import { managedRoleIds, planUser, shouldHoldRemovals } from '../../core/planner';
import type { GuildContext, LedgerEntry, RoleChange, UserPlan } from '../../core/planner/types';
import type { RequestInfo } from '../../edges/patreon/http';
import { mapWithConcurrency } from '../../shared/keyed-mutex';
import { type ApplyDeps, type FailedChange, auditEntry, auditReason } from './apply-plan';
import type { GuildContextLoader } from './guild-context';
import type { CampaignSyncReport, GuildSyncReport, SyncChange, SyncReport, SyncStatus, SyncTrigger } from '../../core/sync-report';

// ---------------------------------------------------------------------------------------------
// Counting calls to both APIs
// ---------------------------------------------------------------------------------------------

export interface MeterReading {
  /** Requests per `api METHOD route` since the meter was made. */
  calls: Record<string, number>;
  /** Wall time during which Discord's rate limits held requests back; overlapping waits count once. */
  rateLimitWaitMs: number;
}

/**
 * Counts requests to the membership service and to Discord, and the wall time Discord's rate
 * limits cost. A run reads it before and after and keeps the difference, so requests other work
 * of the same process made meanwhile (a webhook) are counted in too.
 */
export interface ApiMeter {
  /** Pass as the Patreon client's `onRequest` (one call per HTTP attempt, retries included). */
  onPatreonRequest(info: RequestInfo): void;
  read(): MeterReading;
}

/** `/api/oauth2/v2/campaigns/123/members` → `/api/oauth2/v2/campaigns/:id/members`. */
export function patreonRoute(path: string): string {
  return path.replace(/\/(campaigns|members|webhooks|posts|tiers|users)\/[^/]+/g, '/$1/:id');
}

/**
 * A meter over the REST client every Discord call goes through (its `response` and `rateLimited`
 * events, research/tech-facts.md §2) and the Patreon client's `onRequest` hook. Rate-limit waits
 * are merged as intervals: eight requests waiting on the same bucket for a second cost a second.
 */
export function createApiMeter(options: { discordRest?: REST; now?: () => number } = {}): ApiMeter {
  const now = options.now ?? (() => performance.now());
  const calls: Record<string, number> = {};
  const count = (key: string) => {
    calls[key] = (calls[key] ?? 0) + 1;
  };
  let waited = 0;
  let coveredUntil = 0;
  options.discordRest?.on('response', (request: APIRequest) => count(`discord ${request.method.toUpperCase()} ${request.route}`));
  options.discordRest?.on('rateLimited', (data: RateLimitData) => {
    const start = now();
    const end = start + Math.max(0, data.timeToReset);
    if (end <= coveredUntil) return;
    waited += end - Math.max(start, coveredUntil);
    coveredUntil = end;
  });
  return {
    onPatreonRequest: (info) => count(`patreon ${info.method} ${patreonRoute(info.path)}`),
    read: () => ({ calls: { ...calls }, rateLimitWaitMs: waited - Math.max(0, coveredUntil - now()) }),
  };
}

function callsBetween(before: MeterReading | null, after: MeterReading | null): Record<string, number> {
  if (!before || !after) return {};
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(after.calls)) {
    const delta = value - (before.calls[key] ?? 0);
    if (delta > 0) out[key] = delta;
  }
  return out;
}

function addCalls(into: Record<string, number>, from: Record<string, number>): void {
  for (const [key, value] of Object.entries(from)) into[key] = (into[key] ?? 0) + value;
}

// ---------------------------------------------------------------------------------------------
// The full sync
// ---------------------------------------------------------------------------------------------

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
   * `false`: plan from the stored snapshots without listing the campaign's members again. For a
   * change on our side (`/map`, `/settings`), where the service's data has not changed and webhooks
   * keep the snapshots current. Default `true`.
   */
  refreshMembers?: boolean;
}

export interface FullSyncDeps {
  guilds: GuildRepository;
  campaigns: Pick<CampaignRepository, 'upsertTiers'>;
  links: LinkRepository;
  snapshots: SnapshotRepository;
  ledger: LedgerRepository;
  syncRuns: SyncRunRepository;
  contexts: GuildContextLoader;
  directory: GuildDirectory;
  accounts: Pick<CreatorAccounts, 'clientForCampaign'>;
  /** The role port, the ledger, the clock, metrics and the logger. */
  apply: ApplyDeps;
  meter?: ApiMeter;
  /** Members whose changes are applied at once (each member's own changes go one by one); 8 when absent. */
  concurrency?: number;
  /** Discord member page size, 1..1000; 1000 when absent. */
  guildPageSize?: number;
}

/** What the campaign phase leaves for the guild phase: compact, whatever the campaign's size. */
interface CampaignOutcome {
  report: CampaignSyncReport;
  /** After a complete listing, a snapshot written before this is of a departed member (see {@link STALE_SNAPSHOT_MARGIN_MS}). */
  staleBefore: Date;
}

/** One member's plan, kept until the hold is decided. Only members with something to do are kept. */
interface PendingPlan {
  plan: UserPlan;
  username: string;
}

/** What became of one member's changes; a change in neither set was not attempted. */
interface UserOutcome {
  applied: Set<RoleChange>;
  failed: Map<RoleChange, FailedChange>;
}

const NOT_LINKED = 'no linked membership';

/** Members whose ledger and audit rows are written together (bounds what a crash mid-run can leave unrecorded). */
const LEDGER_BATCH = 100;

/**
 * A snapshot counts as departed when it was last written this long before the complete listing
 * began. The margin covers a webhook that another instance, whose clock runs a little behind
 * ours, wrote over a snapshot while we listed; a member who really left goes on the next night.
 */
export const STALE_SNAPSHOT_MARGIN_MS = 5 * 60_000;

/** An error as a sentence, with the fix when the Discord port knows one. */
function describe(error: unknown): string {
  if (error instanceof DiscordProblemError) return `${error.problem.message} ${error.problem.fix}`;
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * The nightly safety net (issue 5, DESIGN.md "Safety before speed"): it reads every member of each
 * campaign once, page by page, and every member of each guild once, page by page, plans each member
 * that matters with the pure planner, and applies the changes through the role port. Cost grows
 * with pages and changes, never members × calls: no member is fetched on its own.
 *
 * Memory stays bounded: a page of each side at a time, the guild's ledger (a compact map), and the
 * planned changes. A read error on any page keeps every removal of the guilds it concerns, and a
 * mass removal above the guild's threshold is held until forced.
 */
export function createFullSync(deps: FullSyncDeps) {
  const { clock, logger, metrics } = deps.apply;
  const concurrency = deps.concurrency ?? 8;

  /**
   * Campaign phase: members → snapshots (one statement per page), `social_connections` → links
   * (two statements per page), included tiers → stored tiers (once at the end). On a dry run the
   * links that would be made are kept in `pendingLinks` instead.
   */
  async function readCampaign(campaignId: string, dryRun: boolean, pendingLinks: Map<string, string>): Promise<CampaignOutcome> {
    const before = deps.meter?.read() ?? null;
    const staleBefore = new Date(clock.now().getTime() - STALE_SNAPSHOT_MARGIN_MS);
    const report: CampaignSyncReport = {
      campaignId,
      complete: false,
      pages: 0,
      members: 0,
      linksMade: 0,
      staleSnapshotsDeleted: 0,
      error: null,
      apiCalls: {},
    };
    const seenTiers = new Map<string, TierInput>();
    try {
      const client = await deps.accounts.clientForCampaign(campaignId);
      if (!client) throw new Error(`campaign ${campaignId} is not connected: run /connect`);
      for await (const page of client.listMembers(campaignId)) {
        report.pages += 1;
        report.members += page.members.length;
        await deps.snapshots.upsertMany(
          page.members.map((m) => snapshotFromMember(m, 'sync')),
          clock.now(),
        );
        const candidates: SocialLinkCandidate[] = [];
        for (const m of page.members) if (m.discordUserId) candidates.push({ discordUserId: m.discordUserId, patreonUserId: m.userId });
        report.linksMade += dryRun
          ? await wouldLink(candidates, pendingLinks)
          : (await deps.links.linkSocialMany(candidates, clock.now())).length;
        for (const tier of page.tiers) seenTiers.set(tier.id, toTierInput(tier));
      }
      report.complete = true;
    } catch (error) {
      report.error = `reading the members of campaign ${campaignId} failed after ${report.pages} ${report.pages === 1 ? 'page' : 'pages'}: ${describe(error)}`;
      logger.error(
        { err: error, campaignId, pages: report.pages },
        'full sync: reading the campaign members failed; no role will be removed in its servers',
      );
    }
    try {
      await deps.campaigns.upsertTiers(campaignId, [...seenTiers.values()], clock.now());
      if (report.complete && !dryRun) report.staleSnapshotsDeleted = await deps.syncRuns.deleteStaleSnapshots(campaignId, staleBefore);
    } catch (error) {
      report.complete = false;
      report.error ??= `storing what was read of campaign ${campaignId} failed: ${describe(error)}`;
      logger.error({ err: error, campaignId }, 'full sync: storing tiers or removing departed members failed');
    }
    report.apiCalls = callsBetween(before, deps.meter?.read() ?? null);
    return { report, staleBefore };
  }

  /** The campaign as stored: nothing is read, and no stored snapshot counts as departed. */
  function storedCampaign(campaignId: string): CampaignOutcome {
    return {
      report: { campaignId, complete: true, pages: 0, members: 0, linksMade: 0, staleSnapshotsDeleted: 0, error: null, apiCalls: {} },
      staleBefore: new Date(0),
    };
  }

  /** Dry run: the social links a real run would make (neither side linked yet), remembered in memory. */
  async function wouldLink(candidates: SocialLinkCandidate[], pending: Map<string, string>): Promise<number> {
    if (candidates.length === 0) return 0;
    const [byPatreon, byDiscord, optedOut] = await Promise.all([
      deps.links.byPatreonUsers(candidates.map((c) => c.patreonUserId)),
      deps.links.byDiscordUsers(candidates.map((c) => c.discordUserId)),
      deps.links.unlinkedByChoice(candidates.map((c) => c.discordUserId)),
    ]);
    const taken = new Set([
      ...byPatreon.map((l) => `p:${l.patreonUserId}`),
      ...byDiscord.map((l) => `d:${l.discordUserId}`),
      ...[...optedOut].map((id) => `d:${id}`),
    ]);
    const pendingPatreon = new Set(pending.values());
    let made = 0;
    for (const c of candidates) {
      if (taken.has(`p:${c.patreonUserId}`) || taken.has(`d:${c.discordUserId}`)) continue;
      if (pending.has(c.discordUserId) || pendingPatreon.has(c.patreonUserId)) continue;
      pending.set(c.discordUserId, c.patreonUserId);
      pendingPatreon.add(c.patreonUserId);
      made += 1;
    }
    return made;
  }

  interface GuildRun {
    guildId: string;
    campaignIds: string[];
    campaigns: Map<string, CampaignOutcome>;
    options: FullSyncOptions;
    pendingLinks: Map<string, string>;
  }

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
      errors: served.flatMap((c) => (c.report.error ? [c.report.error] : [])),
      apiCalls: {},
      changes: [],
    };
    const pending: PendingPlan[] = [];
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
      await planGuild(context, ledger, run, report, pending);
    } catch (error) {
      report.errors.push(`syncing this server failed: ${describe(error)}`);
      logger.error({ err: error, guildId }, 'full sync: the server could not be synced');
    }

    const all = pending.flatMap((p) => p.plan.changes);
    report.planned.adds = all.filter((c) => c.op === 'add').length;
    report.planned.removes = all.filter((c) => c.op === 'remove').length;
    report.planned.forgets = all.filter((c) => c.op === 'forget').length;
    report.planned.blocked = pending.reduce((sum, p) => sum + p.plan.blocked.length, 0);

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
      const results = await applyInBatches(guildId, pending, report);
      report.changes = changeLines(pending, report.held !== null, results);
      if (report.held) {
        try {
          await auditHeld(guildId, pending, report.held.reason);
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

  /**
   * Guild phase: one page of Discord members at a time; links and snapshots batch-loaded per page;
   * a member is planned when linked, when we granted them a role, or (strict) when they hold a
   * managed role. Anyone else has nothing Tierlink would change.
   */
  async function planGuild(
    guild: GuildContext,
    ledger: Map<string, LedgerEntry[]>,
    run: GuildRun,
    report: GuildSyncReport,
    pending: PendingPlan[],
  ): Promise<void> {
    const managed = managedRoleIds(guild);
    const strict = guild.settings.strict;
    const now = clock.now();
    const stale = (row: SnapshotRow): boolean => {
      const campaign = run.campaigns.get(row.campaignId);
      return campaign !== undefined && campaign.report.complete && row.fetchedAt < campaign.staleBefore;
    };
    try {
      const pageSize = deps.guildPageSize;
      for await (const page of deps.directory.listMembers(guild.guildId, pageSize !== undefined ? { pageSize } : {})) {
        report.discord.pages += 1;
        report.discord.members += page.length;
        const linkOf = new Map<string, string>();
        for (const link of await deps.links.byDiscordUsers(page.map((m) => m.userId))) linkOf.set(link.discordUserId, link.patreonUserId);
        if (run.pendingLinks.size > 0) {
          for (const m of page) {
            const p = run.pendingLinks.get(m.userId);
            if (p !== undefined && !linkOf.has(m.userId)) linkOf.set(m.userId, p);
          }
        }
        report.linkedMembers += linkOf.size;
        const todo = page.filter(
          (m: GuildMemberInfo) => linkOf.has(m.userId) || ledger.has(m.userId) || (strict && m.roleIds.some((r) => managed.has(r))),
        );
        const snapshots = await deps.snapshots.forPatreonUsers([...new Set(todo.flatMap((m) => linkOf.get(m.userId) ?? []))]);
        for (const m of todo) {
          const patreonUserId = linkOf.get(m.userId);
          const rows = patreonUserId !== undefined ? (snapshots.get(patreonUserId) ?? []).filter((row) => !stale(row)) : [];
          const planned = planUser({
            guild,
            userId: m.userId,
            members: rows.map(toMemberState),
            currentRoleIds: new Set(m.roleIds),
            ledger: ledger.get(m.userId) ?? [],
            now,
            managed,
            ...(patreonUserId === undefined ? { unlinkedReason: NOT_LINKED } : {}),
          });
          report.usersPlanned += 1;
          if (planned.plan.changes.length > 0 || planned.plan.blocked.length > 0)
            pending.push({ plan: planned.plan, username: m.globalName ?? m.username });
        }
      }
    } catch (error) {
      report.errors.push(
        `reading the members of this server failed after ${report.discord.pages} ${report.discord.pages === 1 ? 'page' : 'pages'}: ${describe(error)}`,
      );
      logger.error(
        { err: error, guildId: guild.guildId, pages: report.discord.pages },
        'full sync: reading the server members failed; no role will be removed',
      );
    }
  }

  /**
   * Applies additions and ledger fixes always, removals only when nothing holds them: several
   * members at once through the role port (each member's changes in order), the ledger and audit
   * rows of every {@link LEDGER_BATCH} members written together after Discord answered.
   *
   * The rules are `applyPlan`'s (src/sync/apply-plan.ts): a grant is recorded only after Discord
   * accepted it, dropped only after the removal was accepted or the role was already gone, every
   * attempt audited with its reason. Only the batching differs: `applyPlan` writes two statements
   * per change, 2.9 ms of CPU per change on PGlite, which for the 12,700 changes of a first sync of
   * 20,000 linked patrons is 37 s (measured with `npm run bench`).
   *
   * If Discord stops answering (an error the role port does not explain), the members not started
   * yet are skipped, not hammered, and left for the next run.
   */
  async function applyInBatches(guildId: string, pending: PendingPlan[], report: GuildSyncReport): Promise<Map<UserPlan, UserOutcome>> {
    const { writer } = deps.apply;
    const removalsAllowed = report.held === null;
    const results = new Map<UserPlan, UserOutcome>();
    const work = pending
      .map(({ plan }) => ({ plan, changes: removalsAllowed ? plan.changes : plan.changes.filter((c) => c.op !== 'remove') }))
      .filter((w) => w.changes.length > 0);
    let stopped: string | null = null;

    for (let i = 0; i < work.length; i += LEDGER_BATCH) {
      const removed: Array<{ discordUserId: string; roleId: string }> = [];
      const audit: AuditEntry[] = [];
      const entry = (userId: string, change: RoleChange, outcome: 'applied' | 'failed', error: string | null = null): AuditEntry =>
        auditEntry({ guildId, userId, trigger: 'sync', at: clock.now() }, change, outcome, error);

      // Grants go into the ledger before their requests, failed ones come out after: a crash in
      // between leaves a row for a role not given yet, which the next plan re-adds or forgets,
      // never a given role the ledger forgot (which Tierlink would then never take back).
      const batch = work.slice(i, i + LEDGER_BATCH);
      const intents = batch.flatMap(({ plan, changes }) =>
        changes.flatMap((c) => (c.op === 'add' ? [{ discordUserId: plan.userId, roleId: c.roleId, ...c.grant, reason: c.reason }] : [])),
      );
      try {
        await deps.syncRuns.writeLedger(guildId, intents, [], clock.now());
      } catch (error) {
        report.errors.push(`recording planned grants failed: ${describe(error)}`);
        logger.error({ err: error, guildId }, 'full sync: the ledger could not be written; stopping');
        stopped = describe(error);
        for (const w of work.slice(i)) results.set(w.plan, { applied: new Set(), failed: new Map() });
        break;
      }

      await mapWithConcurrency(batch, concurrency, async ({ plan, changes }) => {
        const outcome: UserOutcome = { applied: new Set(), failed: new Map() };
        results.set(plan, outcome);
        if (stopped !== null) return;
        const { userId } = plan;
        try {
          for (const change of changes) {
            if (change.op === 'forget') {
              removed.push({ discordUserId: userId, roleId: change.roleId });
              outcome.applied.add(change);
              audit.push(entry(userId, change, 'applied'));
              metrics.roleChanges.inc({ kind: 'forget', outcome: 'applied' });
              continue;
            }
            const write = change.op === 'add' ? writer.addRole : writer.removeRole;
            const result = await write(guildId, userId, change.roleId, auditReason('sync', change.reason));
            if (result.ok) {
              if (change.op === 'remove') removed.push({ discordUserId: userId, roleId: change.roleId });
              outcome.applied.add(change);
              audit.push(entry(userId, change, 'applied'));
              metrics.roleChanges.inc({ kind: change.op, outcome: 'applied' });
              continue;
            }
            const problem = result.error;
            // A failed grant leaves the ledger again; a role that vanished is gone as far as the ledger goes.
            if (change.op === 'add' || problem.code === 'unknown_role') removed.push({ discordUserId: userId, roleId: change.roleId });
            outcome.failed.set(change, { change, code: problem.code, message: problem.message, fix: problem.fix ?? null });
            audit.push(entry(userId, change, 'failed', `${problem.code}: ${problem.message}`));
            metrics.roleChanges.inc({ kind: change.op, outcome: 'failed' });
            logger.warn(
              { guildId, userId, roleId: change.roleId, op: change.op, code: problem.code, trigger: 'sync' },
              'role change failed',
            );
          }
        } catch (error) {
          if (stopped === null) {
            stopped = describe(error);
            report.errors.push(`applying changes stopped: ${stopped}`);
            logger.error({ err: error, guildId, userId }, 'full sync: applying changes failed; the rest are left for the next run');
          }
        }
      });

      try {
        await deps.syncRuns.writeLedger(guildId, [], removed, clock.now());
        await deps.syncRuns.auditMany(audit);
      } catch (error) {
        report.errors.push(`recording applied changes failed: ${describe(error)}`);
        logger.error({ err: error, guildId, removed: removed.length }, 'full sync: the ledger could not be written; stopping');
        stopped ??= describe(error);
      }
      if (stopped !== null) {
        for (const w of work.slice(i + LEDGER_BATCH)) results.set(w.plan, { applied: new Set(), failed: new Map() });
        break;
      }
    }

    for (const { plan, changes } of work) {
      const outcome = results.get(plan);
      for (const change of changes) {
        if (outcome?.applied.has(change)) {
          if (change.op === 'add') report.applied.adds += 1;
          else if (change.op === 'remove') report.applied.removes += 1;
          else report.applied.forgets += 1;
        } else {
          report.failed += 1;
        }
      }
    }
    return results;
  }

  async function auditHeld(guildId: string, pending: PendingPlan[], reason: string): Promise<void> {
    const at = clock.now();
    const entries: AuditEntry[] = [];
    for (const { plan } of pending) {
      for (const change of plan.changes) {
        if (change.op !== 'remove') continue;
        entries.push(auditEntry({ guildId, userId: plan.userId, trigger: 'sync', at }, change, 'held', reason));
      }
    }
    await deps.syncRuns.auditMany(entries);
  }

  return {
    /**
     * One full sync of every binding, or of one guild or one campaign. Not locked by itself: go
     * through the scheduler's `runNow` (src/sync/sync-scheduler.ts), which holds the full-sync
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
        { trigger: options.trigger, guildId: options.guildId, campaignId: options.campaignId, dryRun, force: options.force === true },
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
          options.refreshMembers === false ? storedCampaign(campaignId) : await readCampaign(campaignId, dryRun, pendingLinks),
        );
      }

      const guilds: GuildSyncReport[] = [];
      for (const [guildId, campaignIds] of campaignsByGuild) {
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

/** Every change of the pending plans, with what became of it. */
function changeLines(pending: PendingPlan[], removalsHeld: boolean, results: Map<UserPlan, UserOutcome> | null): SyncChange[] {
  const out: SyncChange[] = [];
  for (const { plan, username } of pending) {
    const outcome = results?.get(plan);
    for (const change of plan.changes) {
      const line: SyncChange = {
        userId: plan.userId,
        username,
        op: change.op,
        roleId: change.roleId,
        roleName: change.roleName,
        reason: change.reason,
        outcome: 'planned',
      };
      const failed = outcome?.failed.get(change);
      if (change.op === 'remove' && removalsHeld) line.outcome = 'held';
      else if (results === null) line.outcome = 'planned';
      else if (outcome?.applied.has(change)) line.outcome = 'applied';
      else if (failed) {
        line.outcome = 'failed';
        line.problem = failed.fix ? `${failed.message} ${failed.fix}` : failed.message;
      } else line.outcome = 'skipped';
      out.push(line);
    }
    for (const blocked of plan.blocked) {
      out.push({
        userId: plan.userId,
        username,
        op: blocked.op,
        roleId: blocked.roleId,
        roleName: blocked.roleName,
        reason: blocked.reason,
        outcome: 'blocked',
        problem: `${blocked.problem.message} ${blocked.problem.fix}`,
      });
    }
  }
  return out;
}
