import { type KeyObject, createPublicKey, verify } from 'node:crypto';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';

/** Interactions are small JSON documents; anything this large is not one. */
export const MAX_INTERACTION_BODY_BYTES = 256 * 1024;

/**
 * How far the signed timestamp may be from our clock. Discord documents no window (docs/discord-
 * api-notes.md §3); five minutes rejects a replay of an old signed request while tolerating clock drift.
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
  clock: Clock;
  logger: Logger;
}

/**
 * `POST /interactions` (docs/contract.md, second round): Discord's HTTP interactions. The signature
 * is checked over the raw bytes (never re-serialized JSON) and a bad or stale one is answered 401,
 * as Discord's routine checks require; a PING is answered `{"type":1}`; any other interaction goes to
 * the bot's router, which answers through the callback route, so the request itself is answered 202
 * with no body (docs/discord-api-notes.md §3). Any instance can take it.
 */
export function createInteractionsEndpoint(deps: InteractionsEndpointDeps): Router {
  const key = interactionKey(deps.publicKeyHex);
  const router = express.Router();
  router.post(
    '/',
    express.raw({ type: () => true, limit: MAX_INTERACTION_BODY_BYTES }),
    (req: Request, res: Response) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const verdict = verifyInteraction(
        key,
        { signature: req.get('X-Signature-Ed25519'), timestamp: req.get('X-Signature-Timestamp') },
        raw,
        deps.clock.now().getTime(),
      );
      if (verdict !== 'ok') {
        deps.logger.warn({ verdict }, 'interaction refused: bad request signature');
        res.status(401).json({ error: 'invalid request signature' });
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
      deps.handle(interaction);
      res.status(202).end();
    },
    (error: unknown, _req: Request, res: Response, next: NextFunction) => {
      const status = (error as { status?: unknown }).status;
      if (status === 413) {
        res.status(413).json({ error: `the body is larger than ${MAX_INTERACTION_BODY_BYTES} bytes` });
        return;
      }
      next(error);
    },
  );
  return router;
}
