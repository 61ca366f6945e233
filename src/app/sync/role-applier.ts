import type { Adoption, RoleChange, UserPlan } from '../../core/planner/types';
import type { Lane } from '../../edges/outbound/discord/request-budget';
import type { RoleWriter } from '../../edges/outbound/discord/role-writer';
import type { Metrics } from '../../edges/outbound/observability/metrics';
import type { AuditEntry, GrantRecord, LedgerRepository } from '../../edges/outbound/store/repositories/ledger-repository';
import type { Clock } from '../../shared/clock';
import { type FenceScope, LeaseLostError } from '../../shared/fence';
import { createKeyedMutex, mapWithConcurrency } from '../../shared/keyed-mutex';
import { type ApplyResult, type FailedChange, type Trigger, auditEntry, auditReason } from './applied-changes';
import { createJoinApply } from './join-apply';
export { auditEntry, auditReason } from './applied-changes';
export type { ApplyResult, FailedChange, Trigger } from './applied-changes';
import type { Admit, JoinApplyResult } from './join-apply';
export type { Admit, JoinApplyResult } from './join-apply';
import type { Logger } from '../../shared/logger';

/** What became of one member's changes in a bulk apply; a change in neither set was not attempted. */
export interface MemberOutcome {
  applied: Set<RoleChange>;
  failed: Map<RoleChange, FailedChange>;
  /** Not applied: the member was reconciled on their own after this plan was made, from fresher state. */
  superseded: boolean;
}

export interface BulkOutcome {
  results: Map<UserPlan, MemberOutcome>;
  /** Why the apply stopped early (the database or Discord failed); the rest is left for the next run. */
  stopped: string | null;
}

export interface RoleApplierDeps {
  writer: RoleWriter;
  ledger: Pick<LedgerRepository, 'write' | 'audit'>;
  clock: Clock;
  metrics: Pick<Metrics, 'roleChanges'>;
  logger: Logger;
  /** Members whose changes are applied at once in a bulk apply (each member's own changes go one by one). Default 8. */
  concurrency?: number;
  /**
   * The fence of the work under way (a gateway event's shard lease, a queued row's lease): the
   * planned grants are recorded only while it holds, and nothing is sent to Discord when it does
   * not (docs/outages-and-fencing.md).
   */
  fences?: FenceScope;
}

/** Members whose ledger and audit rows a bulk apply writes together (bounds what a crash mid-run can leave). */
export const LEDGER_BATCH = 100;

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

interface Work {
  plan: UserPlan;
  changes: RoleChange[];
}

