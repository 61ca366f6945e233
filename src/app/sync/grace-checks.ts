import { nextGraceDeadline } from '../../core/planner';
import type { GuildContext, MemberState } from '../../core/planner/types';
import type { JobStore } from '../../edges/outbound/store/job-queue';
import type { Logger } from '../../shared/logger';

/** The job that reconciles one member of one guild when a grace period ends. */
export const GRACE_END_JOB = 'grace-end';

/** A member whose grace period in a guild ends at `at`. */
export interface GraceEnd {
  guildId: string;
  userId: string;
  at: Date;
}

/** When the grace period of this member of this guild ends next, from the snapshots of the guild's campaigns; null outside one. */
export function graceEndOf(
  guild: Pick<GuildContext, 'guildId' | 'campaignIds' | 'settings'>,
  userId: string,
  members: readonly MemberState[],
  now: Date,
): GraceEnd | null {
  const served = members.filter((m) => guild.campaignIds.includes(m.campaignId));
  const at = nextGraceDeadline(served, guild.settings.graceDays, now);
  return at ? { guildId: guild.guildId, userId, at } : null;
}

/**
 * Checks at the end of grace periods: a member in a grace period gets a durable job at the moment
 * it ends (`grace-end`, on the shared job queue), which reconciles that member then, so the roles
 * go when the grace period says and not at the next nightly sync. Each reconcile that still finds
 * the member in grace schedules its own end again; one job per member and deadline (a dedupe key),
 * so the nightly sync and webhooks re-planning the same member add none.
 */
export function createGraceChecks(deps: { jobs: Pick<JobStore, 'insertMany'>; logger: Logger }) {
  return {
    async schedule(ends: readonly GraceEnd[]): Promise<void> {
      if (ends.length === 0) return;
      const written = await deps.jobs.insertMany(
        GRACE_END_JOB,
        ends.map((end) => ({
          payload: { guildId: end.guildId, userId: end.userId },
          runAt: end.at,
          dedupeKey: `${GRACE_END_JOB}:${end.guildId}:${end.userId}:${end.at.getTime()}`,
        })),
      );
      if (written > 0) deps.logger.debug({ scheduled: written }, 'grace-period ends scheduled');
    },
  };
}

export type GraceChecks = ReturnType<typeof createGraceChecks>;
