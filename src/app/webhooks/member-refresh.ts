import { type MemberDetails, PatreonApiError, type UnreadableMember } from '../../edges/outbound/patreon';
import type { RequestPriority } from '../../edges/outbound/patreon/request-budget';
import type { LinkRepository } from '../../edges/outbound/store/repositories/link-repository';
import { snapshotFromMember, toTierInput, unreadableInput } from '../../edges/outbound/patreon/member-records';
import { PATREON } from '../../edges/outbound/patreon/patreon-source';
import type { SnapshotRepository } from '../../edges/outbound/store/repositories/snapshot-repository';
import type { JobStore } from '../../edges/outbound/store/job-queue';
import type { Clock } from '../../shared/clock';
import { MINUTE } from '../../shared/clock';
import { createKeyedMutex } from '../../shared/keyed-mutex';
import type { Logger } from '../../shared/logger';
import type { MemberIntake } from '../membership/member-intake';
import type { DeliveredMember } from './source-delivery';

/** The job kind of a member re-read scheduled after a failed one (worked by the processor's job handler). */
export const MEMBER_RECHECK_JOB = 'member-recheck';

/** The creator's client for a campaign, narrowed to the one read the refresh makes (`CreatorAccounts`). */
export interface MemberReader {
  clientForCampaign(
    campaignId: string,
  ): Promise<{ getMember(memberId: string, options?: { priority?: RequestPriority }): Promise<MemberDetails | null> } | null>;
}

export interface MemberRefreshDeps {
  accounts: MemberReader;
  snapshots: Pick<SnapshotRepository, 'get'>;
  /**
   * Who a member is linked to, to tell whether a delivery naming a Discord account on the profile
   * could link someone new (then it is read first). Without it, such a delivery is always read.
   */
  links?: Pick<LinkRepository, 'byExternal'>;
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
  /**
   * A member is read for deliveries at most once in this window; a delivery that could change roles
   * within it is confirmed by a re-check at the window's end (one per member, however many came), so
   * replays cost at most one read per member per window and none is dropped unread. Default 5 s.
   */
  readWindowMs?: number;
}

export type RefreshOutcome =
  | 'reconciled' // re-read, stored, reconciled
  | 'deleted' // the service no longer knows the member: no entitlement
  | 'payload' // the re-read failed: the payload was used and a re-check queued
  | 'kept' // the re-read failed, but a snapshot read after this delivery arrived is newer than its payload
  | 'unreadable' // the re-read answered a member that cannot be understood: marked, its roles left as they are
  | 'unserved' // a campaign Tierlink does not serve
  | 'unchanged' // the delivery says for roles what the stored read says: no read, nothing changes
  | 'coalesced' // a read of this member that starts after this delivery arrived answers it
  | 'deferred'; // the member was read for a delivery moments ago: a re-check at the window's end confirms this one