export function createRoleApplier(deps: RoleApplierDeps): RoleApplier {
  const { writer, ledger, clock, metrics, logger } = deps;
  const concurrency = deps.concurrency ?? 8;
  const members = createKeyedMutex();
  /** When each member was last reconciled on their own, kept only while a bulk apply may need it. */
  const reconciledAt = new Map<string, number>();
  /** Plan times of the bulk applies in progress. */
  const bulkPlannedAt = new Set<number>();
  const key = (guildId: string, userId: string) => `${guildId}:${userId}`;

  function noteReconciled(guildId: string, userId: string): void {
    if (bulkPlannedAt.size === 0) return;
    reconciledAt.set(key(guildId, userId), clock.now().getTime());
  }

  function endBulk(plannedAt: number): void {
    bulkPlannedAt.delete(plannedAt);
    const oldest = Math.min(...bulkPlannedAt);
    for (const [k, at] of reconciledAt) if (at <= oldest || bulkPlannedAt.size === 0) reconciledAt.delete(k);
  }

  const superseded = (plan: UserPlan, plannedAt: number) => (reconciledAt.get(key(plan.guildId, plan.userId)) ?? -Infinity) >= plannedAt;

  /**
   * Applies `work` (plans of one guild): intents first, then each member's requests in order, then
   * the drops and the audit rows. `lock`: take each member's lock (a bulk apply; a single apply's
   * caller holds it already). `lane`: a bulk apply's requests give way to one member's
   * (docs/decisions.md §19). Throws only when `rethrow` and Discord or the database failed.
   */
  async function applyWork(
    guildId: string,
    work: readonly Work[],
    trigger: Trigger,
    options: { lock: boolean; plannedAt: number | null; rethrow: boolean; lane: Lane },
  ): Promise<BulkOutcome> {
    const results = new Map<UserPlan, MemberOutcome>();
    for (const w of work) results.set(w.plan, { applied: new Set(), failed: new Map(), superseded: false });
    const live = options.plannedAt === null ? work : work.filter((w) => !superseded(w.plan, options.plannedAt!));
    for (const w of work) if (!live.includes(w)) results.get(w.plan)!.superseded = true;

    const intents: GrantRecord[] = live.flatMap(({ plan, changes }) =>
      changes.flatMap((c) =>
        c.op === 'add' ? [{ discordUserId: plan.userId, roleId: c.roleId, ...c.grant, reason: c.reason, why: c.why ?? null }] : [],
      ),
    );
    const fence = deps.fences?.current() ?? null;
    const sends = live.some((w) => w.changes.some((c) => c.op !== 'forget'));
    try {
      if ((intents.length > 0 || (fence && sends)) && !(await ledger.write(guildId, intents, [], clock.now(), fence))) {
        throw new LeaseLostError(fence!);
      }
    } catch (error) {
      if (error instanceof LeaseLostError) {
        logger.warn({ guildId, trigger, fence }, 'role changes not applied: this instance no longer holds the work (another one does)');
      } else {
        logger.error({ err: error, guildId, trigger }, 'role changes not applied: the planned grants could not be recorded');
      }
      if (options.rethrow) throw error;
      return { results, stopped: `recording planned grants failed: ${describe(error)}` };
    }

    const dropped: Array<{ discordUserId: string; roleId: string }> = [];
    const audit: AuditEntry[] = [];
    /** Set when Discord failed in a way the role port does not explain: no member starts after that. */
    const halt: { stopped: boolean; error: unknown } = { stopped: false, error: null };

    async function applyMember({ plan, changes }: Work): Promise<void> {
      const outcome = results.get(plan)!;
      if (halt.stopped) return;
      if (options.plannedAt !== null && superseded(plan, options.plannedAt)) {
        // Its intents stay: a row for a role not given is re-added or forgotten by a later plan.
        outcome.superseded = true;
        return;
      }
      const { userId } = plan;
      const entry = (change: RoleChange, result: 'applied' | 'failed', error: string | null = null) =>
        audit.push(auditEntry({ guildId, userId, trigger, at: clock.now() }, change, result, error));
      for (const change of changes) {
        if (change.op === 'forget') {
          dropped.push({ discordUserId: userId, roleId: change.roleId });
          outcome.applied.add(change);
          entry(change, 'applied');
          metrics.roleChanges.inc({ kind: 'forget', outcome: 'applied' });
          continue;
        }
        const write = change.op === 'add' ? writer.addRole : writer.removeRole;
        const result = await write(guildId, userId, change.roleId, auditReason(trigger, change.reason), { lane: options.lane });
        if (result.ok) {
          if (change.op === 'remove') dropped.push({ discordUserId: userId, roleId: change.roleId });
          outcome.applied.add(change);
          entry(change, 'applied');
          metrics.roleChanges.inc({ kind: change.op, outcome: 'applied' });
          continue;
        }
        const problem = result.error;
        // A refused grant leaves the ledger again; a role that vanished is gone as far as the ledger goes.
        if (change.op === 'add' || problem.code === 'unknown_role') dropped.push({ discordUserId: userId, roleId: change.roleId });
        outcome.failed.set(change, { change, code: problem.code, message: problem.message, fix: problem.fix ?? null });
        entry(change, 'failed', `${problem.code}: ${problem.message}`);
        metrics.roleChanges.inc({ kind: change.op, outcome: 'failed' });
        logger.warn({ guildId, userId, roleId: change.roleId, op: change.op, code: problem.code, trigger }, 'role change failed');
      }
    }

    await mapWithConcurrency(live, options.lock ? concurrency : 1, async (w) => {
      try {
        if (options.lock) await members.run(key(guildId, w.plan.userId), () => applyMember(w));
        else await applyMember(w);
      } catch (error) {
        // An error the role port does not explain (Discord unreachable): stop, leave the rest.
        if (!halt.stopped) {
          halt.stopped = true;
          halt.error = error;
          logger.error(
            { err: error, guildId, userId: w.plan.userId, trigger },
            'applying role changes stopped; the rest are left for the next run',
          );
        }
      }
    });

    let recordError: unknown = null;
    try {
      await ledger.write(guildId, [], dropped, clock.now());
      await ledger.audit(audit);
    } catch (error) {
      recordError = error;
      logger.error({ err: error, guildId, dropped: dropped.length, trigger }, 'applied role changes could not be recorded');
    }
    if (options.rethrow && (halt.stopped || recordError !== null)) throw halt.stopped ? halt.error : recordError;
    const reason = halt.stopped
      ? `applying changes stopped: ${describe(halt.error)}`
      : recordError !== null
        ? `recording applied changes failed: ${describe(recordError)}`
        : null;
    return { results, stopped: reason };
  }

  return {
    withMember<T>(guildId: string, userId: string, task: () => Promise<T>): Promise<T> {
      return members.run(key(guildId, userId), async () => {
        try {
          return await task();
        } finally {
          noteReconciled(guildId, userId);
        }
      });
    },

    async apply(plan: UserPlan, trigger: Trigger, options: { auditBlocked?: boolean } = {}): Promise<ApplyResult> {
      const { results } = await applyWork(plan.guildId, [{ plan, changes: plan.changes }], trigger, {
        lock: false,
        plannedAt: null,
        rethrow: true,
        lane: 'interactive',
      });
      const outcome = results.get(plan)!;
      if (plan.blocked.length > 0) {
        for (const b of plan.blocked) metrics.roleChanges.inc({ kind: b.op, outcome: 'blocked' });
        if (options.auditBlocked !== false) {
          const at = clock.now();
          await ledger.audit(
            plan.blocked.map((b) =>
              auditEntry({ guildId: plan.guildId, userId: plan.userId, trigger, at }, b, 'blocked', b.problem.message),
            ),
          );
        }
      }
      return { applied: plan.changes.filter((c) => outcome.applied.has(c)), failed: [...outcome.failed.values()], blocked: plan.blocked };
    },

    join: createJoinApply({ ledger, clock, metrics, logger }),

    async adopt(guildId: string, members: ReadonlyArray<{ userId: string; adoptions: readonly Adoption[] }>): Promise<number> {
      let recorded = 0;
      for (let i = 0; i < members.length; i += LEDGER_BATCH) {
        const batch = members.slice(i, i + LEDGER_BATCH);
        const at = clock.now();
        const grants: GrantRecord[] = batch.flatMap(({ userId, adoptions }) =>
          adoptions.map((a) => ({ discordUserId: userId, roleId: a.roleId, ...a.grant, reason: a.reason, why: a.why ?? null })),
        );
        if (grants.length === 0) continue;
        await ledger.write(guildId, grants, [], at);
        await ledger.audit(
          batch.flatMap(({ userId, adoptions }) =>
            adoptions.map((a) =>
              auditEntry(
                { guildId, userId, trigger: 'adopt', at },
                { op: 'adopt', roleId: a.roleId, reason: a.reason, ...(a.why ? { why: a.why } : {}) },
                'applied',
              ),
            ),
          ),
        );
        metrics.roleChanges.inc({ kind: 'adopt', outcome: 'applied' }, grants.length);
        recorded += grants.length;
      }
      if (recorded > 0) logger.info({ guildId, adopted: recorded }, 'roles members already held recorded as Tierlink grants');
      return recorded;
    },

    async applyMany(
      guildId: string,
      plans: readonly UserPlan[],
      trigger: Trigger,
      options: { removals: boolean; plannedAt: Date; onBatch?: (batch: ReadonlyMap<UserPlan, MemberOutcome>) => Promise<void> },
    ): Promise<BulkOutcome> {
      const plannedAt = options.plannedAt.getTime();
      bulkPlannedAt.add(plannedAt);
      const results = new Map<UserPlan, MemberOutcome>();
      try {
        const work = plans
          .map((plan) => ({ plan, changes: options.removals ? plan.changes : plan.changes.filter((c) => c.op !== 'remove') }))
          .filter((w) => w.changes.length > 0);
        for (let i = 0; i < work.length; i += LEDGER_BATCH) {
          const batch = await applyWork(guildId, work.slice(i, i + LEDGER_BATCH), trigger, {
            lock: true,
            plannedAt,
            rethrow: false,
            lane: 'bulk',
          });
          for (const [plan, outcome] of batch.results) results.set(plan, outcome);
          await options.onBatch?.(batch.results);
          if (batch.stopped !== null) return { results, stopped: batch.stopped };
        }
        return { results, stopped: null };
      } finally {
        endBulk(plannedAt);
      }
    },
  };
}

