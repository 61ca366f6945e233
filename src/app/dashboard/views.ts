import type { AuditRow } from '../../edges/outbound/store/repositories/ledger-repository';
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
  error: string | null;
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
>;

export function toSyncRun(row: SyncRunRow): SyncRun {
  const { id, trigger, status, dryRun, forced, startedAt, finishedAt, membersSeen } = row;
  const { plannedAdds, plannedRemoves, appliedAdds, appliedRemoves, heldRemovals, failedChanges, errors, heldReason } = row;
  return {
    ...{ id, trigger, status, dryRun, forced, startedAt, finishedAt, membersSeen },
    ...{ plannedAdds, plannedRemoves, appliedAdds, appliedRemoves, heldRemovals, failedChanges, errors: errors.slice(0, 5), heldReason },
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
