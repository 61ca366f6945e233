import type { CampaignRepository } from '../../edges/outbound/store/repositories/campaign-repository';
import type { CredentialRepository } from '../../edges/outbound/store/repositories/credential-repository';
import type { StoredWebhook, WebhookRepository } from '../../edges/outbound/store/repositories/webhook-repository';
import type { Metrics } from '../../edges/outbound/observability/metrics';
import { MEMBER_TRIGGERS, type PatreonClient, type Webhook } from '../../edges/outbound/patreon';
import type { Clock } from '../../shared/clock';
import { MINUTE } from '../../shared/clock';
import { createKeyedMutex } from '../../shared/keyed-mutex';
import type { Logger } from '../../shared/logger';
import { campaignWebhooks } from './campaign-webhooks';
import { WEBHOOK_PATH } from './delivery';
import { isLoopbackHost } from '../../shared/loopback';

export type EnsureState = 'registered' | 'already-registered' | 'updated' | 'manual-secret' | 'failed';

export interface EnsureResult {
  campaignId: string;
  state: EnsureState;
  /** The campaign's webhook as the service reports it after this check (secret omitted), or null. */
  webhook: Omit<Webhook, 'secret'> | null;
  /** True when the webhook was paused or failing and was re-enabled (and a campaign sync queued). */
  healed: boolean;
  /** A sentence for logs and `/doctor`. */
  detail: string;
}

export interface WebhookHealth {
  campaignId: string;
  /** A webhook of this client for the campaign is known (from the last check). */
  exists: boolean;
  webhookId: string | null;
  uri: string | null;
  paused: boolean | null;
  numConsecutiveTimesFailed: number | null;
  lastAttemptedAt: Date | null;
  /** When the service was last asked about it (any instance). */
  checkedAt: Date | null;
  /** The outcome of this process's last check, if it made one. */
  lastState: EnsureState | null;
  lastDetail: string | null;
  /** PATREON_WEBHOOK_SECRET is set: deliveries of a hand-registered webhook are verified with it. */
  manualSecret: boolean;
}

export interface WebhookRegistrationDeps {
  accounts: {
    clientForCampaign(campaignId: string): Promise<Pick<PatreonClient, 'listWebhooks' | 'createWebhook' | 'updateWebhook'> | null>;
  };
  campaigns: Pick<CampaignRepository, 'all' | 'get'>;
  /** The creators' stored scopes: `posts:publish` is asked for only where posts may be read ({@link POSTS_SCOPE}). */
  credentials: Pick<CredentialRepository, 'status'>;
  webhooks: Pick<WebhookRepository, 'upsert' | 'forCampaign' | 'removeOthers'>;
  /** `$PUBLIC_URL` (no trailing slash); the webhook uri is this plus {@link WEBHOOK_PATH}. */
  publicUrl: string | (() => string);
  /**
   * The membership service's address (PATREON_BASE_URL). A service on another machine cannot
   * deliver to a PUBLIC_URL only this machine reaches: no webhook is registered or re-pointed there.
   */
  serviceBaseUrl?: string;
  /** PATREON_WEBHOOK_SECRET: a hand-registered webhook; Tierlink then creates and re-points nothing. */
  staticSecret?: string | undefined;
  /** Queues a full sync of a campaign whose webhook was found paused or failing (events may be lost). */
  requestCampaignSync(campaignId: string, reason: string): void | Promise<void>;
  /** Called after a secret was stored, so the endpoint's secrets cache re-reads (`WebhookSecrets.invalidate`). */
  onSecretsChanged?(): void;
  /** Runs `fn` under a lock across instances, or skips it (`Database.tryWithLock`). */
  withLock?<T>(name: string, fn: () => Promise<T>): Promise<{ acquired: true; value: T } | { acquired: false }>;
  metrics: Pick<Metrics, 'webhookUnhealthy'>;
  logger: Logger;
  clock: Clock;
}

export interface EnsureOptions {
  /**
   * A check of the campaign's webhook made less than this long ago, by any instance, that found it
   * healthy at our address with every trigger stands: nothing is asked of Patreon. Binding many
   * servers to one campaign (each instance does it at start from DISCORD_GUILD_IDS) would otherwise
   * list the webhooks once per server, spending Patreon's 100 requests a minute per token that the
   * member reads need. Without it (the 15-minute round, after an outage) Patreon is always asked.
   */
  freshWithinMs?: number;
}

