import type { MemberDetails } from '../../edges/patreon';
import { discordUserIdOf, indexIncluded, parseDocument, relatedId, relatedIds } from '../../edges/patreon';
import type { Resource } from '../../edges/patreon/json-api';
import { toTierInput } from '../service-records';
import { snapshotFromMember } from '../service-records';
import type { CampaignRepository } from '../../edges/store/repositories/campaign-repository';
import type { Db } from '../../edges/store/database';
import { type ClaimedRow, createDurableQueue } from '../../edges/store/durable-queue';
import type { LinkRepository } from '../../edges/store/repositories/link-repository';
import type { SnapshotInput, SnapshotRepository } from '../../edges/store/repositories/snapshot-repository';
import type { JobHandler, JobQueue } from '../../edges/store/job-queue';
import { type QueueWorker, createQueueWorker } from '../../edges/store/queue-worker';
import type { Metrics } from '../../edges/observability/metrics';
import type { Clock, Random } from '../../shared/clock';
import { DAY, HOUR, MINUTE } from '../../shared/clock';
import { createKeyedMutex } from '../../shared/keyed-mutex';
import type { Logger } from '../../shared/logger';
import { type Result, err, ok } from '../../core/result';
import type { Reconciler } from '../sync/reconciler';
import { payloadCampaignId } from './receiver';

/** The job kind of a member re-read scheduled after a failed one (see {@link WebhookProcessor.jobHandlers}). */
export const MEMBER_RECHECK_JOB = 'member-recheck';

/** The creator's client for a campaign, narrowed to the one read the processor makes (`CreatorAccounts`). */
export interface MemberReader {
  clientForCampaign(campaignId: string): Promise<{ getMember(memberId: string): Promise<MemberDetails | null> } | null>;
}

export interface WebhookProcessorDeps {
  db: Db;
  /** Deletes processed deliveries (dead letters stay): `webhookRepository.pruneDone`. */
  inbox: { pruneDone(before: Date): Promise<number> };
  accounts: MemberReader;
  campaigns: Pick<CampaignRepository, 'upsertTiers'>;
  snapshots: Pick<SnapshotRepository, 'upsert' | 'delete' | 'get'>;
  links: Pick<LinkRepository, 'linkSocial'>;
  reconciler: Pick<Reconciler, 'reconcilePatreonUser'>;
  /**
   * Where re-checks go. The job queue is built with {@link WebhookProcessor.jobHandlers}, so the
   * composition root passes a forwarder: `{ enqueue: (...a) => jobQueue.enqueue(...a) }`.
   */
  jobs: Pick<JobQueue, 'enqueue'>;
  metrics: Pick<Metrics, 'webhookProcessingSeconds' | 'webhookRetries' | 'webhookDeadLetters' | 'queueDepth'>;
  logger: Logger;
  clock: Clock;
  random: Random;
  /** Inbox sweep period (work a crash or a failure left). Default 5 s. */
  pollMs?: number;
  /** Lease on a claimed delivery. Default 2 minutes. */
  lockMs?: number;
  /** Attempts before a delivery is dead-lettered. Default 8 (back-off 2 s … 30 min). */
  maxAttempts?: number;
  /** Deliveries worked at once by a sweep. Default 8. */
  concurrency?: number;
  /**
   * Deliveries started at once by `runNow`; more wait their turn in memory (their rows are already
   * durable, so a crash loses nothing). Bounds the re-reads a burst sends to the service. Default 16.
   */
  immediateConcurrency?: number;
  /** When the re-check after a failed re-read runs. Default 1 minute. */
  recheckDelayMs?: number;
  /** Finished inbox rows are deleted after this. Default 7 days. */
  retainMs?: number;
}

export type DeliveryOutcome =
  | 'reconciled' // re-read, stored, reconciled
  | 'deleted' // the service no longer knows the member: no entitlement
  | 'payload' // the re-read failed: the payload was used and a re-check queued
  | 'kept' // the re-read failed, but a snapshot read after this delivery arrived is newer than its payload
  | 'post' // posts:* acknowledged, no role effect
  | 'ignored' // a trigger we do not act on, or a campaign we do not serve
  | 'unserved';

export interface WebhookProcessor {
  /** The queue worker's handler: processes one inbox row. Throws to have it retried. */
  handleDelivery(row: ClaimedRow): Promise<DeliveryOutcome>;
  /** Processes the delivery now if it is due and unclaimed (the receiver's `onAccepted`). */
  runNow(id: number): Promise<void>;
  /** Works every due delivery once. */
  sweep(): Promise<number>;
  /** Sweeps at once (what a crash left), then every `pollMs`; keeps the queue-depth gauge and prunes processed rows. */
  start(): void;
  stop(timeoutMs?: number): Promise<boolean>;
  /** Register these with the job queue: `{ 'member-recheck': … }`. */
  readonly jobHandlers: Record<string, JobHandler>;
  readonly worker: QueueWorker;
}

