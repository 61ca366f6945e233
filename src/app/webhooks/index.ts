import type { Metrics } from '../../edges/outbound/observability/metrics';
import type { DurableQueue } from '../../edges/outbound/store/durable-queue';
import type { JobQueue, JobStore } from '../../edges/outbound/store/job-queue';
import type { CampaignRepository } from '../../edges/outbound/store/repositories/campaign-repository';
import type { SnapshotRepository } from '../../edges/outbound/store/repositories/snapshot-repository';
import type { WebhookRepository } from '../../edges/outbound/store/repositories/webhook-repository';
import type { Clock, Random } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import type { MemberIntake } from '../membership/member-intake';
import { type InboxWriter, createInboxWriter } from './inbox-writer';
import { PATREON } from '../../edges/outbound/patreon/patreon-source';
import type { LinkRepository } from '../../edges/outbound/store/repositories/link-repository';
import { type MemberReader, createMemberRefresh } from './member-refresh';
import { type PostDeliveryHandler, type WebhookProcessor, createWebhookProcessor } from './processor';
import type { FenceScope } from '../../shared/fence';
import type { DeliveryParser } from './source-delivery';
import { type WebhookRegistration, type WebhookRegistrationDeps, createWebhookRegistration } from './registration';
import { type WebhookSecretProvider, type WebhookSecrets, createWebhookSecrets } from './webhook-secrets';

export interface WebhooksDeps {
  /** The stored webhooks and the inbox (`webhookRepository`). */
  webhooks: Pick<WebhookRepository, 'insertDeliveries' | 'pruneDone' | 'secrets' | 'upsert' | 'forCampaign' | 'removeOthers'>;
  /** The inbox queue, built by the store: `createInboxQueue(db)`. */
  inbox: DurableQueue;
  /**
   * The durable jobs: the processor registers its re-check kind on the shared queue, and writes
   * re-checks straight to the table (`createJobStore(db)`).
   */
  jobs: { queue: Pick<JobQueue, 'register'>; store: JobStore };
  /** The creators' clients (`CreatorAccounts`): member re-reads and webhook registration. */
  accounts: MemberReader & WebhookRegistrationDeps['accounts'];
  campaigns: Pick<CampaignRepository, 'all' | 'get'>;
  credentials: WebhookRegistrationDeps['credentials'];
  snapshots: Pick<SnapshotRepository, 'get' | 'forExternalUser'>;
  /** See `MemberRefreshDeps.links`; and who a Discord user is on Patreon, for {@link Webhooks.confirmMember}. */
  links?: Pick<LinkRepository, 'byExternal' | 'byDiscordUser'>;
  /** Where re-read members come in (src/app/membership/member-intake.ts). */
  intake: MemberIntake;
  /** The source's parser of a stored delivery (Patreon's: `parsePatreonDelivery`), the one place a body is read. */
  parseDelivery: DeliveryParser;
  /** Post deliveries go to the announcements (src/app/channels). */
  posts?: PostDeliveryHandler;
  publicUrl: WebhookRegistrationDeps['publicUrl'];
  /** PATREON_BASE_URL: a service elsewhere cannot deliver to a loopback PUBLIC_URL. */
  serviceBaseUrl?: string;
  /** PATREON_WEBHOOK_SECRET, when set. */
  staticSecret?: string | undefined;
  withLock?: WebhookRegistrationDeps['withLock'];
  /** What to do with a campaign whose webhook registration found paused or failing (events may be lost): the sync subsystem's heal. */
  requestCampaignSync(campaignId: string, reason: string): void | Promise<void>;
  metrics: Pick<
    Metrics,
    'webhookDeliveries' | 'webhookProcessingSeconds' | 'webhookRetries' | 'webhookDeadLetters' | 'queueDepth' | 'webhookUnhealthy'
  >;
  logger: Logger;
  clock: Clock;
  random: Random;
  /** Sweep period of the inbox and the jobs. Default 5 s. */
  pollMs?: number;
  /** Deliveries are worked under their rows' fences (docs/outages-and-fencing.md). */
  fences?: FenceScope;
  /** See `MemberRefreshDeps.recheckDelayMs` and `readWindowMs`. */
  recheckDelayMs?: number;
  readWindowMs?: number;
  /** See `WebhookProcessorDeps.immediateConcurrency`. */
  immediateConcurrency?: number;
  /** See `WebhookProcessorDeps.lockMs` and `renewEveryMs`. */
  lockMs?: number;
  renewEveryMs?: number;
}