/**
 * The one place role changes leave Tierlink, and the one writer of the ledger: every trigger (a
 * link, a webhook, a rejoin, `/unlink`, the full sync, the guild-wide apply after `/map` or
 * `/settings`) applies its plans here, and adopting roles members already hold records them here
 * ({@link RoleApplier.adopt}), under one ledger rule:
 *
 * - a grant is recorded in the ledger *before* its request, and dropped after Discord refused it:
 *   a crash between the request and the record leaves a row for a role that may not have been
 *   given (the next plan re-adds or forgets it), never a given role the ledger forgot (which
 *   Tierlink would then never take back);
 * - a grant is dropped only after Discord accepted its removal, or the role was already gone;
 * - every attempt is audited with its trigger, reason and outcome;
 * - a single member's changes travel in Discord's interactive lane, a bulk apply's in the bulk
 *   lane, which gives way to them in each guild's member-role bucket (docs/decisions.md §19);
 * - one member's changes are applied by one task at a time: single-member reconciles hold the
 *   member's lock while they gather, plan and apply ({@link RoleApplier.withMember}); a bulk apply
 *   takes the same lock per member, and skips a member reconciled on their own since the bulk plan
 *   was made (that plan is older than what the member's own reconcile saw).
 *
 * Ledger and audit rows are written in one statement per batch, not one per change: a first full
 * sync of 20,000 linked patrons makes some 12,700 changes.
 */
