import { TextDecoder } from 'node:util';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { InboxDelivery } from '../../edges/store/repositories/webhook-repository';
import type { Metrics } from '../../edges/observability/metrics';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import { matchWebhookSecret } from './verify-signature';

/** Where the service delivers (CONTRACT.md, HTTP routes); registration builds `$PUBLIC_URL` + this. */
export const WEBHOOK_PATH = '/webhooks/patreon';

/** Bodies above this are refused with 413 before they are read to the end. */
export const MAX_WEBHOOK_BODY_BYTES = 1024 * 1024;

/**
 * Production sends `X-Patreon-Signature`, the spec names `X-Service-Signature` (research/tech-facts.md
 * §8; spec: Events, Delivery §2). Either may carry the signature; a delivery with both is accepted
 * when one of them verifies (each is checked on its own, so neither weakens the other).
 */
export const SIGNATURE_HEADERS = ['x-patreon-signature', 'x-service-signature'] as const;
export const EVENT_HEADER = 'x-patreon-event';

/** One secret a delivery may be signed with, and whose it is. */
export interface WebhookSecret {
  secret: string;
  /** The campaign of the stored webhook; null for PATREON_WEBHOOK_SECRET (a hand-registered webhook). */
  campaignId: string | null;
  webhookId: string | null;
}

export interface WebhookSecretProvider {
  candidates(): Promise<readonly WebhookSecret[]>;
  /**
   * Called when no candidate matched: re-reads the stored secrets (a webhook another instance just
   * registered) and returns them, or null when it re-read too recently or nothing changed.
   */
  refresh?(): Promise<readonly WebhookSecret[] | null>;
}

export interface InboxWriter {
  insertDelivery(delivery: InboxDelivery): Promise<number>;
}

export interface InboxWriterOptions {
  /** Rows per INSERT at most. Default 64. */
  maxBatch?: number;
  /** INSERTs in flight at once (PostgreSQL: more than one connection helps). Default 2. */
  maxInFlight?: number;
}

/**
 * Group commit for the inbox: deliveries verified in the same event-loop turn, or while the INSERTs
 * allowed in flight are busy, share one INSERT (one commit), and each is still answered only after
 * its own row is committed. Alone, a delivery is written on the next turn: no timer, no added wait.
 * A failed batch is retried row by row, so one bad row fails only its own delivery. PGlite takes
 * about 0.5 ms per INSERT, so an INSERT per delivery would hold the receiver near its 1,000/s goal;
 * measured: one row per INSERT about 1,000/s, eight about 5,000/s (npm run bench has the figures).
 */
export function createInboxWriter(
  store: { insertDeliveries(deliveries: readonly InboxDelivery[]): Promise<number[]> },
  options: InboxWriterOptions = {},
): InboxWriter {
  const maxBatch = options.maxBatch ?? 64;
  const maxInFlight = options.maxInFlight ?? 2;
  const waiting: Array<{ delivery: InboxDelivery; resolve(id: number): void; reject(error: unknown): void }> = [];
  let inFlight = 0;

  async function write(batch: typeof waiting): Promise<void> {
    try {
      const ids = await store.insertDeliveries(batch.map((w) => w.delivery));
      if (ids.length !== batch.length) throw new Error(`the inbox INSERT returned ${ids.length} ids for ${batch.length} rows`);
      batch.forEach((w, i) => w.resolve(ids[i]!));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      for (const w of batch) {
        try {
          const [id] = await store.insertDeliveries([w.delivery]);
          w.resolve(id!);
        } catch (single) {
          w.reject(single);
        }
      }
    }
  }

  let scheduled = false;

  function pump(): void {
    while (inFlight < maxInFlight && waiting.length > 0) {
      const batch = waiting.splice(0, maxBatch);
      inFlight += 1;
      void write(batch).finally(() => {
        inFlight -= 1;
        schedule();
      });
    }
  }

  /**
   * Flushes after the current event-loop turn rather than at once: PGlite answers without yielding
   * to I/O, so deliveries already waiting in socket buffers would otherwise never join a batch.
   */
  function schedule(): void {
    if (scheduled || waiting.length === 0) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      pump();
    });
  }

  return {
    insertDelivery(delivery) {
      return new Promise<number>((resolve, reject) => {
        waiting.push({ delivery, resolve, reject });
        schedule();
      });
    },
  };
}

export interface WebhookSecretsOptions {
  /** The stored webhooks' secrets, decrypted (`webhookRepository.secrets`). */
  load(): Promise<ReadonlyArray<{ secret: string; campaignId: string; webhookId: string }>>;
  /** PATREON_WEBHOOK_SECRET, when set. */
  staticSecret?: string | undefined;
  clock: Clock;
  /** How long a loaded list is used without looking again. Default 60 s. */
  ttlMs?: number;
  /** The least time between two re-reads forced by unmatched signatures. Default 1 s. */
  minRefreshIntervalMs?: number;
}