interface InboxDeliveryRow {
  id: number;
  trigger: string | null;
  campaignId: string | null;
  body: string;
  receivedAt: Date;
}

function readRow(row: ClaimedRow): InboxDeliveryRow {
  const received = row.received_at;
  return {
    id: row.id,
    trigger: typeof row.trigger === 'string' ? row.trigger : null,
    campaignId: typeof row.campaign_id === 'string' ? row.campaign_id : null,
    body: String(row.body),
    receivedAt: received instanceof Date ? received : new Date(String(received)),
  };
}

type DeliveryKind = 'member' | 'post' | 'other';

/** By trigger when the service named one (`X-Patreon-Event`), else by the primary resource's type. */
function kindOf(trigger: string | null, dataType: string | null): DeliveryKind {
  if (trigger !== null) {
    if (trigger.startsWith('members:')) return 'member';
    if (trigger.startsWith('posts:')) return 'post';
    return 'other';
  }
  if (dataType === 'member') return 'member';
  if (dataType === 'post') return 'post';
  return 'other';
}

const PATRON_STATUSES = new Set(['active_patron', 'declined_patron', 'former_patron']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function dateOrNull(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : new Date(at);
}

export interface PayloadMember {
  snapshot: SnapshotInput;
  discordUserId: string | null;
}

/**
 * The member state a delivery body carries, for when the re-read fails. The body's attribute set
 * is the service's (spec: Events, Delivery §1), not one we asked for, so this reads leniently where
 * a default is harmless (`is_follower`, dates, amounts) and refuses where a guess would grant or
 * remove roles: without `patron_status` or the entitled tiers there is no usable state (DESIGN.md:
 * a failed read never reads as "not a patron"). The v2 sample's `currently_entitled_rewards` is read
 * when `currently_entitled_tiers` is absent (research/tech-facts.md §8).
 */
export function memberFromPayload(body: unknown, campaignId: string): Result<PayloadMember, string> {
  let resource: Resource;
  let included: ReturnType<typeof indexIncluded>;
  try {
    const doc = parseDocument(body, { method: 'WEBHOOK', path: 'delivery' });
    if (doc.data === null || Array.isArray(doc.data)) return err('the primary data is not one resource');
    resource = doc.data;
    included = indexIncluded(doc.included);
  } catch (error) {
    return err(error instanceof Error ? error.message : String(error));
  }
  if (resource.type !== 'member') return err(`the primary resource is a ${resource.type}, not a member`);
  const attributes = resource.attributes ?? {};
  if (!('patron_status' in attributes)) return err('patron_status is missing');
  const status = attributes.patron_status;
  if (status !== null && !(typeof status === 'string' && PATRON_STATUSES.has(status)))
    return err(`patron_status ${JSON.stringify(status)} is not a known status`);
  const tierIds = relatedIds(resource, 'currently_entitled_tiers') ?? relatedIds(resource, 'currently_entitled_rewards');
  if (tierIds === undefined) return err('currently_entitled_tiers is missing');
  const userId = relatedId(resource, 'user') ?? null;
  const user = userId !== null ? included.get('user', userId) : undefined;
  const amount = attributes.currently_entitled_amount_cents;
  const chargeStatus = attributes.last_charge_status;
  return ok({
    snapshot: {
      campaignId,
      memberId: resource.id,
      patreonUserId: userId,
      patronStatus: status as SnapshotInput['patronStatus'],
      isFollower: attributes.is_follower === true,
      lastChargeDate: dateOrNull(attributes.last_charge_date),
      lastChargeStatus: typeof chargeStatus === 'string' ? chargeStatus : null,
      entitledTierIds: [...new Set(tierIds)],
      pledgeRelationshipStart: dateOrNull(attributes.pledge_relationship_start),
      entitledAmountCents: typeof amount === 'number' && Number.isFinite(amount) ? Math.round(amount) : null,
      source: 'webhook-payload',
    },
    discordUserId: user?.attributes && 'social_connections' in user.attributes ? discordUserIdOf(user.attributes.social_connections) : null,
  });
}

interface RefreshInput {
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

/**
 * Processes verified deliveries from the inbox (durable: a crash between receipt and processing
 * loses nothing, and the lease frees a row whose worker died). For a member trigger it re-reads
 * the member with the creator's token, stores the snapshot and reconciles the linked Discord user
 * in every guild the campaign serves: level-triggered, so duplicates and reordered deliveries end
 * in the state the service reports now (DESIGN.md). Re-reads of one member run one at a time, so
 * an older read can never be stored after a newer one in this process.
 */
export function createWebhookProcessor(deps: WebhookProcessorDeps): WebhookProcessor {
  const { logger, metrics, clock } = deps;
  const queue = createDurableQueue(deps.db, 'webhook_inbox');
  const members = createKeyedMutex();
  const recheckDelayMs = deps.recheckDelayMs ?? MINUTE;
  const pollMs = deps.pollMs ?? 5000;
  const retainMs = deps.retainMs ?? 7 * DAY;
  let gaugeTimer: NodeJS.Timeout | undefined;
  let lastPrune = Number.NEGATIVE_INFINITY;

  async function reconcile(patreonUserId: string | null, reason: RefreshInput['reason']): Promise<void> {
    if (patreonUserId === null) return;
    await deps.reconciler.reconcilePatreonUser(patreonUserId, { trigger: reason });
  }

  async function linkFromSocial(discordUserId: string | null, patreonUserId: string | null): Promise<void> {
    if (discordUserId === null || patreonUserId === null) return;
    if (await deps.links.linkSocial(discordUserId, patreonUserId, clock.now())) {
      logger.info({ patreonUserId, discordUserId }, 'linked a member through the Discord account on their service profile');
    }
  }

  async function scheduleRecheck(input: RefreshInput, patreonUserId: string | null): Promise<void> {
    await deps.jobs.enqueue(
      MEMBER_RECHECK_JOB,
      { campaignId: input.campaignId, memberId: input.memberId, patreonUserId },
      { runAt: new Date(clock.now().getTime() + recheckDelayMs), dedupeKey: `${MEMBER_RECHECK_JOB}:${input.campaignId}:${input.memberId}` },
    );
  }

  /**
   * The fallback when the re-read fails. A snapshot read from the service after this delivery
   * arrived is newer than anything the payload can say (a retried or backlogged delivery), so it
   * is kept; otherwise the payload is stored and a re-check queued to replace it with a real read.
   */
  async function usePayload(input: RefreshInput, readError: unknown): Promise<DeliveryOutcome> {
    const { campaignId, memberId } = input;
    const existing = await deps.snapshots.get(campaignId, memberId);
    if (
      existing &&
      existing.source !== 'webhook-payload' &&
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
      await deps.snapshots.delete(campaignId, memberId);
      const userId = existing?.patreonUserId ?? input.patreonUserId;
      logger.warn(
        { campaignId, memberId, err: readError },
        'member re-read failed; the delete delivery removes the snapshot, re-check queued',
      );
      await reconcile(userId, input.reason);
      await scheduleRecheck(input, userId);
      return 'payload';
    }
    const parsed = memberFromPayload(input.payload, campaignId);
    if (!parsed.ok) {
      throw new Error(`the member re-read failed and the delivery carries no usable member state (${parsed.error})`, { cause: readError });
    }
    const { snapshot, discordUserId } = parsed.value;
    logger.warn({ campaignId, memberId, err: readError }, 'member re-read failed; using the delivery payload and queueing a re-check');
    await deps.snapshots.upsert(snapshot, clock.now());
    await linkFromSocial(discordUserId, snapshot.patreonUserId);
    await reconcile(snapshot.patreonUserId, input.reason);
    await scheduleRecheck(input, snapshot.patreonUserId);
    return 'payload';
  }

  function refreshMember(input: RefreshInput): Promise<DeliveryOutcome> {
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
        if (input.payload === null) throw error;
        return usePayload(input, error);
      }
      if (details === null) {
        const existing = await deps.snapshots.get(campaignId, memberId);
        await deps.snapshots.delete(campaignId, memberId);
        logger.info({ campaignId, memberId }, 'the service no longer knows the member: no entitlement');
        await reconcile(existing?.patreonUserId ?? input.patreonUserId, input.reason);
        return 'deleted';
      }
      const { member } = details;
      if (member.campaignId !== campaignId) {
        throw new Error(`member ${memberId} belongs to campaign ${member.campaignId}, not ${campaignId}`);
      }
      // The tiers the member names come with the re-read: a tier created since the catalog was
      // last read grants its roles at once instead of after the next refresh.
      await deps.campaigns.upsertTiers(member.campaignId, details.tiers.map(toTierInput), clock.now());
      await deps.snapshots.upsert(snapshotFromMember(member, 'webhook'), clock.now());
      await linkFromSocial(member.discordUserId ?? details.user?.discordUserId ?? null, member.userId);
      await reconcile(member.userId, input.reason);
      return 'reconciled';
    });
  }

  async function handleDelivery(row: ClaimedRow): Promise<DeliveryOutcome> {
    const delivery = readRow(row);
    const doc = JSON.parse(delivery.body) as unknown;
    const data = isObject(doc) && isObject(doc.data) ? doc.data : null;
    const dataType = data && typeof data.type === 'string' ? data.type : null;
    const kind = kindOf(delivery.trigger, dataType);
    let outcome: DeliveryOutcome;
    if (kind === 'post') {
      logger.info(
        { id: delivery.id, trigger: delivery.trigger, postId: data?.id ?? null },
        'post event acknowledged; posts have no role effect',
      );
      outcome = 'post';
    } else if (kind === 'other' || dataType !== 'member' || typeof data?.id !== 'string') {
      logger.warn(
        { id: delivery.id, trigger: delivery.trigger, type: dataType },
        'delivery is not a member event Tierlink acts on; acknowledged',
      );
      outcome = 'ignored';
    } else {
      const campaignId = delivery.campaignId ?? payloadCampaignId(doc);
      if (campaignId === null) throw new Error('the member delivery names no campaign and was not signed by a campaign webhook');
      const userId = relatedId(data as unknown as Resource, 'user') ?? null;
      outcome = await refreshMember({
        campaignId,
        memberId: data.id,
        reason: 'webhook',
        trigger: delivery.trigger,
        payload: doc,
        patreonUserId: userId,
        receivedAt: delivery.receivedAt,
      });
    }
    metrics.webhookProcessingSeconds.observe(Math.max(0, clock.now().getTime() - delivery.receivedAt.getTime()) / 1000);
    return outcome;
  }

  const worker = createQueueWorker({
    name: 'webhook_inbox',
    queue,
    clock,
    random: deps.random,
    logger,
    pollMs,
    lockMs: deps.lockMs ?? 2 * MINUTE,
    maxAttempts: deps.maxAttempts ?? 8,
    concurrency: deps.concurrency ?? 8,
    async handle(row) {
      await handleDelivery(row);
    },
    onRetry: () => metrics.webhookRetries.inc(),
    onDead: (row, error) => {
      metrics.webhookDeadLetters.inc();
      logger.error(
        { id: row.id, err: error },
        'webhook delivery dead-lettered: it stays in webhook_inbox with status dead and its last error',
      );
    },
  });

  async function housekeeping(): Promise<void> {
    metrics.queueDepth.set({ queue: 'webhook_inbox' }, await queue.depth());
    const now = clock.now().getTime();
    if (now - lastPrune >= HOUR) {
      lastPrune = now;
      const pruned = await deps.inbox.pruneDone(new Date(now - retainMs));
      if (pruned > 0) logger.debug({ pruned }, 'pruned finished webhook deliveries');
    }
  }

  const recheck: JobHandler = async (payload) => {
    const { campaignId, memberId, patreonUserId } = payload;
    if (typeof campaignId !== 'string' || typeof memberId !== 'string') throw new Error('member-recheck needs campaignId and memberId');
    await refreshMember({
      campaignId,
      memberId,
      reason: 'recheck',
      trigger: null,
      payload: null,
      patreonUserId: typeof patreonUserId === 'string' ? patreonUserId : null,
      receivedAt: null,
    });
  };

  const maxImmediate = deps.immediateConcurrency ?? 16;
  const waitingForSlot: Array<() => void> = [];
  let immediate = 0;

  async function runNow(id: number): Promise<void> {
    if (immediate < maxImmediate) immediate += 1;
    else await new Promise<void>((resolve) => waitingForSlot.push(resolve));
    try {
      await worker.runNow(id);
    } finally {
      // The slot passes straight to the next waiter, so the bound holds.
      const next = waitingForSlot.shift();
      if (next) next();
      else immediate -= 1;
    }
  }

  return {
    handleDelivery,
    worker,
    jobHandlers: { [MEMBER_RECHECK_JOB]: recheck },
    runNow,
    async sweep() {
      const n = await worker.sweep();
      await housekeeping().catch((error) => logger.warn({ err: error }, 'webhook inbox housekeeping failed'));
      return n;
    },
    start() {
      worker.start();
      void this.sweep().catch((error) => logger.error({ err: error }, 'webhook inbox sweep at start failed'));
      if (!gaugeTimer) {
        gaugeTimer = setInterval(() => {
          housekeeping().catch((error) => logger.warn({ err: error }, 'webhook inbox housekeeping failed'));
        }, pollMs);
        gaugeTimer.unref();
      }
    },
    async stop(timeoutMs) {
      if (gaugeTimer) clearInterval(gaugeTimer);
      gaugeTimer = undefined;
      return worker.stop(timeoutMs);
    },
  };
}
