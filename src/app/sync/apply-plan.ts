import type { AuditEntry, LedgerRepository } from '../../edges/store/repositories/ledger-repository';
import type { RoleWriter } from '../../edges/discord/role-writer';
import type { BlockedChange, RoleChange, UserPlan } from '../../core/planner/types';
import type { Metrics } from '../../edges/observability/metrics';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';

/** What set a change in motion; recorded in the audit log and the Discord audit reason. */
export type Trigger = 'link' | 'unlink' | 'relink' | 'webhook' | 'sync' | 'rejoin' | 'map' | 'settings' | 'recheck' | 'connect';

export interface FailedChange {
  change: RoleChange;
  code: string;
  message: string;
  fix: string | null;
}

export interface ApplyResult {
  applied: RoleChange[];
  failed: FailedChange[];
  blocked: BlockedChange[];
}

export interface ApplyDeps {
  writer: RoleWriter;
  ledger: LedgerRepository;
  clock: Clock;
  metrics: Metrics;
  logger: Logger;
}

/** The audit row of one change (or attempt) on one member's role. */
export function auditEntry(
  who: { guildId: string; userId: string; trigger: Trigger; at: Date },
  change: { op: RoleChange['op']; roleId: string; reason: string },
  outcome: AuditEntry['outcome'],
  error: string | null = null,
): AuditEntry {
  return {
    at: who.at,
    guildId: who.guildId,
    discordUserId: who.userId,
    roleId: change.roleId,
    action: change.op,
    outcome,
    trigger: who.trigger,
    reason: change.reason,
    error,
  };
}

/** "Tierlink (webhook): Gold tier (active patron)" — what a moderator reads in Discord's audit log. */
export function auditReason(trigger: Trigger, reason: string): string {
  return `Tierlink (${trigger}): ${reason}`;
}

/**
 * Applies one member's plan through the role port and keeps the ledger true to Discord: a grant is
 * recorded only after Discord accepted it, and dropped only after the removal was accepted or the
 * role was already gone. Every attempt is audited with its reason and outcome.
 */
export async function applyPlan(
  deps: ApplyDeps,
  plan: UserPlan,
  trigger: Trigger,
  options: { auditBlocked?: boolean } = {},
): Promise<ApplyResult> {
  const { writer, ledger, clock, metrics, logger } = deps;
  const { guildId, userId } = plan;
  const result: ApplyResult = { applied: [], failed: [], blocked: plan.blocked };
  const audit: AuditEntry[] = [];
  const entry = (
    change: { op: RoleChange['op']; roleId: string; reason: string },
    outcome: AuditEntry['outcome'],
    error?: string,
  ): AuditEntry => auditEntry({ guildId, userId, trigger, at: clock.now() }, change, outcome, error ?? null);

  for (const change of plan.changes) {
    if (change.op === 'forget') {
      await ledger.remove(guildId, userId, change.roleId);
      result.applied.push(change);
      audit.push(entry(change, 'applied'));
      metrics.roleChanges.inc({ kind: 'forget', outcome: 'applied' });
      continue;
    }
    const write = change.op === 'add' ? writer.addRole : writer.removeRole;
    const outcome = await write(guildId, userId, change.roleId, auditReason(trigger, change.reason));
    if (outcome.ok) {
      if (change.op === 'add') {
        await ledger.record(guildId, userId, { roleId: change.roleId, ...change.grant, reason: change.reason }, clock.now());
      } else {
        await ledger.remove(guildId, userId, change.roleId);
      }
      result.applied.push(change);
      audit.push(entry(change, 'applied'));
      metrics.roleChanges.inc({ kind: change.op, outcome: 'applied' });
      continue;
    }
    const problem = outcome.error;
    // The role vanished between planning and writing: as far as the ledger goes, it is gone.
    if (change.op === 'remove' && problem.code === 'unknown_role') await ledger.remove(guildId, userId, change.roleId);
    result.failed.push({ change, code: problem.code, message: problem.message, fix: problem.fix ?? null });
    audit.push(entry(change, 'failed', `${problem.code}: ${problem.message}`));
    metrics.roleChanges.inc({ kind: change.op, outcome: 'failed' });
    logger.warn({ guildId, userId, roleId: change.roleId, op: change.op, code: problem.code, trigger }, 'role change failed');
  }
  for (const blocked of plan.blocked) {
    metrics.roleChanges.inc({ kind: blocked.op, outcome: 'blocked' });
    if (options.auditBlocked !== false) audit.push(entry(blocked, 'blocked', blocked.problem.message));
  }
  await ledger.audit(audit);
  return result;
}
