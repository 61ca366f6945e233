import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Delivery signatures (spec: Events, Delivery §2; docs/tech-facts.md §8): the lower-case hex
 * digest of HMAC-MD5 over the exact body bytes, keyed with the webhook's `secret`. Verified the
 * way octokit/webhooks-methods does it: sign the raw bytes (never
 * re-serialized JSON), check the length, then compare with `timingSafeEqual`.
 */

function requireArguments(secret: unknown, body: unknown): void {
  if (typeof secret !== 'string' || secret === '') throw new TypeError('[webhooks] a secret is required to sign or verify a delivery');
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) throw new TypeError('[webhooks] the raw body must be a string or bytes');
}

/** The signature the service sends with `body`. A string body is signed as its UTF-8 bytes. */
export function signWebhookBody(secret: string, body: Uint8Array | string): string {
  requireArguments(secret, body);
  return createHmac('md5', secret)
    .update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body)
    .digest('hex');
}

/**
 * True when `signature` is the hex HMAC-MD5 of `body` under `secret`. Hex is case-insensitive;
 * anything else (a truncated or padded value, a missing one) is false, never an exception.
 */
export function verifyWebhookSignature(secret: string, body: Uint8Array | string, signature: string | null | undefined): boolean {
  requireArguments(secret, body);
  if (typeof signature !== 'string') return false;
  const given = Buffer.from(signature.toLowerCase(), 'utf8');
  const expected = Buffer.from(signWebhookBody(secret, body), 'utf8');
  if (given.length !== expected.length) return false;
  return timingSafeEqual(given, expected);
}

/**
 * The first candidate whose secret signed `body` as `signature`, or null. Several campaigns may
 * each have a webhook with its own secret, and the body's campaign cannot be trusted before the
 * signature is, so every candidate is tried (octokit's `verifyWithFallback`, generalised). Every
 * candidate is computed even after a match, so the time taken does not say which one matched.
 */
export function matchWebhookSecret<T extends { secret: string }>(
  candidates: readonly T[],
  body: Uint8Array | string,
  signature: string | null | undefined,
): T | null {
  let found: T | null = null;
  for (const candidate of candidates) {
    if (verifyWebhookSignature(candidate.secret, body, signature) && found === null) found = candidate;
  }
  return found;
}