export interface RefreshInput {
  campaignId: string;
  memberId: string;
  /** Also the audit's trigger: `grace` when a grace period's end confirms the member first. */
  reason: 'webhook' | 'recheck' | 'grace';
  /** The service's event name, for the logs. */
  trigger: string | null;
  /**
   * What the delivery says, as its source parsed it (the body is never read here): the fallback when
   * the re-read fails. Null for a re-check or a grace end (which then throw to retry).
   */
  delivery: DeliveredMember | null;
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
/** Distinct delivery contents read at once for one member in one window; more wait for the re-check. */
const CONTENTS_PER_WINDOW = 8;

export function createMemberRefresh(deps: MemberRefreshDeps): MemberRefresh {
  const { logger, clock } = deps;
  const members = createKeyedMutex();
  const recheckDelayMs = deps.recheckDelayMs ?? MINUTE;
  const readWindowMs = deps.readWindowMs ?? 5_000;
  /** Reads queued behind a running one and not started yet, by member: a delivery arriving now joins one. */
  const queuedReads = new Map<string, Promise<RefreshOutcome>>();
  /**
   * When each member was first read for a delivery in the current window, and which deliveries'
   * contents were read in it (pruned past the window, so bounded by the members read within it).
   */
  const lastDeliveryRead = new Map<string, { at: number; contents: Set<string> }>();

  async function scheduleRecheck(input: RefreshInput, patreonUserId: string | null, delayMs = recheckDelayMs): Promise<void> {
    await deps.jobs.insert(
      MEMBER_RECHECK_JOB,
      { campaignId: input.campaignId, memberId: input.memberId, patreonUserId },
      { runAt: new Date(clock.now().getTime() + delayMs), dedupeKey: `${MEMBER_RECHECK_JOB}:${input.campaignId}:${input.memberId}` },
    );
  }

  /**
   * The stored read, when the delivery says nothing new for roles: its member state equals the
   * stored read, and any Discord account it names is the one already linked. Then it needs no read.
   */
  async function storedReadStands(input: RefreshInput): Promise<{ externalUserId: string | null } | null> {
    const { delivery } = input;
    if (input.reason !== 'webhook' || delivery === null || delivery.removed || !delivery.state.ok) return null;
    const stored = await deps.snapshots.get(delivery.source, input.campaignId, input.memberId);
    if (!stored || !delivery.state.value.sameForRoles(stored)) return null;
    const named = delivery.state.value.profileDiscordUserId;
    if (named !== null) {
      const link = deps.links && stored.externalUserId ? await deps.links.byExternal(delivery.source, stored.externalUserId) : null;
      if (link?.discordUserId !== named) return null;
    }
    return stored;
  }

  function pruneReadTimes(now: number): void {
    if (lastDeliveryRead.size < 1024) return;
    for (const [key, read] of lastDeliveryRead) if (now - read.at >= readWindowMs) lastDeliveryRead.delete(key);
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
    if (input.delivery?.removed) {
      const userId = existing?.externalUserId ?? input.patreonUserId;
      logger.warn(
        { campaignId, memberId, err: readError },
        'member re-read failed; the delete delivery removes the snapshot, re-check queued',
      );
      await deps.intake.forget(PATREON, campaignId, memberId, userId, { trigger: input.reason });
      await scheduleRecheck(input, userId);
      return 'payload';
    }
    const state = input.delivery?.state ?? { ok: false as const, error: 'nothing was delivered' };
    if (!state.ok) {
      throw new Error(`the member re-read failed and the delivery carries no usable member state (${state.error})`, { cause: readError });
    }
    const { snapshot } = state.value.read;
    logger.warn({ campaignId, memberId, err: readError }, 'member re-read failed; using the delivery payload and queueing a re-check');
    await deps.intake.record(state.value.read, { trigger: input.reason });
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

  async function refresh(input: RefreshInput): Promise<RefreshOutcome> {
    const { campaignId, memberId } = input;
    const key = `${campaignId}:${memberId}`;
    const stored = await storedReadStands(input);
    if (stored) {
      logger.debug({ campaignId, memberId, trigger: input.trigger }, 'delivery says nothing new: the stored read stands, no read');
      // Planned again from the stored read (no service read): a process that stored it and died
      // before its role requests, or a role removed by hand, is put right now, not at night. Only
      // where the gateway knows the user: a patron who is not in the server costs no Discord read
      // (on charge day most are not), and one who joins is reconciled by the join itself.
      await deps.intake.reconcile(PATREON, stored.externalUserId, { trigger: input.reason, knownMembersOnly: true });
      return 'unchanged';
    }
    if (input.reason === 'webhook') {
      const queued = queuedReads.get(key);
      if (queued) return queued.then((outcome) => (outcome === 'deferred' ? outcome : 'coalesced'));
    }
    const run = members.run(key, () => {
      if (queuedReads.get(key) === run) queuedReads.delete(key);
      return readAndRecord(input);
    });
    if (input.reason === 'webhook') queuedReads.set(key, run);
    return run;
  }

  async function readAndRecord(input: RefreshInput): Promise<RefreshOutcome> {
    const { campaignId, memberId } = input;
    const key = `${campaignId}:${memberId}`;
    {
      const now = clock.now().getTime();
      if (input.reason === 'webhook') {
        // A delivery whose contents were read in this window (a replay) waits for the re-check; one
        // with new contents (a real change right after another) is read now: only the service's
        // own signed deliveries can say something new, so replays cannot buy reads with it.
        const contents = input.delivery?.contents ?? '';
        const last = lastDeliveryRead.get(key);
        if (last !== undefined && now - last.at < readWindowMs) {
          if (last.contents.has(contents) || last.contents.size >= CONTENTS_PER_WINDOW) {
            logger.debug({ campaignId, memberId }, 'member read for this delivery moments ago; a re-check at the window end confirms it');
            await scheduleRecheck(input, input.patreonUserId, last.at + readWindowMs - now);
            return 'deferred';
          }
          last.contents.add(contents);
        } else {
          pruneReadTimes(now);
          lastDeliveryRead.set(key, { at: now, contents: new Set([contents]) });
        }
      }
      const client = await deps.accounts.clientForCampaign(campaignId);
      if (!client) {
        logger.warn({ campaignId, memberId }, 'member event for a campaign Tierlink does not serve; ignored');
        return 'unserved';
      }
      let details: MemberDetails | null;
      try {
        // A delivery that may change roles goes before confirmations, which go before the sync's pages.
        details = await client.getMember(memberId, { priority: input.reason === 'webhook' ? 'interactive' : 'confirm' });
      } catch (error) {
        if (error instanceof PatreonApiError && error.unreadable) return markUnreadable(input, error.unreadable);
        if (input.delivery === null) throw error;
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
    }
  }

  return { refresh };
}
