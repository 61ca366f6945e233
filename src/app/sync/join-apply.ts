import type { BlockedChange, RoleChange, UserPlan } from '../../core/planner/types';
import type { Result } from '../../core/result';
import type { MemberAddProblem, MemberAdded } from '../../edges/outbound/discord/member-adder';
import type { Metrics } from '../../edges/outbound/observability/metrics';
import type { AuditEntry, GrantRecord, LedgerRepository } from '../../edges/outbound/store/repositories/ledger-repository';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import { type ApplyResult, type FailedChange, auditEntry } from './applied-changes';

/**
 * A join's one request: Add Guild Member with these roles, bound by the caller to the access token
 * the person just gave (src/edges/outbound/discord/member-adder.ts). The applier never sees the token.
 */
export type Admit = (roleIds: readonly string[]) => Promise<Result<MemberAdded, MemberAddProblem>>;

/**
 * What a join's request did: added with the roles, found the person already in (nothing applied),
 * added with no role behind the server's Membership Screening (`pending`), or refused.
 */
export type JoinApplyResult =
  | { kind: 'added'; result: ApplyResult }
  | { kind: 'already_member' }
  | { kind: 'pending' }
  | { kind: 'refused'; problem: MemberAddProblem; result: ApplyResult };

/**
 * Applies the plan of someone not in the guild yet through one Add Guild Member request with
 * every role the plan adds (docs/decisions.md §21), under the ledger's rule: grants recorded
 * before the request, audited as applied when Discord adds them (201); when it refuses, or
 * answers that they are a member already (204: nothing applied), or added them with no role
 * behind the server's Membership Screening (their roles come when they pass it), the rows this join recorded
 * go again (`recordedBefore`: roles the ledger held already stay). Roles the hierarchy check
 * left out fail as a refused grant does. Call it inside RoleApplier.withMember.
 */
export function createJoinApply(deps: {
  ledger: Pick<LedgerRepository, 'write' | 'audit'>;
  clock: Clock;
  metrics: Pick<Metrics, 'roleChanges'>;
  logger: Logger;
}) {
  const { ledger, clock, metrics, logger } = deps;

  return async function join(plan: UserPlan, admit: Admit, options: { recordedBefore: ReadonlySet<string> }): Promise<JoinApplyResult> {
    const { guildId, userId } = plan;
    const adds = plan.changes.filter((c): c is Extract<RoleChange, { op: 'add' }> => c.op === 'add');
    const intents: GrantRecord[] = adds.map((c) => ({
      discordUserId: userId,
      roleId: c.roleId,
      ...c.grant,
      reason: c.reason,
      why: c.why ?? null,
    }));
    if (intents.length > 0) await ledger.write(guildId, intents, [], clock.now());
    const fresh = adds.filter((c) => !options.recordedBefore.has(c.roleId)).map((c) => ({ discordUserId: userId, roleId: c.roleId }));
    const answer = await admit(adds.map((c) => c.roleId));
    const at = clock.now();
    const entry = (change: RoleChange | BlockedChange, outcome: AuditEntry['outcome'], error: string | null = null) =>
      auditEntry({ guildId, userId, trigger: 'join', at }, change, outcome, error);
    if (!answer.ok || answer.value.status !== 'added') {
      await ledger.write(guildId, [], fresh, at);
      if (answer.ok) return answer.value.status === 'pending' ? { kind: 'pending' } : { kind: 'already_member' };
      const problem = answer.error;
      const failed: FailedChange[] = adds.map((change) => ({ change, code: problem.code, message: problem.message, fix: null }));
      await ledger.audit(adds.map((c) => entry(c, 'failed', `${problem.code}: ${problem.message}`)));
      if (adds.length > 0) metrics.roleChanges.inc({ kind: 'add', outcome: 'failed' }, adds.length);
      return { kind: 'refused', problem, result: { applied: [], failed, blocked: plan.blocked } };
    }

    const skipped = new Map(answer.value.skipped.map((p) => [p.roleId, p]));
    const applied: RoleChange[] = [];
    const failed: FailedChange[] = [];
    const dropped: Array<{ discordUserId: string; roleId: string }> = [];
    const audit: AuditEntry[] = [];
    for (const change of plan.changes) {
      const problem = skipped.get(change.roleId);
      if (change.op === 'add' && problem) {
        dropped.push({ discordUserId: userId, roleId: change.roleId });
        failed.push({ change, code: problem.code, message: problem.message, fix: problem.fix });
        audit.push(entry(change, 'failed', `${problem.code}: ${problem.message}`));
        metrics.roleChanges.inc({ kind: 'add', outcome: 'failed' });
        continue;
      }
      // Nothing else reaches Discord: the person held no role, so the plan only adds and forgets.
      if (change.op === 'forget') dropped.push({ discordUserId: userId, roleId: change.roleId });
      applied.push(change);
      audit.push(entry(change, 'applied'));
      metrics.roleChanges.inc({ kind: change.op, outcome: 'applied' });
    }
    audit.push(...plan.blocked.map((b) => entry(b, 'blocked', b.problem.message)));
    for (const b of plan.blocked) metrics.roleChanges.inc({ kind: b.op, outcome: 'blocked' });
    await ledger.write(guildId, [], dropped, at);
    await ledger.audit(audit);
    logger.info({ guildId, userId, roles: applied.filter((c) => c.op === 'add').length }, 'member added with their roles');
    return { kind: 'added', result: { applied, failed, blocked: plan.blocked } };
  };
}
