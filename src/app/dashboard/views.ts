import type { AuditRow } from '../../edges/outbound/store/repositories/ledger-repository';
import type { ReasonCode } from '../../core/planner/reasons';
import type { HeldWhy } from '../../core/sync-report';
import type { SyncRunRow } from '../../edges/outbound/store/repositories/sync-run-repository';
import type { Trigger } from '../sync/role-applier';

/** One audit row as the dashboard shows it: names where Tierlink knows them. */
export interface AuditEntry {
  id: number;
  at: Date;
  userId: string;
  /** The member's name on the service when linked (the log stores ids only). */
  patronName: string | null;
  roleId: string;
  /** Null when the role no longer exists in the server. */
  roleName: string | null;
  action: AuditRow['action'];
  outcome: AuditRow['outcome'];
  trigger: string;
  reason: string;
  /** `reason` as a code; null on rows written before codes were (shown as recorded). */
  why: ReasonCode | null;
  error: string | null;
  /** A held change: why removals were held (what `error` says), as facts; null otherwise or on older rows. */
  heldWhy: HeldWhy | null;
}

/** A full sync of the server as `sync_runs` recorded it. */
export type SyncRun = Pick<
  SyncRunRow,
  | 'id'
  | 'trigger'
  | 'status'
  | 'dryRun'
  | 'forced'
  | 'startedAt'
  | 'finishedAt'
  | 'membersSeen'
  | 'plannedAdds'
  | 'plannedRemoves'
  | 'appliedAdds'
  | 'appliedRemoves'
  | 'heldRemovals'
  | 'failedChanges'
  | 'errors'
  | 'heldReason'
  | 'heldWhy'
>;

export function toSyncRun(row: SyncRunRow): SyncRun {
  const { id, trigger, status, dryRun, forced, startedAt, finishedAt, membersSeen } = row;
  const { plannedAdds, plannedRemoves, appliedAdds, appliedRemoves, heldRemovals, failedChanges, errors, heldReason, heldWhy } = row;
  return {
    ...{ id, trigger, status, dryRun, forced, startedAt, finishedAt, membersSeen },
    ...{
      plannedAdds,
      plannedRemoves,
      appliedAdds,
      appliedRemoves,
      heldRemovals,
      failedChanges,
      errors: errors.slice(0, 5),
      heldReason,
      heldWhy,
    },
  };
}

/**
 * What started a role change, in words. Every trigger the role applier knows (`Trigger`) has a
 * label, so the audit log's filter offers each one.
 */
export const TRIGGER_LABELS: Readonly<Record<Trigger, string>> = {
  link: '/link',
  unlink: '/unlink',
  relink: 'link moved to another account',
  webhook: 'Patreon webhook',
  sync: 'full sync',
  rejoin: 'member rejoined',
  map: 'mapping change',
  settings: 'settings change',
  recheck: 'scheduled re-check',
  connect: '/connect',
  adopt: 'roles adopted (/sync adopt)',
  grace: 'grace period or comp ended',
  join: 'join page',
  comp: 'comp given or ended',
};

export const OUTCOMES: ReadonlyArray<AuditRow['outcome']> = ['applied', 'failed', 'held', 'blocked'];
export const ACTIONS: ReadonlyArray<AuditRow['action']> = ['add', 'remove', 'forget', 'adopt'];
