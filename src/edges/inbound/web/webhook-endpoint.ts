import { createHash } from 'node:crypto';
import { TextDecoder } from 'node:util';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { EVENT_HEADER, MAX_WEBHOOK_BODY_BYTES, SIGNATURE_HEADERS, payloadCampaignId } from '../../../app/webhooks/delivery';
import type { InboxWriter } from '../../../app/webhooks/inbox-writer';
import { matchWebhookSecret } from '../../../app/webhooks/verify-signature';
import type { WebhookSecret, WebhookSecretProvider } from '../../../app/webhooks/webhook-secrets';
import type { Metrics } from '../../outbound/observability/metrics';
import type { Clock } from '../../../shared/clock';
import { boundText } from '../../../shared/bounded-text';
import type { Logger } from '../../../shared/logger';
import { type AddressLimiter, type RateLimitRule, createAddressLimiter, createLogSampler, markQuiet } from './rate-limit';

export interface WebhookEndpointDeps {
  inbox: InboxWriter;
  secrets: WebhookSecretProvider;
  metrics: Pick<Metrics, 'webhookDeliveries'>;
  logger: Logger;
  clock: Clock;
  /**
   * Called with the inbox id once the 200 has been written, so processing starts at once without
   * delaying the answer (docs/architecture.md: durable is not slow). Its failures are logged; the inbox sweep
   * picks the row up anyway.
   */
  onAccepted?(id: number): void | Promise<void>;
  /** Called after a 503 (the database is away): the webhooks are checked again soon, since Patreon may pause one. */
  onUnavailable?(): void;
  /**
   * Failed deliveries (no or a wrong signature, an unreadable or compressed body) allowed per address
   * before its requests are refused with 429 unread. Default 30 a minute.
   */
  unverifiedLimit?: RateLimitRule;
  /** The clock of the limit's windows (real time unless a test says otherwise). */
  limiterNow?: () => number;
}

/**
 * Failed deliveries an address may send a minute before it is refused unread. The budget is checked
 * before the body is read and counted once the signature has failed, so requests from that address
 * already being read when the budget runs out still finish: at most `limit` plus the address's
 * requests in flight at that moment are verified.
 */
export const UNVERIFIED_LIMIT: RateLimitRule = { limit: 30, windowMs: 60_000 };

type Rejection =
  | 'missing_signature'
  | 'invalid_signature'
  | 'campaign_mismatch'
  | 'not_json'
  | 'not_json_api'
  | 'too_large'
  | 'unreadable_body'
  | 'compressed_body';

/** Refusals that come before a signature verified: they count against the address's budget. */
const UNVERIFIED: ReadonlySet<Rejection> = new Set([
  'missing_signature',
  'invalid_signature',
  'too_large',
  'unreadable_body',
  'compressed_body',
]);

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
  compressed_body: {
    status: 415,
    result: 'rejected_body',
    message: 'The body is compressed (Content-Encoding); deliveries are verified over the bytes sent and must be sent uncompressed.',
  },
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

/** What a 503 asks the sender to wait: the database is usually back within seconds, Patreon retries on its own schedule anyway. */
export const RETRY_AFTER_SECONDS = 30;

/**
 * `POST /webhooks/patreon` (mount the router at `WEBHOOK_PATH`, src/app/webhooks/delivery.ts). A
 * delivery is verified against the bytes on the wire before anything reads them (a compressed body
 * is refused, never inflated before it is trusted), written to the inbox with its trigger and
 * receipt time, and answered 200; nothing calls Discord or the service before that answer.
 *
 * - no signature header, or none that verifies under a candidate secret: 401, nothing stored;
 * - verified, but signed with one campaign's secret while naming another campaign: 403;
 * - verified, but not UTF-8 JSON:API (an empty body included): 400;
 * - larger than 1 MiB: 413, refused on Content-Length before the body is read when it is declared;
 * - compressed (`Content-Encoding` other than identity): 415, unread;
 * - a replay (its body was seen within 7 days): 200, and it re-arms the row holding those bytes (no
 *   new row): the same bytes can be a change and its undoing, so none is dropped unread; the
 *   processor reads the service only when the body could change a role;
 * - an address past its budget of failed deliveries ({@link UNVERIFIED_LIMIT}): 429, unread;
 * - the database is away (the secrets cannot be read, or the inbox write failed): 503 with
 *   `Retry-After`, so the service retries the delivery later; never 500, which says the delivery
 *   itself is at fault.
 *
 * Every answer is JSON (`{ ok: true }` or `{ error, message }`) and counted in
 * `tierlink_webhook_deliveries_total{result}`. Refusals are logged without the signature, outside
 * text cut to 200 characters, at most 30 lines a minute (the next line says how many were left
 * out), and stay out of the access log: a flood of forged deliveries costs no database write and a
 * bounded amount of log.
 */
