import { type MemberDetails, PatreonApiError, type UnreadableMember } from '../../edges/outbound/patreon';
import { memberFromPayload } from '../../edges/outbound/patreon/member-payload';
import { snapshotFromMember, snapshotFromPayload, toTierInput, unreadableInput } from '../../edges/outbound/patreon/member-records';
import { PATREON } from '../../edges/outbound/patreon/patreon-source';
import type { SnapshotRepository } from '../../edges/outbound/store/repositories/snapshot-repository';
import type { JobStore } from '../../edges/outbound/store/job-queue';
import type { Clock } from '../../shared/clock';
import { MINUTE } from '../../shared/clock';
import { createKeyedMutex } from '../../shared/keyed-mutex';
import type { Logger } from '../../shared/logger';
import type { MemberIntake } from '../membership/member-intake';

/** The job kind of a member re-read scheduled after a failed one (worked by the processor's job handler). */
export const MEMBER_RECHECK_JOB = 'member-recheck';

/** The creator's client for a campaign, narrowed to the one read the refresh makes (`CreatorAccounts`). */
export interface MemberReader {
  clientForCampaign(campaignId: string): Promise<{ getMember(memberId: string): Promise<MemberDetails | null> } | null>;
}

export interface MemberRefreshDeps {
  accounts: MemberReader;
  snapshots: Pick<SnapshotRepository, 'get'>;
  /** Where every read member comes in (src/app/membership/member-intake.ts). */
  intake: MemberIntake;
  /**
   * Where re-checks are written (the jobs table). A re-check always runs later than now, so it is
   * only written; the job queue's sweep starts it when it is due.
   */
  jobs: Pick<JobStore, 'insert'>;
  logger: Logger;
  clock: Clock;
  /** When the re-check after a failed re-read runs. Default 1 minute. */
  recheckDelayMs?: number;
}

export type RefreshOutcome =
  | 'reconciled' // re-read, stored, reconciled
  | 'deleted' // the service no longer knows the member: no entitlement
  | 'payload' // the re-read failed: the payload was used and a re-check queued
  | 'kept' // the re-read failed, but a snapshot read after this delivery arrived is newer than its payload
  | 'unreadable' // the re-read answered a member that cannot be understood: marked, its roles left as they are
  | 'unserved'; // a campaign Tierlink does not serve

export interface RefreshInput {
  campaignId: string;
  memberId: string;
  reason: 'webhook' | 'recheck';
  trigger: string | null;
  /** The delivery body: the fallback when the re-read fails. Null for a re-check (which then throws to retry). */
  payload: unknown;
  /** Whose roles to reconcile if the member is gone and we hold no snapshot of it. */
  patreonUserId: string | null;
  /** When the delivery arrived: its payload is no newer than that. */
  receivedAt: Date | null;
}

export interface MemberRefresh {
  refresh(input: RefreshInput): Promise<RefreshOutcome>;
}

/**
 * One member brought up to date after a delivery or a re-check: re-read with the creator's token,
 * stored, linked through the Discord account on their profile, and reconciled in every guild the
 * campaign serves (level-triggered, docs/architecture.md). Re-reads of one member run one at a time, so an
 * older read can never be stored after a newer one in this process.
 */