export type WebhookSecrets = WebhookSecretProvider & {
  /** Drops the cached list (registration calls it after storing a new secret). */
  invalidate(): void;
};

/**
 * The receiver's candidate secrets: every stored webhook secret plus PATREON_WEBHOOK_SECRET, cached
 * so a delivery costs no decryption. An unmatched signature may force a re-read, at most once per
 * `minRefreshIntervalMs`, so forged deliveries cannot turn into a database load.
 */
export function createWebhookSecrets(options: WebhookSecretsOptions): WebhookSecrets {
  const ttlMs = options.ttlMs ?? 60_000;
  const minRefreshMs = options.minRefreshIntervalMs ?? 1000;
  const fixed: WebhookSecret[] = options.staticSecret ? [{ secret: options.staticSecret, campaignId: null, webhookId: null }] : [];
  let cached: { at: number; list: readonly WebhookSecret[] } | null = null;
  let loading: Promise<readonly WebhookSecret[]> | null = null;
  let lastLoadAt = Number.NEGATIVE_INFINITY;

  function load(): Promise<readonly WebhookSecret[]> {
    loading ??= (async () => {
      const at = options.clock.now().getTime();
      lastLoadAt = at;
      const stored = await options.load();
      const list = [...stored.map((s) => ({ secret: s.secret, campaignId: s.campaignId, webhookId: s.webhookId })), ...fixed];
      cached = { at, list };
      return list;
    })().finally(() => {
      loading = null;
    });
    return loading;
  }

  const key = (list: readonly WebhookSecret[]) =>
    list
      .map((s) => `${s.webhookId}\u0000${s.secret}`)
      .sort()
      .join('\u0001');

  return {
    async candidates() {
      if (cached && options.clock.now().getTime() - cached.at < ttlMs) return cached.list;
      return load();
    },
    async refresh() {
      if (options.clock.now().getTime() - lastLoadAt < minRefreshMs) return null;
      const before = cached ? key(cached.list) : null;
      const list = await load();
      return key(list) === before ? null : list;
    },
    invalidate() {
      cached = null;
      lastLoadAt = Number.NEGATIVE_INFINITY;
    },
  };
}

export interface WebhookReceiverDeps {
  inbox: InboxWriter;
  secrets: WebhookSecretProvider;
  metrics: Pick<Metrics, 'webhookDeliveries'>;
  logger: Logger;
  clock: Clock;
  /**
   * Called with the inbox id once the 200 has been written, so processing starts at once without
   * delaying the answer (DESIGN.md: durable is not slow). Its failures are logged; the inbox sweep
   * picks the row up anyway.
   */
  onAccepted?(id: number): void | Promise<void>;
}

type Rejection =
  'missing_signature' | 'invalid_signature' | 'campaign_mismatch' | 'not_json' | 'not_json_api' | 'too_large' | 'unreadable_body';

const REJECTIONS: Record<Rejection, { status: number; result: string; message: string }> = {
  missing_signature: {
    status: 401,
    result: 'rejected_signature',
    message: 'The delivery carries no X-Patreon-Signature or X-Service-Signature header.',
  },
  invalid_signature: {
    status: 401,
    result: 'rejected_signature',
    message: 'The signature does not match the body under any webhook secret.',
  },
  campaign_mismatch: {
    status: 403,
    result: 'rejected_signature',
    message: 'The body names a campaign other than the one whose webhook secret signed it.',
  },
  not_json: { status: 400, result: 'rejected_body', message: 'The body is not JSON.' },
  not_json_api: { status: 400, result: 'rejected_body', message: 'The body is not a JSON:API document with a primary resource.' },
  too_large: { status: 413, result: 'too_large', message: `The body is larger than ${MAX_WEBHOOK_BODY_BYTES} bytes.` },
  unreadable_body: { status: 400, result: 'rejected_body', message: 'The body could not be read.' },
};

