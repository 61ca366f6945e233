import { type KeyObject, createPublicKey, verify } from 'node:crypto';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Clock } from '../../../shared/clock';
import { boundText } from '../../../shared/bounded-text';
import type { Logger } from '../../../shared/logger';
import { type RateLimitRule, createAddressLimiter, createLogSampler, markQuiet } from './rate-limit';

/** Interactions are small JSON documents; anything this large is not one. */
export const MAX_INTERACTION_BODY_BYTES = 256 * 1024;

/**
 * How far the signed timestamp may be from our clock. Discord documents no window
 * (docs/discord-api-notes.md §3); five minutes rejects a replay of an old signed request while tolerating clock drift.
 */
export const SIGNATURE_MAX_AGE_SECONDS = 300;

/** The application's Ed25519 public key, as the Developer Portal shows it (64 hex digits). */
export function interactionKey(publicKeyHex: string): KeyObject {
  return createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKeyHex, 'hex').toString('base64url') },
    format: 'jwk',
  });
}

/** Discord's signature over `timestamp + raw body`, checked against the public key, and the timestamp's age. */
export function verifyInteraction(
  key: KeyObject,
  headers: { signature: string | undefined; timestamp: string | undefined },
  raw: Buffer,
  nowMs: number,
): 'ok' | 'missing' | 'invalid' | 'stale' {
  const { signature, timestamp } = headers;
  if (!signature || !timestamp) return 'missing';
  if (!/^[0-9a-fA-F]{128}$/.test(signature) || !/^\d{1,12}$/.test(timestamp)) return 'invalid';
  const signed = Buffer.concat([Buffer.from(timestamp, 'utf8'), raw]);
  if (!verify(null, signed, key, Buffer.from(signature, 'hex'))) return 'invalid';
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > SIGNATURE_MAX_AGE_SECONDS) return 'stale';
  return 'ok';
}

export interface InteractionsEndpointDeps {
  /** DISCORD_PUBLIC_KEY. */
  publicKeyHex: string;
  /** Hands a verified interaction (not a PING) to the bot; returns at once. */
  handle(payload: Record<string, unknown>): void;
  /**
   * Takes the interaction's id for this instance: false when it was taken before (a replay of the
   * signed request, which the signature's five minutes allow; docs/outages-and-fencing.md). Every
   * instance shares the record, so a replay sent to another instance behind the balancer is refused too.
   */
  claim?(interactionId: string): Promise<boolean>;
  clock: Clock;
  logger: Logger;
  /** Requests refused before a signature verified, allowed per address before 429 unread. Default 30 a minute. */
  unverifiedLimit?: RateLimitRule;
  /** The clock of the limit's and the log sampler's windows (real time unless a test says otherwise). */
  limiterNow?: () => number;
}

/** Unverified requests (bad or stale signature, too large, compressed) an address may send a minute. */
export const UNVERIFIED_INTERACTIONS_LIMIT: RateLimitRule = { limit: 30, windowMs: 60_000 };

/**
 * `POST /interactions` (docs/contract.md, second round): Discord's HTTP interactions. The signature
 * is checked over the raw bytes (never re-serialized JSON) and a bad or stale one is answered 401,
 * as Discord's routine checks require; a PING is answered `{"type":1}`; any other interaction goes to
 * the bot's router, which answers through the callback route, so the request itself is answered 202
 * with no body (docs/discord-api-notes.md §3). Any instance can take it.
 *
 * As the webhook receiver: a compressed body is refused 415 unread (the signature covers the bytes
 * sent); requests refused before a signature verified count against their address, which past
 * {@link UNVERIFIED_INTERACTIONS_LIMIT} is answered 429 unread until its window ends; refusals stay
 * out of the access log and are logged at most 30 lines a minute, outside text cut.
 */