export interface RoleApplier {
  /**
   * Runs `task` holding the member's lock: a single-member reconcile gathers, plans and applies
   * inside it, so two triggers for one member plan against each other's results.
   */
  withMember<T>(guildId: string, userId: string, task: () => Promise<T>): Promise<T>;
  /** Applies one member's plan now. Call it inside {@link withMember}; throws when Discord or the database failed. */
  apply(plan: UserPlan, trigger: Trigger, options?: { auditBlocked?: boolean }): Promise<ApplyResult>;
  /** Adds someone to the guild with the plan's roles in one request (src/app/sync/join-apply.ts). */
  join: (plan: UserPlan, admit: Admit, options: { recordedBefore: ReadonlySet<string> }) => Promise<JoinApplyResult>;
  /**
   * Records roles members already hold as Tierlink's grants ({@link adoptions} of the planner):
   * ledger rows and audit rows (trigger `adopt`), {@link LEDGER_BATCH} members per statement, and
   * no request to Discord, since each member holds the role already. Answers how many were
   * recorded; a database failure throws (nothing half-done matters: a row is only bookkeeping).
   */
  adopt(guildId: string, members: ReadonlyArray<{ userId: string; adoptions: readonly Adoption[] }>): Promise<number>;
  /**
   * Applies the plans of many members of one guild, {@link LEDGER_BATCH} members at a time, with
   * removals only when `removals`. Failures are values: the outcome says what was applied, and
   * why it stopped if it did. `onBatch` hears each batch once its ledger and audit rows are
   * written (the full sync's progress).
   */
  applyMany(
    guildId: string,
    plans: readonly UserPlan[],
    trigger: Trigger,
    options: { removals: boolean; plannedAt: Date; onBatch?: (batch: ReadonlyMap<UserPlan, MemberOutcome>) => Promise<void> },
  ): Promise<BulkOutcome>;
}