export function createMemberRefresh(deps: MemberRefreshDeps): MemberRefresh {
  const { logger, clock } = deps;
  const members = createKeyedMutex();
  const recheckDelayMs = deps.recheckDelayMs ?? MINUTE;

  async function scheduleRecheck(input: RefreshInput, patreonUserId: string | null): Promise<void> {
    await deps.jobs.insert(
      MEMBER_RECHECK_JOB,
      { campaignId: input.campaignId, memberId: input.memberId, patreonUserId },
      { runAt: new Date(clock.now().getTime() + recheckDelayMs), dedupeKey: `${MEMBER_RECHECK_JOB}:${input.campaignId}:${input.memberId}` },
    );
  }

  /**
   * The fallback when the re-read fails. A snapshot read from the service after this delivery
   * arrived is newer than anything the payload can say (a retried or backlogged delivery), so it
   * is kept; otherwise the payload is stored as unconfirmed (`source: 'webhook-payload'`) and a
   * re-check queued to replace it with a real read. An unconfirmed state may keep or remove roles,
   * never grant one (src/core/planner/plan.ts): a payload, maybe old or replayed, never raises
   * entitlement above the last successful read.
   */
  async function usePayload(input: RefreshInput, readError: unknown): Promise<RefreshOutcome> {
    const { campaignId, memberId } = input;
    const existing = await deps.snapshots.get(PATREON, campaignId, memberId);
    if (
      existing &&
      existing.readBy !== 'webhook-payload' &&
      input.receivedAt &&
      existing.fetchedAt.getTime() > input.receivedAt.getTime()
    ) {
      logger.info(
        { campaignId, memberId, err: readError },
        'member re-read failed; the stored snapshot was read after this delivery arrived and is kept',
      );
      return 'kept';
    }
    if (input.trigger === 'members:delete') {
      const userId = existing?.externalUserId ?? input.patreonUserId;
      logger.warn(
        { campaignId, memberId, err: readError },
        'member re-read failed; the delete delivery removes the snapshot, re-check queued',
      );
      await deps.intake.forget(PATREON, campaignId, memberId, userId, { trigger: input.reason });
      await scheduleRecheck(input, userId);
      return 'payload';
    }
    const parsed = memberFromPayload(input.payload);
    if (!parsed.ok) {
      throw new Error(`the member re-read failed and the delivery carries no usable member state (${parsed.error})`, { cause: readError });
    }
    const snapshot = snapshotFromPayload(parsed.value, campaignId);
    logger.warn({ campaignId, memberId, err: readError }, 'member re-read failed; using the delivery payload and queueing a re-check');
    await deps.intake.record({ snapshot, profileDiscordUserId: parsed.value.discordUserId }, { trigger: input.reason });
    await scheduleRecheck(input, snapshot.externalUserId);
    return 'payload';
  }

  /**
   * The service answered, but with a member Tierlink cannot read (an unknown `patron_status`, an
   * unexpected null). The payload is no better (the same service wrote it), so the member is
   * marked: its roles stay exactly as they are, and it is logged once while it stays unreadable.
   */
  async function markUnreadable(input: RefreshInput, odd: UnreadableMember): Promise<RefreshOutcome> {
    const marked = unreadableInput({ ...odd, userId: odd.userId ?? input.patreonUserId }, input.campaignId, 'webhook');
    await deps.intake.markUnreadable([marked], 'webhook', { trigger: input.reason });
    return 'unreadable';
  }

  function refresh(input: RefreshInput): Promise<RefreshOutcome> {
    const { campaignId, memberId } = input;
    return members.run(`${campaignId}:${memberId}`, async () => {
      const client = await deps.accounts.clientForCampaign(campaignId);
      if (!client) {
        logger.warn({ campaignId, memberId }, 'member event for a campaign Tierlink does not serve; ignored');
        return 'unserved';
      }
      let details: MemberDetails | null;
      try {
        details = await client.getMember(memberId);
      } catch (error) {
        if (error instanceof PatreonApiError && error.unreadable) return markUnreadable(input, error.unreadable);
        if (input.payload === null) throw error;
        return usePayload(input, error);
      }
      if (details === null) {
        const existing = await deps.snapshots.get(PATREON, campaignId, memberId);
        logger.info({ campaignId, memberId }, 'the service no longer knows the member: no entitlement');
        await deps.intake.forget(PATREON, campaignId, memberId, existing?.externalUserId ?? input.patreonUserId, { trigger: input.reason });
        return 'deleted';
      }
      const { member } = details;
      if (member.campaignId !== campaignId) {
        throw new Error(`member ${memberId} belongs to campaign ${member.campaignId}, not ${campaignId}`);
      }
      // The tiers the member names come with the re-read: a tier created since the catalog was
      // last read grants its roles at once instead of after the next refresh.
      await deps.intake.record(
        {
          snapshot: snapshotFromMember(member, 'webhook'),
          tiers: details.tiers.map(toTierInput),
          profileDiscordUserId: member.discordUserId ?? details.user?.discordUserId ?? null,
        },
        { trigger: input.reason },
      );
      return 'reconciled';
    });
  }

  return { refresh };
}