export function createWebhookEndpoint(deps: WebhookEndpointDeps): Router {
  const { logger, metrics } = deps;
  const router = express.Router();
  const limiter: AddressLimiter = createAddressLimiter(deps.unverifiedLimit ?? UNVERIFIED_LIMIT, {
    ...(deps.limiterNow ? { now: deps.limiterNow } : {}),
  });
  const sampler = createLogSampler(30, 60_000, deps.limiterNow);
  const limitedSampler = createLogSampler(10, 60_000, deps.limiterNow);
  const addressOf = (req: Request): string => req.ip ?? req.socket.remoteAddress ?? 'unknown';

  const reject = (req: Request, res: Response, reason: Rejection, extra: Record<string, unknown> = {}): void => {
    const r = REJECTIONS[reason];
    metrics.webhookDeliveries.inc({ result: r.result });
    if (UNVERIFIED.has(reason)) limiter.hit(addressOf(req));
    markQuiet(res);
    const sample = sampler.take();
    if (sample) {
      logger.warn(
        {
          reason,
          status: r.status,
          bytes: Buffer.isBuffer(req.body) ? req.body.length : Number(req.headers['content-length'] ?? 0) || 0,
          trigger: req.headers[EVENT_HEADER] === undefined ? null : boundText(req.headers[EVENT_HEADER]),
          remote: boundText(addressOf(req)),
          ...(sample.suppressed > 0 ? { suppressed: sample.suppressed } : {}),
          ...extra,
        },
        `webhook delivery rejected: ${r.message}`,
      );
    }
    res.status(r.status).json({ error: reason, message: r.message });
  };

  /** An address past its budget of failed deliveries is refused before its body is read. */
  function limitUnverified(req: Request, res: Response, next: NextFunction): void {
    const verdict = limiter.check(addressOf(req));
    if (verdict.ok) return next();
    metrics.webhookDeliveries.inc({ result: 'rate_limited' });
    markQuiet(res);
    const sample = verdict.first ? limitedSampler.take() : null;
    if (sample) {
      logger.warn(
        {
          remote: boundText(addressOf(req)),
          retryAfterSeconds: verdict.retryAfterSeconds,
          ...(sample.suppressed > 0 ? { suppressed: sample.suppressed } : {}),
        },
        'too many failed webhook deliveries from one address: its requests are refused unread until the window ends',
      );
    }
    res
      .status(429)
      .set({ 'Retry-After': String(verdict.retryAfterSeconds), Connection: 'close' })
      .json({ error: 'rate_limited', message: 'Too many failed deliveries from this address; retry later.' });
  }

  /** The database is away: the sender is asked to come back, the delivery is not at fault. */
  const unavailable = (res: Response, error: unknown, what: string, trigger: string | null): void => {
    metrics.webhookDeliveries.inc({ result: 'failed' });
    logger.error({ err: error, trigger }, `webhook delivery ${what}; answering 503 so the service retries`);
    deps.onUnavailable?.();
    res
      .status(503)
      .set('Retry-After', String(RETRY_AFTER_SECONDS))
      .json({ error: 'unavailable', message: 'The delivery could not be stored; retry later.' });
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

  router.post(
    '/',
    limitUnverified,
    express.raw({ type: () => true, limit: MAX_WEBHOOK_BODY_BYTES, inflate: false }),
    async (req: Request, res: Response) => {
      const body: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const signatures = SIGNATURE_HEADERS.flatMap((name) => headerValues(req, name));
      if (signatures.length === 0) return reject(req, res, 'missing_signature');
      let secret: WebhookSecret | null;
      try {
        secret = await verify(body, signatures);
      } catch (error) {
        const header = headerValues(req, EVENT_HEADER)[0]?.trim() ?? '';
        return unavailable(res, error, 'not verified: the webhook secrets could not be read', TRIGGER_NAME.test(header) ? header : null);
      }
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
        return reject(req, res, 'campaign_mismatch', {
          webhookId: secret.webhookId,
          campaignId: secret.campaignId,
          namedCampaignId: named,
        });
      }
      const header = headerValues(req, EVENT_HEADER)[0]?.trim() ?? '';
      const trigger = TRIGGER_NAME.test(header) ? header : null;

      let id: number | null;
      const bodyHash = createHash('sha256').update(body).digest('hex');
      try {
        id = await deps.inbox.insertDelivery({
          receivedAt: deps.clock.now(),
          trigger,
          campaignId: secret.campaignId ?? named,
          body: text,
          bodyHash,
        });
      } catch (error) {
        return unavailable(res, error, 'verified but not stored', trigger);
      }
      if (id === null) {
        // No row holds the delivery (the store answered none): acknowledged, left to the nightly sync.
        metrics.webhookDeliveries.inc({ result: 'replay' });
        logger.debug({ trigger, bodyHash, webhookId: secret.webhookId }, 'webhook delivery is a replay; acknowledged and dropped');
        res.status(200).json({ ok: true, replay: true });
        return;
      }
      const accepted = id;
      metrics.webhookDeliveries.inc({ result: 'accepted' });
      logger.debug(
        { id: accepted, trigger, campaignId: secret.campaignId ?? named, webhookId: secret.webhookId },
        'webhook delivery accepted',
      );
      if (deps.onAccepted) {
        const start = deps.onAccepted;
        let started = false;
        const kick = () => {
          if (started) return;
          started = true;
          Promise.resolve()
            .then(() => start(accepted))
            .catch((error: unknown) =>
              logger.error({ err: error, id: accepted }, 'webhook delivery stored but could not be started; the sweep will take it'),
            );
        };
        res.once('finish', kick);
        res.once('close', kick);
      }
      res.status(200).json({ ok: true });
    },
  );

  router.all('/', (_req: Request, res: Response) => {
    res.set('Allow', 'POST').status(405).json({ error: 'method_not_allowed', message: 'Deliveries are POSTed.' });
  });

  router.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    const e = (isObject(error) ? error : {}) as { type?: unknown; status?: unknown; statusCode?: unknown };
    if (e.type === 'entity.too.large') return reject(req, res, 'too_large');
    if (e.type === 'encoding.unsupported') return reject(req, res, 'compressed_body');
    const status = typeof e.status === 'number' ? e.status : typeof e.statusCode === 'number' ? e.statusCode : 500;
    if (status >= 400 && status < 500) return reject(req, res, 'unreadable_body', { type: typeof e.type === 'string' ? e.type : null });
    metrics.webhookDeliveries.inc({ result: 'failed' });
    logger.error({ err: error }, 'webhook receiver failed');
    markQuiet(res);
    res.status(500).json({ error: 'internal', message: 'The delivery could not be handled; retry later.' });
  });

  return router;
}