/** What the HTTP endpoint (src/edges/inbound/web/webhook-endpoint.ts) hands a delivery to. */
export interface WebhookIntake {
  inbox: InboxWriter;
  secrets: WebhookSecretProvider;
  metrics: Pick<Metrics, 'webhookDeliveries'>;
  logger: Logger;
  clock: Clock;
  /** Starts processing a stored delivery at once; the inbox sweep takes it anyway if this fails. */
  onAccepted(id: number): Promise<void>;
  /** The receiver answered 503: registration checks the webhooks soon (`WebhookRegistration.recheckSoon`). */
  onUnavailable(): void;
}

/** The webhooks subsystem's public face. */
export interface Webhooks {
  intake: WebhookIntake;
  /** The candidate secrets (registration invalidates them when it stores one). */
  secrets: WebhookSecrets;
  processor: WebhookProcessor;
  registration: WebhookRegistration;
  /**
   * Reads a Discord user's Patreon memberships afresh (in the confirmations' lane) and stores them,
   * before something removes roles by itself (a grace period's end). Throws when a read fails, so
   * nothing is removed on a state Patreon may no longer hold; the caller retries.
   */
  confirmMember(discordUserId: string): Promise<void>;
  /**
   * Works the inbox: what a crash left at once, then every `pollMs`. Registration is started on its
   * own (`registration.start()`), once the creators are connected; the shared job queue by its owner.
   */
  start(): void;
  /** Stops registration, then waits up to `graceMs` for the deliveries in flight; false when some were still running. */
  stop(graceMs?: number): Promise<boolean>;
}

/**
 * Builds the webhooks subsystem: the secrets cache, the inbox writer, the member refresh and the
 * processor over the inbox (its re-checks registered on the shared job queue), and the registration of each campaign's webhook. The composition root, the tests and the bench all
 * build it here.
 */
export function createWebhooks(deps: WebhooksDeps): Webhooks {
  const { logger, metrics, clock, random } = deps;

  const secrets = createWebhookSecrets({
    load: () =>
      deps.webhooks.secrets((id, error) =>
        logger.warn({ webhookId: id, err: error }, 'a stored webhook secret cannot be read with this SECRET_KEY'),
      ),
    staticSecret: deps.staticSecret,
    clock,
  });
  const members = createMemberRefresh({
    accounts: deps.accounts,
    snapshots: deps.snapshots,
    ...(deps.links ? { links: deps.links } : {}),
    intake: deps.intake,
    jobs: deps.jobs.store,
    logger,
    clock,
    recheckDelayMs: deps.recheckDelayMs,
    readWindowMs: deps.readWindowMs,
  });
  const processor = createWebhookProcessor({
    queue: deps.inbox,
    inbox: deps.webhooks,
    parse: deps.parseDelivery,
    members,
    ...(deps.posts ? { posts: deps.posts } : {}),
    metrics,
    logger,
    clock,
    random,
    pollMs: deps.pollMs,
    immediateConcurrency: deps.immediateConcurrency,
    lockMs: deps.lockMs,
    renewEveryMs: deps.renewEveryMs,
    ...(deps.fences ? { fences: deps.fences } : {}),
  });
  for (const [kind, handler] of Object.entries(processor.jobHandlers)) deps.jobs.queue.register(kind, handler);
  const registration = createWebhookRegistration({
    accounts: deps.accounts,
    campaigns: deps.campaigns,
    credentials: deps.credentials,
    webhooks: deps.webhooks,
    publicUrl: deps.publicUrl,
    ...(deps.serviceBaseUrl !== undefined ? { serviceBaseUrl: deps.serviceBaseUrl } : {}),
    staticSecret: deps.staticSecret,
    requestCampaignSync: (campaignId, reason) => deps.requestCampaignSync(campaignId, reason),
    onSecretsChanged: () => secrets.invalidate(),
    withLock: deps.withLock,
    metrics,
    logger,
    clock,
  });

  async function confirmMember(discordUserId: string): Promise<void> {
    const link = deps.links ? await deps.links.byDiscordUser(discordUserId, PATREON) : null;
    if (!link) return;
    for (const row of await deps.snapshots.forExternalUser(PATREON, link.externalId)) {
      await members.refresh({
        campaignId: row.campaignId,
        memberId: row.memberId,
        reason: 'grace',
        trigger: null,
        delivery: null,
        patreonUserId: link.externalId,
        receivedAt: null,
      });
    }
  }

  return {
    confirmMember,
    intake: {
      inbox: createInboxWriter(deps.webhooks),
      secrets,
      metrics,
      logger,
      clock,
      onAccepted: (id) => processor.runNow(id),
      onUnavailable: () => registration.recheckSoon(),
    },
    secrets,
    processor,
    registration,
    start() {
      processor.start();
    },
    async stop(graceMs) {
      await registration.stop();
      return processor.stop(graceMs);
    },
  };
}