export interface WebhookRegistration {
  ensure(campaignId: string, options?: EnsureOptions): Promise<EnsureResult>;
  /** Every stored campaign; skipped (empty) when another instance holds the lock. */
  ensureAll(): Promise<EnsureResult[]>;
  /** `ensureAll` now and every `intervalMs` (default 15 minutes). */
  start(intervalMs?: number): void;
  /**
   * Checks every campaign's webhook soon, not at the next round: the receiver just answered 503
   * (the database was away), and Patreon pauses a webhook whose deliveries keep failing. Tries after
   * `delayMs`, then again with back-off (doubling, at most {@link REGISTRATION_INTERVAL_MS}) until a
   * round finds the database answering and no campaign failed. Calls while one is planned add none.
   */
  recheckSoon(delayMs?: number): void;
  stop(): Promise<void>;
  health(campaignId: string): Promise<WebhookHealth>;
  /** The uri the webhook must point at. */
  webhookUri(): string;
}

export const REGISTRATION_INTERVAL_MS = 15 * MINUTE;
/** How soon after a 503 the webhooks are checked first (the database is usually back within seconds). */
export const OUTAGE_RECHECK_MS = 30_000;

/** The scope that lets Tierlink read a campaign's posts; without it a post delivery carries nothing it can use. */
export const POSTS_SCOPE = 'campaigns.posts';

/**
 * What the campaign's webhook subscribes to: every member trigger, and `posts:publish` for the
 * new-posts announcements (src/app/channels) when the creator granted {@link POSTS_SCOPE}. A
 * webhook registered before is PATCHed at the next check; until then, and where the service does
 * not deliver post events, the announcements poll the posts endpoint instead.
 */
export const WEBHOOK_TRIGGERS: readonly string[] = [...MEMBER_TRIGGERS, 'posts:publish'];

/**
 * The triggers for a creator with these scopes (space-separated, as stored). Patreon does not say
 * whether a post trigger needs {@link POSTS_SCOPE}; if it refuses one, the whole registration fails
 * and the campaign loses its member webhooks too, so it is asked for only where it can serve.
 */
export function triggersFor(scopes: string): readonly string[] {
  return scopes.split(' ').includes(POSTS_SCOPE) ? WEBHOOK_TRIGGERS : MEMBER_TRIGGERS;
}

/**
 * Why the service at `serviceBaseUrl` cannot deliver to `uri`, when it cannot: `uri` is on this
 * machine's loopback and the service is not. Registering it anyway makes every delivery fail and
 * the service pause the webhook, which Tierlink would re-enable every 15 minutes in vain.
 */
