import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Logger } from '../../../shared/logger';
import { boundText } from '../../../shared/bounded-text';
import { type AddressLimiter, type RateLimitRule, createAddressLimiter, createLogSampler, markQuiet } from './rate-limit';

/** Where Ko-fi delivers payments (docs/kofi.md). */
export const KOFI_WEBHOOK_PATH = '/webhooks/kofi';

/** The largest body read: a Ko-fi delivery is a few KiB. */
export const MAX_KOFI_BODY_BYTES = 32 * 1024;

/** What the Ko-fi source made of a delivery's `data` field (src/edges/outbound/kofi/kofi-payments.ts). */
export type KofiReceipt =
  | { status: 200; result: 'stored' | 'duplicate' }
  | { status: 400; result: string; detail: string }
  | { status: 401; result: 'wrong_token' };

export interface KofiEndpointDeps {
  /** Checks the token, stores the payment durably (once per `message_id`) and queues its processing: all before the answer. */
  receive(data: unknown): Promise<KofiReceipt>;
  logger: Logger;
  /** Refused deliveries an address may send before it is refused unread (default 30 a minute). */
  refusedLimit?: RateLimitRule;
  limiterNow?: () => number;
}

/**
 * `POST /webhooks/kofi`: Ko-fi's form body (`data`: its JSON, with the verification token inside).
 * A wrong or missing token gets 401 and nothing is stored; anything but a 200 makes Ko-fi retry, so
 * a 200 is written only once the payment is stored. Bodies are bounded and never inflated; an
 * address that keeps failing is refused unread for a while.
 */
export function createKofiEndpoint(deps: KofiEndpointDeps): Router {
  const router = express.Router();
  const limiter: AddressLimiter = createAddressLimiter(deps.refusedLimit ?? { limit: 30, windowMs: 60_000 }, {
    ...(deps.limiterNow ? { now: deps.limiterNow } : {}),
  });
  const sampler = createLogSampler(30, 60_000, deps.limiterNow);
  const addressOf = (req: Request): string => req.ip ?? req.socket.remoteAddress ?? 'unknown';

  const refuse = (req: Request, res: Response, status: number, error: string, message: string) => {
    limiter.hit(addressOf(req));
    markQuiet(res);
    const sample = sampler.take();
    if (sample) {
      deps.logger.warn(
        {
          source: 'kofi',
          status,
          reason: error,
          remote: boundText(addressOf(req)),
          ...(sample.suppressed > 0 ? { suppressed: sample.suppressed } : {}),
        },
        `Ko-fi delivery refused: ${message}`,
      );
    }
    res.status(status).json({ error, message });
  };

  router.post(
    '/',
    (req: Request, res: Response, next: NextFunction) => {
      const verdict = limiter.check(addressOf(req));
      if (verdict.ok) return next();
      markQuiet(res);
      res
        .status(429)
        .set({ 'Retry-After': String(verdict.retryAfterSeconds), Connection: 'close' })
        .json({ error: 'rate_limited', message: 'Too many refused deliveries from this address; retry later.' });
    },
    express.raw({ type: () => true, limit: MAX_KOFI_BODY_BYTES, inflate: false }),
    async (req: Request, res: Response) => {
      const body: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const data = new URLSearchParams(body.toString('utf8')).get('data');
      let receipt: KofiReceipt;
      try {
        receipt = await deps.receive(data);
      } catch (error) {
        deps.logger.error({ err: error }, 'Ko-fi delivery not stored; answering 503 so Ko-fi retries');
        res.status(503).json({ error: 'unavailable', message: 'The payment could not be stored; retry later.' });
        return;
      }
      if (receipt.status === 401) return refuse(req, res, 401, 'wrong_token', 'The verification token is missing or wrong.');
      if (receipt.status === 400) return refuse(req, res, 400, receipt.result, receipt.detail);
      res.status(200).json({ ok: true, ...(receipt.result === 'duplicate' ? { duplicate: true } : {}) });
    },
  );

  router.all('/', (_req: Request, res: Response) => {
    res.set('Allow', 'POST').status(405).json({ error: 'method_not_allowed', message: 'Deliveries are POSTed.' });
  });

  router.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    const e = (typeof error === 'object' && error !== null ? error : {}) as { type?: unknown };
    if (e.type === 'entity.too.large') return refuse(req, res, 413, 'too_large', `The body is larger than ${MAX_KOFI_BODY_BYTES} bytes.`);
    if (e.type === 'encoding.unsupported') return refuse(req, res, 415, 'compressed_body', 'Compressed bodies are not read.');
    refuse(req, res, 400, 'unreadable_body', 'The body could not be read.');
  });

  return router;
}
