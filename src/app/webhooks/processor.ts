import type { Post } from '../../edges/outbound/patreon/posts';
import type { ClaimedRow, DurableQueue } from '../../edges/outbound/store/durable-queue';
import type { JobHandler } from '../../edges/outbound/store/job-queue';
import { type QueueWorker, createQueueWorker } from '../../edges/outbound/store/queue-worker';
import type { FenceScope } from '../../shared/fence';
import type { Metrics } from '../../edges/outbound/observability/metrics';
import type { Clock, Random } from '../../shared/clock';
import { DAY, HOUR, MINUTE } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import { MEMBER_RECHECK_JOB, type MemberRefresh, type RefreshOutcome } from './member-refresh';
import type { DeliveryParser } from './source-delivery';

export interface WebhookProcessorDeps {
  /** The inbox's claim cycle (`createInboxQueue` of the store). */
  queue: DurableQueue;
  /** Deletes processed deliveries (dead letters stay): `webhookRepository.pruneDone`. */
  inbox: { pruneDone(before: Date): Promise<number> };
  /** The source's parser of a stored delivery: the one place its body is read (src/edges/outbound/patreon/delivery-parser.ts). */
  parse: DeliveryParser;
  /** What a member delivery or a re-check does. */
  members: MemberRefresh;
  /** What a `posts:publish` delivery does (the announcements, src/app/channels); without it posts are only acknowledged. */
  posts?: PostDeliveryHandler;
  metrics: Pick<Metrics, 'webhookProcessingSeconds' | 'webhookRetries' | 'webhookDeadLetters' | 'queueDepth'>;
  logger: Logger;
  clock: Clock;
  random: Random;
  /** Inbox sweep period (work a crash or a failure left). Default 5 s. */
  pollMs?: number;
  /** Lease on a claimed delivery, renewed while it is worked (a Discord rate-limit wait included). Default 2 minutes. */
  lockMs?: number;
  /** How often the lease is renewed while the delivery is worked. Default a third of `lockMs`. */
  renewEveryMs?: number;
  /** Attempts before a delivery is dead-lettered. Default 8 (back-off 2 s … 30 min). */
  maxAttempts?: number;
  /** Deliveries worked at once by a sweep. Default 8. */
  concurrency?: number;
  /**
   * Deliveries started at once by `runNow`; more wait their turn in memory (their rows are already
   * durable, so a crash loses nothing). Bounds the re-reads a burst sends to the service. Default 16.
   */
  immediateConcurrency?: number;
  /** Finished inbox rows are deleted after this. Default 7 days. */
  retainMs?: number;
  /** A delivery is worked under its row's fence (docs/outages-and-fencing.md). */
  fences?: FenceScope;
}

export type DeliveryOutcome =
  | RefreshOutcome
  | 'post' // posts:* acknowledged, no role effect
  | 'ignored'; // a trigger we do not act on

export interface WebhookProcessor {
  /** The queue worker's handler: processes one inbox row. Throws to have it retried. */
  handleDelivery(row: ClaimedRow): Promise<DeliveryOutcome>;
  /** Processes the delivery now if it is due and unclaimed (the endpoint's `onAccepted`). */
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

/** The announcements' side of a post delivery (src/app/channels/announcements.ts). */
export interface PostDeliveryHandler {
  onPostDelivery(input: { campaignId: string; postId: string; payload: Post | null; receivedAt: Date }): Promise<void>;
}

/**
 * Processes verified deliveries from the inbox (durable: a crash between receipt and processing
 * loses nothing, and the lease frees a row whose worker died): routes each by trigger, hands a
 * member event to the member refresh (member-refresh.ts), and works the re-checks that refresh
 * schedules. Duplicates and reordered deliveries end in the state the service reports now
 * (docs/architecture.md: level-triggered).
 */
export function createWebhookProcessor(deps: WebhookProcessorDeps): WebhookProcessor {
  const { queue, logger, metrics, clock } = deps;
  const pollMs = deps.pollMs ?? 5000;
  const retainMs = deps.retainMs ?? 7 * DAY;
  let gaugeTimer: NodeJS.Timeout | undefined;
  let lastPrune = Number.NEGATIVE_INFINITY;

  async function handleDelivery(row: ClaimedRow): Promise<DeliveryOutcome> {
    const delivery = readRow(row);
    const parsed = deps.parse(delivery);
    let outcome: DeliveryOutcome;
    if (parsed.kind === 'post') {
      logger.info({ id: delivery.id, trigger: delivery.trigger, postId: parsed.postId }, 'post event; posts have no role effect');
      if (deps.posts && parsed.published && parsed.campaignId !== null && parsed.postId !== null) {
        await deps.posts.onPostDelivery({
          campaignId: parsed.campaignId,
          postId: parsed.postId,
          payload: parsed.post,
          receivedAt: delivery.receivedAt,
        });
      }
      outcome = 'post';
    } else if (parsed.kind === 'ignored') {
      logger.warn(
        { id: delivery.id, trigger: delivery.trigger, type: parsed.type },
        'delivery is not a member event Tierlink acts on; acknowledged',
      );
      outcome = 'ignored';
    } else {
      const { member } = parsed;
      if (member.campaignId === null) throw new Error('the member delivery names no campaign and was not signed by a campaign webhook');
      outcome = await deps.members.refresh({
        campaignId: member.campaignId,
        memberId: member.memberId,
        reason: 'webhook',
        trigger: delivery.trigger,
        delivery: member,
        patreonUserId: member.externalUserId,
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
    ...(deps.renewEveryMs !== undefined ? { renewEveryMs: deps.renewEveryMs } : {}),
    maxAttempts: deps.maxAttempts ?? 8,
    concurrency: deps.concurrency ?? 8,
    async handle(row) {
      await handleDelivery(row);
    },
    ...(deps.fences ? { fencing: { scope: deps.fences, table: 'webhook_inbox' as const } } : {}),
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
    await deps.members.refresh({
      campaignId,
      memberId,
      reason: 'recheck',
      trigger: null,
      delivery: null,
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