const utf8 = new TextDecoder('utf-8', { fatal: true });
/** Trigger names look like `members:pledge:update`; anything else is not stored as one. */
const TRIGGER_NAME = /^[a-z_]+(:[a-z_]+){0,3}$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function headerValues(req: Request, name: string): string[] {
  const value = req.headers[name];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** `data.relationships.campaign.data.id` of a delivery body, if present. */
export function payloadCampaignId(doc: unknown): string | null {
  if (!isObject(doc) || !isObject(doc.data)) return null;
  const relationships = doc.data.relationships;
  if (!isObject(relationships) || !isObject(relationships.campaign)) return null;
  const data = relationships.campaign.data;
  return isObject(data) && typeof data.id === 'string' ? data.id : null;
}

/**
 * `POST /webhooks/patreon` (mount the router at {@link WEBHOOK_PATH}). A delivery is verified
 * against the raw bytes before anything reads them, written to the inbox with its trigger and
 * receipt time, and answered 200; nothing calls Discord or the service before that answer.
 *
 * - no signature header, or none that verifies under a candidate secret: 401, nothing stored;
 * - verified, but signed with one campaign's secret while naming another campaign: 403;
 * - verified, but not UTF-8 JSON:API (an empty body included): 400;
 * - larger than 1 MiB: 413, refused on Content-Length before the body is read when it is declared;
 * - the inbox write failed: 503, so the service retries the delivery later.
 *
 * Every answer is JSON (`{ ok: true }` or `{ error, message }`) and counted in
 * `tierlink_webhook_deliveries_total{result}`; every refusal is logged without the signature.
 */
export function createWebhookReceiver(deps: WebhookReceiverDeps): Router {
  const { logger, metrics } = deps;
  const router = express.Router();

  const reject = (req: Request, res: Response, reason: Rejection, extra: Record<string, unknown> = {}): void => {
    const r = REJECTIONS[reason];
    metrics.webhookDeliveries.inc({ result: r.result });
    logger.warn(
      {
        reason,
        status: r.status,
        bytes: Buffer.isBuffer(req.body) ? req.body.length : Number(req.headers['content-length'] ?? 0),
        trigger: req.headers[EVENT_HEADER] ?? null,
        remote: req.ip,
        ...extra,
      },
      `webhook delivery rejected: ${r.message}`,
    );
    res.status(r.status).json({ error: reason, message: r.message });
  };

  async function verify(body: Buffer, signatures: readonly string[]): Promise<WebhookSecret | null> {
    const match = (list: readonly WebhookSecret[]): WebhookSecret | null => {
      for (const signature of signatures) {
        const found = matchWebhookSecret(list, body, signature);
        if (found) return found;
      }
      return null;
    };
    const found = match(await deps.secrets.candidates());
    if (found || !deps.secrets.refresh) return found;
    const fresh = await deps.secrets.refresh();
    return fresh ? match(fresh) : null;
  }

  router.post('/', express.raw({ type: () => true, limit: MAX_WEBHOOK_BODY_BYTES }), async (req: Request, res: Response) => {
    const body: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const signatures = SIGNATURE_HEADERS.flatMap((name) => headerValues(req, name));
    if (signatures.length === 0) return reject(req, res, 'missing_signature');
    const secret = await verify(body, signatures);
    if (!secret) return reject(req, res, 'invalid_signature');

    let text: string;
    let doc: unknown;
    try {
      text = utf8.decode(body);
      doc = JSON.parse(text);
    } catch {
      return reject(req, res, 'not_json');
    }
    if (!isObject(doc) || !isObject(doc.data) || typeof doc.data.type !== 'string' || typeof doc.data.id !== 'string') {
      return reject(req, res, 'not_json_api');
    }
    const named = payloadCampaignId(doc);
    if (secret.campaignId !== null && named !== null && named !== secret.campaignId) {
      return reject(req, res, 'campaign_mismatch', { webhookId: secret.webhookId, campaignId: secret.campaignId, namedCampaignId: named });
    }
    const header = headerValues(req, EVENT_HEADER)[0]?.trim() ?? '';
    const trigger = TRIGGER_NAME.test(header) ? header : null;

    let id: number;
    try {
      id = await deps.inbox.insertDelivery({ receivedAt: deps.clock.now(), trigger, campaignId: secret.campaignId ?? named, body: text });
    } catch (error) {
      metrics.webhookDeliveries.inc({ result: 'failed' });
      logger.error({ err: error, trigger }, 'webhook delivery verified but not stored; answering 503 so the service retries');
      res.status(503).json({ error: 'unavailable', message: 'The delivery could not be stored; retry later.' });
      return;
    }
    metrics.webhookDeliveries.inc({ result: 'accepted' });
    logger.debug({ id, trigger, campaignId: secret.campaignId ?? named, webhookId: secret.webhookId }, 'webhook delivery accepted');
    if (deps.onAccepted) {
      const start = deps.onAccepted;
      let started = false;
      const kick = () => {
        if (started) return;
        started = true;
        Promise.resolve()
          .then(() => start(id))
          .catch((error: unknown) =>
            logger.error({ err: error, id }, 'webhook delivery stored but could not be started; the sweep will take it'),
          );
      };
      res.once('finish', kick);
      res.once('close', kick);
    }
    res.status(200).json({ ok: true });
  });

  router.all('/', (_req: Request, res: Response) => {
    res.set('Allow', 'POST').status(405).json({ error: 'method_not_allowed', message: 'Deliveries are POSTed.' });
  });

  router.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    const e = (isObject(error) ? error : {}) as { type?: unknown; status?: unknown; statusCode?: unknown };
    if (e.type === 'entity.too.large') return reject(req, res, 'too_large');
    const status = typeof e.status === 'number' ? e.status : typeof e.statusCode === 'number' ? e.statusCode : 500;
    if (status >= 400 && status < 500) return reject(req, res, 'unreadable_body', { type: typeof e.type === 'string' ? e.type : null });
    metrics.webhookDeliveries.inc({ result: 'failed' });
    logger.error({ err: error }, 'webhook receiver failed');
    res.status(500).json({ error: 'internal', message: 'The delivery could not be handled; retry later.' });
  });

  return router;
}
