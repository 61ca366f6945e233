import { createHmac } from 'node:crypto';
import type { Logger } from '../support/logger';
import type { Store } from './store';
import type { DeliveryRecord, WebhookRecord } from './types';

export type SignatureHeader = 'X-Patreon-Signature' | 'X-Service-Signature';

/**
 * Spec: Delivery §2 (`X-Service-Signature`) and production (`X-Patreon-Signature`, research §8):
 * the hex digest of HMAC-MD5 over the exact body bytes, keyed with the webhook's secret.
 */
export function signBody(secret: string, body: string): string {
  return createHmac('md5', secret).update(Buffer.from(body, 'utf8')).digest('hex');
}

export interface RawDeliveryInput {
  webhookId: string;
  trigger: string;
  /** Sent byte for byte; an object is JSON-stringified first. */
  body: string | object;
  /** The signature to send; default: the correct one. `null` sends no signature header. */
  signature?: string | null;
  /** Defaults to the webhook's current uri. */
  uri?: string;
}

export interface WebhookDeliveryOptions {
  store: Store;
  logger: Logger;
  signatureHeaders: readonly SignatureHeader[];
  pauseAfterFailures: number;
  timeoutMs?: number;
}

export type WebhookDelivery = ReturnType<typeof createWebhookDelivery>;

/**
 * Delivers events to webhooks, one queue per webhook, in order. A failed attempt (connection
 * error or non-2xx) leaves the event at the head of the queue and counts a consecutive failure;
 * at `pauseAfterFailures` the webhook pauses. While a webhook fails, each new event triggers one
 * retry of the oldest queued event instead of being sent ahead of it; while paused nothing is
 * sent until the owning client PATCHes `paused: false`, which replays the queue in order
 * (spec: States, Webhook transitions; docs/tech-facts.md §8). The service's hour-scale retry
 * schedule is not simulated; `retry(id)` stands in for one scheduled retry.
 */
