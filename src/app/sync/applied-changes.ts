import type { BlockedChange, RoleChange } from '../../core/planner/types';
import type { ReasonCode } from '../../core/planner/reasons';
import type { HeldWhy } from '../../core/sync-report';
import type { AuditEntry } from '../../edges/outbound/store/repositories/ledger-repository';

/** What set a change in motion; recorded in the audit log and in Discord's audit-log reason. */
export type Trigger =
  PersonTrigger | 'webhook' | 'sync' | 'rejoin' | 'map' | 'settings' | 'recheck' | 'connect' | 'grace' | 'adopt' | 'comp';
/** A person's own doing: `/link`, `/unlink`, a membership linked to another account, the join page. */
type PersonTrigger = 'link' | 'unlink' | 'relink' | 'join';

export interface FailedChange {
  change: RoleChange;
  code: string;
  message: string;
  fix: string | null;
}

/** One member's plan, applied. */
export interface ApplyResult {
  applied: RoleChange[];
  failed: FailedChange[];
  blocked: BlockedChange[];
}

/** "Tierlink (webhook): Gold tier (active patron)": what a moderator reads in Discord's audit log. */
export function auditReason(trigger: Trigger, reason: string): string {
  return `Tierlink (${trigger}): ${reason}`;
}

/** The audit row of one change (or attempt) on one member's role. */
export function auditEntry(
  who: { guildId: string; userId: string; trigger: Trigger; at: Date },
  change: { op: RoleChange['op'] | 'adopt'; roleId: string; reason: string; why?: ReasonCode },
  outcome: AuditEntry['outcome'],
  error: string | null = null,
  heldWhy: HeldWhy | null = null,
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
    reasonCode: change.why ?? null,
    error,
    heldWhy,
  };
}
