import { type SyncProgress, progressLine } from '../../core/sync-report';
import type { Clock } from '../../shared/clock';
import { DAY } from '../../shared/clock';
import type { DoctorCheck } from './doctor';
import { type Said, saidCheck, says, withSaid } from './doctor-says';

export interface LastSync {
  startedAt: Date;
  finishedAt: Date | null;
  status: string;
  heldRemovals: number;
  heldReason: string | null;
  errors: string[];
}

const day = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
const clock = (iso: string) => day(new Date(iso));

/** A sync in progress as a sentence (the English is `progressLine`'s, src/core/sync-report.ts). */
function progressSaid(p: SyncProgress): Said {
  const phase =
    p.phase === 'campaigns'
      ? says('doctorSays.progressCampaigns', { read: p.campaignMembersRead })
      : p.phase === 'members'
        ? says('doctorSays.progressMembers', { read: p.serverMembersRead, campaign: p.campaignMembersRead })
        : p.phase === 'applying'
          ? says('doctorSays.progressApplying', { done: p.changesDone, planned: p.changesPlanned, members: p.serverMembersRead })
          : says('doctorSays.progressFinishing');
  return p.phase === 'applying' && p.estimatedEndAt
    ? says('doctorSays.progressEnd', { phase, started: clock(p.startedAt), end: clock(p.estimatedEndAt) })
    : says('doctorSays.progress', { phase, started: clock(p.startedAt) });
}

/** A last sync's status as recorded (`ok`, `held`, `failed`), said in the reader's language; another as it is. */
function statusSaid(status: string): Said | string {
  return status === 'ok' || status === 'held' || status === 'failed' ? says(`doctorSays.status.${status}`) : status;
}

/**
 * `/doctor`'s lines about the full sync: the one in progress (a sync of a large server takes hours
 * under Discord's member-role limit: where it is, and when it should end), and the last one that
 * finished (held removals, errors, or none for two days).
 */
export async function syncChecks(
  deps: {
    clock: Clock;
    lastSync(guildId: string): Promise<LastSync | null>;
    runningSync(guildId: string): Promise<SyncProgress | null>;
  },
  guildId: string,
): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  const running = await deps.runningSync(guildId);
  if (running)
    checks.push(withSaid({ name: 'Sync in progress', ok: true, detail: progressLine(running), fix: null }, progressSaid(running), null));
  const last = await deps.lastSync(guildId);
  if (!last) {
    if (!running) checks.push(saidCheck('Last sync', true, says('doctorSays.noSyncYet'), null));
    return checks;
  }
  const when = day(last.startedAt);
  if (last.heldRemovals > 0) {
    checks.push({
      name: 'Last sync',
      ok: false,
      detail: `${when}: ${last.heldRemovals} role removal${last.heldRemovals === 1 ? ' was' : 's were'} held back by the mass-removal guard — ${last.heldReason ?? 'more than this server’s threshold'}`,
      fix: 'Check them with /sync dry_run:true, then apply them with /sync force:true (or raise the guard with /settings removal_threshold_percent).',
      said: {
        detail: says('doctorSays.syncHeld', {
          when,
          count: last.heldRemovals,
          reason: last.heldReason ?? says('doctorSays.overThreshold'),
        }),
        fix: says('doctorSays.syncHeldFix'),
      },
    });
  } else if (last.errors.length > 0 || last.status === 'failed') {
    checks.push(
      withSaid(
        {
          name: 'Last sync',
          ok: false,
          detail: `${when}: ${last.errors[0] ?? last.status}`,
          fix: running ? 'The sync in progress takes over; check again when it ends.' : 'Fix the problems above and run /sync.',
        },
        last.errors[0] !== undefined
          ? says('doctorSays.syncError', { when, error: last.errors[0] })
          : says('doctorSays.syncStatus', { when, status: statusSaid(last.status) }),
        says(running ? 'doctorSays.syncTakesOver' : 'doctorSays.syncFixAbove'),
      ),
    );
  } else {
    const stale = !running && deps.clock.now().getTime() - last.startedAt.getTime() > 2 * DAY;
    checks.push(
      withSaid(
        {
          name: 'Last sync',
          ok: !stale,
          detail: `${when}: ${last.status}`,
          fix: stale ? 'The nightly sync has not run for two days: check that Tierlink is running and SYNC_SCHEDULE.' : null,
        },
        says('doctorSays.syncStatus', { when, status: statusSaid(last.status) }),
        stale ? says('doctorSays.syncStale') : null,
      ),
    );
  }
  return checks;
}