export function createInteractionsEndpoint(deps: InteractionsEndpointDeps): Router {
  const key = interactionKey(deps.publicKeyHex);
  const router = express.Router();
  const limiter = createAddressLimiter(deps.unverifiedLimit ?? UNVERIFIED_INTERACTIONS_LIMIT, {
    ...(deps.limiterNow ? { now: deps.limiterNow } : {}),
  });
  const sampler = createLogSampler(30, 60_000, deps.limiterNow);
  const addressOf = (req: Request): string => req.ip ?? req.socket.remoteAddress ?? 'unknown';

  /** A refusal before the signature verified: counted against the address, logged sampled. */
  const refuse = (req: Request, res: Response, status: number, reason: string, error: string): void => {
    limiter.hit(addressOf(req));
    markQuiet(res);
    const sample = sampler.take();
    if (sample) {
      deps.logger.warn(
        { reason, status, remote: boundText(addressOf(req)), ...(sample.suppressed > 0 ? { suppressed: sample.suppressed } : {}) },
        'interaction refused',
      );
    }
    res.status(status).json({ error });
  };

  router.post(
    '/',
    (req: Request, res: Response, next: NextFunction) => {
      const verdict = limiter.check(addressOf(req));
      if (verdict.ok) return next();
      markQuiet(res);
      const sample = verdict.first ? sampler.take() : null;
      if (sample) deps.logger.warn({ remote: boundText(addressOf(req)) }, 'too many refused interactions from one address: refused unread');
      res
        .status(429)
        .set({ 'Retry-After': String(verdict.retryAfterSeconds), Connection: 'close' })
        .json({ error: 'too many refused requests from this address' });
    },
    (req: Request, res: Response, next: NextFunction) => {
      const encoding = (req.get('Content-Encoding') ?? 'identity').trim().toLowerCase();
      if (encoding === 'identity') return next();
      refuse(req, res, 415, 'compressed_body', 'the body is compressed; send it as signed, uncompressed');
    },
    express.raw({ type: () => true, limit: MAX_INTERACTION_BODY_BYTES, inflate: false }),
    async (req: Request, res: Response) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const verdict = verifyInteraction(
        key,
        { signature: req.get('X-Signature-Ed25519'), timestamp: req.get('X-Signature-Timestamp') },
        raw,
        deps.clock.now().getTime(),
      );
      if (verdict !== 'ok') {
        refuse(req, res, 401, `${verdict}_signature`, 'invalid request signature');
        return;
      }
      let payload: unknown;
      try {
        payload = JSON.parse(raw.toString('utf8'));
      } catch {
        res.status(400).json({ error: 'the body is not JSON' });
        return;
      }
      if (
        typeof payload !== 'object' ||
        payload === null ||
        Array.isArray(payload) ||
        typeof (payload as { type?: unknown }).type !== 'number'
      ) {
        res.status(400).json({ error: 'the body is not an interaction' });
        return;
      }
      const interaction = payload as Record<string, unknown>;
      if (interaction.type === 1) {
        res.status(200).json({ type: 1 });
        return;
      }
      if (typeof interaction.id !== 'string' || !/^\d{1,20}$/.test(interaction.id)) {
        res.status(400).json({ error: 'the interaction has no id' });
        return;
      }
      if (deps.claim) {
        let first: boolean;
        try {
          first = await deps.claim(interaction.id);
        } catch (error) {
          // The database is away: the interaction is answered as it can be (most commands say so).
          deps.logger.warn({ err: error }, 'the interaction could not be recorded; handling it anyway');
          first = true;
        }
        if (!first) {
          refuse(req, res, 409, 'replayed', 'this interaction was received before');
          return;
        }
      }
      deps.handle(interaction);
      res.status(202).end();
    },
    (error: unknown, req: Request, res: Response, next: NextFunction) => {
      const status = (error as { status?: unknown }).status;
      if (status === 413) {
        refuse(req, res, 413, 'too_large', `the body is larger than ${MAX_INTERACTION_BODY_BYTES} bytes`);
        return;
      }
      if (typeof status === 'number' && status >= 400 && status < 500) {
        refuse(req, res, 400, 'unreadable_body', 'the body could not be read');
        return;
      }
      next(error);
    },
  );
  return router;
}
