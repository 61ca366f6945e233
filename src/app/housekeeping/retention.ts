import type { AppStateRepository } from '../../edges/outbound/store/repositories/app-state-repository';
import type { PruneCounts, RetentionStore } from '../../edges/outbound/store/retention-store';
import type { Clock } from '../../shared/clock';
import { DAY, HOUR } from '../../shared/clock';
import type { Logger } from '../../shared/logger';

/** How long each kind of row is kept, in days (docs/security.md). */
export interface RetentionPolicy {
  auditDays: number;
  syncRunDays: number;
  /** Dead-lettered deliveries and jobs. */
  deadLetterDays: number;
  doneJobDays: number;
  /** Body hashes of accepted deliveries: the replay window. */
  seenDeliveryDays: number;
  linkEventDays: number;
  /** Creator tokens of a creator who serves no campaign. */
  orphanCredentialDays: number;
  /**
   * Announcements (the outbox of welcomes and new posts). Longer than the announcement window
   * (src/app/channels/announcements.ts, 7 days): a pledge or post is only announced within it, so
   * a pruned row's subject never comes round again.
   */
  announcementDays: number;
  /**
   * Direct messages to patrons, whose rows say which decline was told. Longer than the longest
   * grace period (60 days) plus the 3 days a grace end is still told (src/core/patron-messages.ts),
   * so a pruned row's decline is never told again.
   */
  directMessageDays: number;
  /** Ko-fi donations, commissions and shop orders: longer than the longest donation setting (366 days). */
  kofiPaymentDays: number;
}

export const DEFAULT_RETENTION: RetentionPolicy = {
  auditDays: 180,
  syncRunDays: 90,
  deadLetterDays: 30,
  doneJobDays: 7,
  seenDeliveryDays: 7,
  linkEventDays: 90,
  orphanCredentialDays: 30,
  announcementDays: 30,
  directMessageDays: 90,
  kofiPaymentDays: 400,
};

export const RETENTION_LOCK = 'retention';
const LAST_RUN_KEY = 'retention-last-run';

export interface RetentionDeps {
  store: RetentionStore;
  appState: Pick<AppStateRepository, 'get' | 'set'>;
  /** `Database.tryWithLock`: one instance prunes; the others skip. */
  withLock<T>(name: string, fn: () => Promise<T>): Promise<{ acquired: true; value: T } | { acquired: false }>;
  clock: Clock;
  logger: Logger;
  policy?: Partial<RetentionPolicy>;
  /** How often an instance looks whether the day's prune is due. Default 1 hour. */
  checkEveryMs?: number;
}

export type RetentionOutcome = { kind: 'pruned'; counts: PruneCounts } | { kind: 'not_due' } | { kind: 'locked' };

export function createRetention(deps: RetentionDeps): Retention {
  const policy = { ...DEFAULT_RETENTION, ...deps.policy };
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | null = null;

  async function runOnce(options: { force?: boolean } = {}): Promise<RetentionOutcome> {
    const locked = await deps.withLock(RETENTION_LOCK, async (): Promise<RetentionOutcome> => {
      const now = deps.clock.now().getTime();
      const last = await deps.appState.get<{ at: string }>(LAST_RUN_KEY);
      if (!options.force && last && now - Date.parse(last.at) < DAY - HOUR) return { kind: 'not_due' };
      const ago = (days: number) => new Date(now - days * DAY);
      const counts = await deps.store.prune({
        audit: ago(policy.auditDays),
        syncRuns: ago(policy.syncRunDays),
        deadLetters: ago(policy.deadLetterDays),
        doneJobs: ago(policy.doneJobDays),
        seenDeliveries: ago(policy.seenDeliveryDays),
        linkEvents: ago(policy.linkEventDays),
        orphanCredentials: ago(policy.orphanCredentialDays),
        announcements: ago(policy.announcementDays),
        channelPacing: ago(1),
        directMessages: ago(policy.directMessageDays),
        kofiPayments: ago(policy.kofiPaymentDays),
      });
      await deps.appState.set(LAST_RUN_KEY, { at: new Date(now).toISOString(), counts });
      deps.logger.info({ ...counts }, 'pruned rows past their retention');
      return { kind: 'pruned', counts };
    });
    return locked.acquired ? locked.value : { kind: 'locked' };
  }

  function tick(): void {
    if (running) return;
    running = runOnce()
      .catch((error: unknown) => deps.logger.warn({ err: error }, 'pruning old rows failed; the next hourly check tries again'))
      .finally(() => {
        running = null;
      });
  }

  return {
    runOnce,
    start(): void {
      if (timer) return;
      tick();
      timer = setInterval(tick, deps.checkEveryMs ?? HOUR);
      timer.unref();
    },
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}

/**
 * Everything that grows is pruned once a day: audit rows, sync runs, dead letters, finished jobs,
 * replay hashes, link events, the tokens of creators who serve no campaign, announcements, ended
 * channel windows, the post polls of campaigns no longer served, direct messages and Ko-fi payments
 * that grant nothing any more. Every instance looks each hour; the one that takes the lock and finds the last prune a day old does it, and records
 * when, so several instances prune once a day between them.
 */
export interface Retention {
  runOnce(options?: { force?: boolean }): Promise<RetentionOutcome>;
  /** Looks at once (a daily prune that a restart skipped runs now), then every hour. */
  start(): void;
  stop(): Promise<void>;
}
