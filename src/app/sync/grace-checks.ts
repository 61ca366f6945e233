import { type PlannedUser, deadlineFrom, nextDeadline } from '../../core/planner';
import type { GuildContext, MemberState } from '../../core/planner/types';
import type { JobStore } from '../../edges/outbound/store/job-queue';
import type { Logger } from '../../shared/logger';

/**
 * The job that plans one member of one guild again when their roles change by themselves: a grace
 * period ends, a comp or a paid period ends, a tenure rule is reached. (The name is older than the
 * comps and rules; jobs already queued keep it.)
 */
export const GRACE_END_JOB = 'grace-end';

/** A member whose roles in a guild change by themselves at `at`. */
export interface GraceEnd {
  guildId: string;
  userId: string;
  at: Date;
}

/** When this member's roles in this guild next change by themselves (src/core/planner/deadlines.ts); null: nothing due. */
export function graceEndOf(
  guild: Pick<GuildContext, 'guildId' | 'campaignIds' | 'settings' | 'ruleRoles'>,
  userId: string,
  members: readonly MemberState[],
  now: Date,
): GraceEnd | null {
  const served = members.filter((m) => guild.campaignIds.includes(m.campaignId) && (m.guildId ?? guild.guildId) === guild.guildId);
  const at = nextDeadline(guild, served, now);
  return at ? { guildId: guild.guildId, userId, at } : null;
}

/**
 * {@link graceEndOf} from the planner's entitlements of the same members (`planUser` works them out
 * for the served members in order), so that the full sync works each member's entitlement out once.
 */
export function graceEndFrom(
  guild: Pick<GuildContext, 'guildId' | 'campaignIds' | 'ruleRoles'>,
  userId: string,
  members: readonly MemberState[],
  planned: Pick<PlannedUser, 'entitlements'>,
  now: Date,
): GraceEnd | null {
  const served = members.filter((m) => guild.campaignIds.includes(m.campaignId) && (m.guildId ?? guild.guildId) === guild.guildId);
  const at = deadlineFrom(guild, served, planned.entitlements, now);
  return at ? { guildId: guild.guildId, userId, at } : null;
}

export function createGraceChecks(deps: { jobs: Pick<JobStore, 'insertMany'>; logger: Logger }): GraceChecks {
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

/**
 * Checks when roles change by themselves: a member in a grace period, with a comp or a paid period
 * that ends, or nearing a tenure rule, gets a durable job at that moment (`grace-end`, on the
 * shared job queue), which reconciles that member then, so the roles change within a minute of it
 * and not at the next nightly sync. Each reconcile that still finds
 * the member in grace schedules its own end again; one job per member and deadline (a dedupe key),
 * so the nightly sync and webhooks re-planning the same member add none.
 */
export interface GraceChecks {
  schedule(ends: readonly GraceEnd[]): Promise<void>;
}