export function createWebhookDelivery(options: WebhookDeliveryOptions) {
  const { store, logger } = options;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const log: DeliveryRecord[] = [];
  const inFlight = new Set<Promise<unknown>>();
  const draining = new Set<string>();
  const closing = new AbortController();
  let counter = 0;

  const track = <T>(promise: Promise<T>): Promise<T> => {
    inFlight.add(promise);
    void promise.finally(() => inFlight.delete(promise)).catch(() => undefined);
    return promise;
  };

  async function post(
    webhook: WebhookRecord,
    input: { trigger: string; body: string; signature: string | null; uri: string; kind: DeliveryRecord['kind'] },
  ): Promise<DeliveryRecord> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'Tierlink-Sandbox-Membership-Service/1.0',
      'X-Patreon-Event': input.trigger,
    };
    if (input.signature !== null) for (const name of options.signatureHeaders) headers[name] = input.signature;
    const at = store.clock.now();
    if (input.kind === 'queue') webhook.lastAttemptedAt = at;
    let status: number | null = null;
    let error: string | null = null;
    try {
      const res = await fetch(input.uri, {
        method: 'POST',
        headers,
        body: input.body,
        signal: AbortSignal.any([closing.signal, AbortSignal.timeout(timeoutMs)]),
      });
      status = res.status;
      await res.arrayBuffer().catch(() => undefined);
    } catch (e) {
      // Duck-typed: fetch errors may come from another realm, where instanceof Error fails.
      error = typeof e === 'object' && e !== null && 'message' in e ? String(e.message) : String(e);
    }
    const record: DeliveryRecord = {
      id: `delivery-${++counter}`,
      webhookId: webhook.id,
      uri: input.uri,
      trigger: input.trigger,
      status,
      ok: status !== null && status >= 200 && status < 300,
      error,
      at: at.toISOString(),
      body: input.body,
      signature: input.signature ?? '',
      headers,
      kind: input.kind,
    };
    log.push(record);
    logger.debug({ webhookId: webhook.id, trigger: input.trigger, status, kind: input.kind }, 'sandbox webhook delivery');
    return record;
  }

  async function drain(webhook: WebhookRecord): Promise<void> {
    draining.add(webhook.id);
    let lastOk = true;
    try {
      while (webhook.queue.length > 0 && !webhook.paused && !closing.signal.aborted) {
        const event = webhook.queue[0];
        if (!event) break;
        const result = await post(webhook, {
          trigger: event.trigger,
          body: event.body,
          signature: signBody(webhook.secret, event.body),
          uri: webhook.uri,
          kind: 'queue',
        });
        lastOk = result.ok;
        if (result.ok) {
          webhook.queue.shift();
          webhook.numConsecutiveTimesFailed = 0;
        } else {
          webhook.numConsecutiveTimesFailed += 1;
          if (webhook.numConsecutiveTimesFailed >= options.pauseAfterFailures) webhook.paused = true;
          break;
        }
      }
    } finally {
      draining.delete(webhook.id);
    }
    // An unpause or a new event that arrived during the last attempt finds the queue here.
    if (lastOk && webhook.queue.length > 0 && !webhook.paused && !closing.signal.aborted) kick(webhook);
  }

  function kick(webhook: WebhookRecord): void {
    if (webhook.paused || draining.has(webhook.id) || webhook.queue.length === 0) return;
    void track(drain(webhook));
  }

  function requireWebhook(id: string): WebhookRecord {
    const webhook = store.webhooks.get(id);
    if (!webhook) throw new Error(`no webhook ${id}`);
    return webhook;
  }

  return {
    /**
     * Queues an event for every webhook of the campaign subscribed to `trigger`; sends at once. Data
     * beyond the scopes the creator granted the webhook's client is not sent (spec: Delivery §3;
     * docs/patreon-api-notes.md §5.3): a post event goes only to clients holding `campaigns.posts`.
     */
    emit(campaignId: string, trigger: string, body: () => string): number {
      let text: string | null = null;
      let count = 0;
      const creatorId = store.campaigns.get(campaignId)?.creatorId;
      for (const webhook of store.webhooks.values()) {
        if (webhook.campaignId !== campaignId || !webhook.triggers.includes(trigger)) continue;
        if (trigger.startsWith('posts:') && (!creatorId || !store.grantedScopes(webhook.clientId, creatorId).has('campaigns.posts'))) {
          continue;
        }
        text ??= body();
        webhook.queue.push({ trigger, body: text, createdAt: store.clock.now() });
        count += 1;
        kick(webhook);
      }
      return count;
    },

    /** After PATCH paused=false: the count resets and the queue is replayed in order. */
    resume(webhook: WebhookRecord): void {
      webhook.paused = false;
      webhook.numConsecutiveTimesFailed = 0;
      kick(webhook);
    },

    /** One retry of the oldest queued event, as the service's retry schedule would do. */
    retry(webhookId: string): void {
      kick(requireWebhook(webhookId));
    },

    /** Pauses as if the failure threshold was reached; later events queue. */
    pause(webhookId: string): void {
      const webhook = requireWebhook(webhookId);
      webhook.paused = true;
      webhook.numConsecutiveTimesFailed = Math.max(webhook.numConsecutiveTimesFailed, options.pauseAfterFailures);
    },

    deliveries: (): DeliveryRecord[] => log.map((d) => ({ ...d, headers: { ...d.headers } })),

    clearDeliveries(): void {
      log.length = 0;
    },

    /** Resolves when every delivery started so far (and any they started) has settled. */
    async flush(): Promise<void> {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },

    /** Sends a past delivery again, byte for byte (a duplicate); the queue is not touched. */
    redeliver(deliveryId: string, overrides: { signature?: string | null; uri?: string } = {}): Promise<DeliveryRecord> {
      const past = log.find((d) => d.id === deliveryId);
      if (!past) return Promise.reject(new Error(`no delivery ${deliveryId}`));
      const webhook = requireWebhook(past.webhookId);
      return track(
        post(webhook, {
          trigger: past.trigger,
          body: past.body,
          signature: overrides.signature !== undefined ? overrides.signature : signBody(webhook.secret, past.body),
          uri: overrides.uri ?? past.uri,
          kind: 'redeliver',
        }),
      );
    },

    /** Sends any body to a webhook's uri, signed with its secret unless a signature is given. */
    deliverRaw(input: RawDeliveryInput): Promise<DeliveryRecord> {
      const webhook = requireWebhook(input.webhookId);
      const body = typeof input.body === 'string' ? input.body : JSON.stringify(input.body);
      return track(
        post(webhook, {
          trigger: input.trigger,
          body,
          signature: input.signature !== undefined ? input.signature : signBody(webhook.secret, body),
          uri: input.uri ?? webhook.uri,
          kind: 'raw',
        }),
      );
    },

    close(): void {
      closing.abort();
    },
  };
}