export function unreachableFrom(serviceBaseUrl: string | undefined, uri: string): string | null {
  if (!serviceBaseUrl) return null;
  const ours = new URL(uri);
  const theirs = new URL(serviceBaseUrl);
  if (!isLoopbackHost(ours.hostname) || isLoopbackHost(theirs.hostname)) return null;
  return (
    `PUBLIC_URL ${ours.origin} is an address only this machine reaches, so ${theirs.host} could not deliver webhooks to it: ` +
    'no webhook is registered, and roles follow pledges only at the nightly sync. Set PUBLIC_URL to the address where the internet reaches Tierlink.'
  );
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && new Set(a).size === new Set([...a, ...b]).size;

const publicView = ({ secret: _secret, ...rest }: Webhook): Omit<Webhook, 'secret'> => rest;

/**
 * Keeps each campaign's webhook in place (spec: v2 webhook endpoints; Webhook transitions): with
 * the creator's token, the campaign has a webhook of this client with every member trigger (and
 * `posts:publish`) at
 * `$PUBLIC_URL/webhooks/patreon`. GET lists only this client's webhooks; a missing one is
 * POSTed (its secret stored sealed), a wrong uri or trigger set PATCHed. A webhook found paused or
 * failing (`num_consecutive_times_failed > 0`) is logged, counted, and PATCHed `paused: false`, the
 * transition that makes the service send the events it held; a sync of the campaign is queued too,
 * for anything the service dropped.
 */
export function createWebhookRegistration(deps: WebhookRegistrationDeps): WebhookRegistration {
  const { logger, clock } = deps;
  const perCampaign = createKeyedMutex();
  const last = new Map<string, EnsureResult>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | null = null;

  const webhookUri = () => `${typeof deps.publicUrl === 'function' ? deps.publicUrl() : deps.publicUrl}${WEBHOOK_PATH}`;

  /** The campaign's triggers, by its creator's stored scopes ({@link triggersFor}). */
  async function triggersOf(campaignId: string): Promise<readonly string[]> {
    const campaign = await deps.campaigns.get(campaignId);
    const status = campaign ? await deps.credentials.status(campaign.creatorUserId) : null;
    return triggersFor(status?.scopes ?? '');
  }

  async function store(campaignId: string, webhook: Webhook): Promise<void> {
    await deps.webhooks.upsert(
      {
        id: webhook.id,
        campaignId,
        uri: webhook.uri,
        triggers: webhook.triggers,
        secret: webhook.secret,
        paused: webhook.paused,
        numConsecutiveTimesFailed: webhook.numConsecutiveTimesFailed,
        lastAttemptedAt: webhook.lastAttemptedAt ? new Date(webhook.lastAttemptedAt) : null,
      },
      clock.now(),
    );
  }

  /** Prefers the webhook at our uri, then the one we stored last, then the oldest. */
  function choose(listed: Webhook[], stored: StoredWebhook[], uri: string): Webhook | null {
    return listed.find((w) => w.uri === uri) ?? listed.find((w) => stored.some((s) => s.id === w.id)) ?? listed[0] ?? null;
  }

  async function ensureNow(campaignId: string): Promise<EnsureResult> {
    const uri = webhookUri();
    const manual = Boolean(deps.staticSecret);
    const unreachable = manual ? null : unreachableFrom(deps.serviceBaseUrl, uri);
    if (unreachable) {
      logger.warn({ campaignId, uri }, unreachable);
      return { campaignId, state: 'failed', webhook: null, healed: false, detail: unreachable };
    }
    const client = await deps.accounts.clientForCampaign(campaignId);
    if (!client) {
      return { campaignId, state: 'failed', webhook: null, healed: false, detail: `campaign ${campaignId} has no connected creator` };
    }
    const stored = await deps.webhooks.forCampaign(campaignId);
    const triggers = await triggersOf(campaignId);
    const listed = campaignWebhooks(await client.listWebhooks(), campaignId, { knownIds: new Set(stored.map((s) => s.id)), uri });
    let current = choose(listed, stored, uri);

    if (!current) {
      await deps.webhooks.removeOthers(campaignId, []);
      if (manual) {
        return {
          campaignId,
          state: 'manual-secret',
          webhook: null,
          healed: false,
          detail: 'no webhook of this client; deliveries are verified with PATREON_WEBHOOK_SECRET',
        };
      }
      const created = await client.createWebhook({ campaignId, uri, triggers });
      await store(campaignId, created);
      deps.onSecretsChanged?.();
      logger.info({ campaignId, webhookId: created.id, uri }, 'registered the campaign webhook');
      return {
        campaignId,
        state: 'registered',
        webhook: publicView(created),
        healed: false,
        detail: `registered webhook ${created.id} at ${uri}`,
      };
    }

    const unhealthy = current.paused || current.numConsecutiveTimesFailed > 0;
    const patch: { uri?: string; triggers?: readonly string[]; paused?: boolean } = {};
    if (!manual && current.uri !== uri) patch.uri = uri;
    if (!manual && !sameSet(current.triggers, triggers)) patch.triggers = triggers;
    const repointed = patch.uri !== undefined || patch.triggers !== undefined;
    if (unhealthy) {
      const state = current.paused ? 'paused' : 'failing';
      deps.metrics.webhookUnhealthy.inc({ state });
      logger.warn(
        {
          campaignId,
          webhookId: current.id,
          paused: current.paused,
          numConsecutiveTimesFailed: current.numConsecutiveTimesFailed,
          lastAttemptedAt: current.lastAttemptedAt,
        },
        `the campaign webhook is ${state}; re-enabling it so the service sends the events it held, and queueing a sync`,
      );
      patch.paused = false;
      // Recorded as found before re-enabling it: if the service refuses, the dashboard's webhook
      // health says paused or failing (as /doctor does), not the last healthy check.
      await store(campaignId, current);
    }
    if (Object.keys(patch).length > 0) {
      const updated = await client.updateWebhook(current.id, patch);
      current = { ...updated, campaignId, secret: updated.secret || current.secret };
    }
    await store(campaignId, current);
    await deps.webhooks.removeOthers(
      campaignId,
      listed.map((w) => w.id),
    );
    deps.onSecretsChanged?.();
    if (unhealthy) await deps.requestCampaignSync(campaignId, 'webhook was paused or failing');

    const state: EnsureState = manual ? 'manual-secret' : repointed ? 'updated' : 'already-registered';
    const what = [repointed ? `re-pointed at ${uri}` : null, unhealthy ? 're-enabled (was paused or failing)' : null]
      .filter(Boolean)
      .join(', ');
    return {
      campaignId,
      state,
      webhook: publicView(current),
      healed: unhealthy,
      detail: what ? `webhook ${current.id} ${what}` : `webhook ${current.id} is in place`,
    };
  }

  /** The stored webhook, when a check within `withinMs` found it healthy, at our uri, with every trigger. */
  async function recentlyChecked(campaignId: string, withinMs: number): Promise<EnsureResult | null> {
    const [stored] = await deps.webhooks.forCampaign(campaignId);
    if (!stored?.checkedAt || clock.now().getTime() - stored.checkedAt.getTime() >= withinMs) return null;
    const manual = Boolean(deps.staticSecret);
    const inPlace = manual || (stored.uri === webhookUri() && sameSet(stored.triggers, await triggersOf(campaignId)));
    if (!inPlace || stored.paused || stored.numConsecutiveTimesFailed > 0) return null;
    const { checkedAt: _checkedAt, createdAt: _createdAt, ...webhook } = stored;
    return {
      campaignId,
      state: manual ? 'manual-secret' : 'already-registered',
      webhook: { ...webhook, lastAttemptedAt: stored.lastAttemptedAt?.toISOString() ?? null },
      healed: false,
      detail: `webhook ${stored.id} is in place (checked ${Math.round((clock.now().getTime() - stored.checkedAt.getTime()) / 1000)} s ago)`,
    };
  }

  async function ensure(campaignId: string, options: EnsureOptions = {}): Promise<EnsureResult> {
    return perCampaign.run(campaignId, async () => {
      let result: EnsureResult;
      try {
        const fresh = options.freshWithinMs ? await recentlyChecked(campaignId, options.freshWithinMs) : null;
        result = fresh ?? (await ensureNow(campaignId));
      } catch (error) {
        logger.warn({ campaignId, err: error }, 'checking the campaign webhook failed');
        result = {
          campaignId,
          state: 'failed',
          webhook: null,
          healed: false,
          detail: error instanceof Error ? error.message : String(error),
        };
      }
      last.set(campaignId, result);
      return result;
    });
  }

  async function ensureEvery(): Promise<EnsureResult[]> {
    const results: EnsureResult[] = [];
    // Only Patreon's campaigns have a webhook to register (Ko-fi's is set on Ko-fi by the creator).
    for (const campaign of await deps.campaigns.all()) if (campaign.source === 'patreon') results.push(await ensure(campaign.id));
    return results;
  }

  async function ensureAll(): Promise<EnsureResult[]> {
    if (!deps.withLock) return ensureEvery();
    const outcome = await deps.withLock('webhook-registration', ensureEvery);
    return outcome.acquired ? outcome.value : [];
  }

  let soon: NodeJS.Timeout | undefined;
  let stopped = false;

  function recheckSoon(delayMs = OUTAGE_RECHECK_MS): void {
    if (soon || stopped) return;
    soon = setTimeout(() => {
      void (async () => {
        let ok = false;
        try {
          const results = await ensureAll();
          ok = results.every((r) => r.state !== 'failed');
        } catch (error) {
          logger.warn({ err: error }, 'webhook check after an outage failed; trying again');
        }
        soon = undefined;
        if (!ok) recheckSoon(Math.min(delayMs * 2, REGISTRATION_INTERVAL_MS));
      })();
    }, delayMs);
    soon.unref();
  }

  function tick(): void {
    if (running) return;
    running = ensureAll()
      .catch((error) => logger.error({ err: error }, 'webhook registration round failed'))
      .finally(() => {
        running = null;
      });
  }

  return {
    ensure,
    ensureAll,
    webhookUri,
    start(intervalMs = REGISTRATION_INTERVAL_MS) {
      if (timer) return;
      tick();
      timer = setInterval(tick, intervalMs);
      timer.unref();
    },
    recheckSoon,
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      if (soon) clearTimeout(soon);
      timer = undefined;
      soon = undefined;
      await running;
    },
    async health(campaignId) {
      const [stored] = await deps.webhooks.forCampaign(campaignId);
      const lastResult = last.get(campaignId) ?? null;
      return {
        campaignId,
        exists: stored !== undefined,
        webhookId: stored?.id ?? null,
        uri: stored?.uri ?? null,
        paused: stored?.paused ?? null,
        numConsecutiveTimesFailed: stored?.numConsecutiveTimesFailed ?? null,
        lastAttemptedAt: stored?.lastAttemptedAt ?? null,
        checkedAt: stored?.checkedAt ?? null,
        lastState: lastResult?.state ?? null,
        lastDetail: lastResult?.detail ?? null,
        manualSecret: Boolean(deps.staticSecret),
      };
    },
  };
}
