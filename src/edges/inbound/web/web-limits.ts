import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { boundText } from '../../../shared/bounded-text';
import type { Logger } from '../../../shared/logger';
import { type RateLimitRule, createAddressLimiter, createLogSampler } from './rate-limit';

/** Per-address budgets of the public routes a person opens in a browser. */
export interface WebLimits {
  /** `/link/…` and `/connect/…` together: a person follows one link, maybe twice. */
  links: RateLimitRule;
  /** `/oauth/callback`: one per authorization. */
  callback: RateLimitRule;
  /** `/dashboard` and everything below it (pages and their assets). */
  dashboard: RateLimitRule;
  /** `/join/…`: a join page, its button, Discord's answer (three per visit). */
  join: RateLimitRule;
}

const MINUTE = 60_000;

/** The budgets, with `overrides` in place of the defaults it names. */
export function webLimits(overrides: Partial<WebLimits> = {}): WebLimits {
  return {
    links: { limit: 60, windowMs: MINUTE },
    callback: { limit: 60, windowMs: MINUTE },
    dashboard: { limit: 300, windowMs: MINUTE },
    join: { limit: 120, windowMs: MINUTE },
    ...overrides,
  };
}

/**
 * Middleware that refuses an address past its budget with `refuse` (a 429 page) and `Retry-After`.
 * The address is express's `req.ip`: the socket's, or the client named by a proxy the app trusts
 * (`trust proxy`), never a header a client wrote directly. Logged once per address and window, at
 * most 10 lines a minute.
 */
export function limitPerAddress(
  rule: RateLimitRule,
  options: { name: string; logger: Logger; now?: (() => number) | undefined; refuse(res: Response): void },
): RequestHandler {
  const limiter = createAddressLimiter(rule, options.now ? { now: options.now } : {});
  // One line per address and window, and at most 10 such lines a minute however many addresses.
  const sampler = createLogSampler(10, 60_000, options.now);
  return (req: Request, res: Response, next: NextFunction) => {
    const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const verdict = limiter.take(address);
    if (verdict.ok) return next();
    const sample = verdict.first ? sampler.take() : null;
    if (sample) {
      options.logger.warn(
        {
          remote: boundText(address),
          route: options.name,
          limit: rule.limit,
          retryAfterSeconds: verdict.retryAfterSeconds,
          ...(sample.suppressed > 0 ? { suppressed: sample.suppressed } : {}),
        },
        'too many requests from one address: refused until its window ends',
      );
    }
    res.set({ 'Retry-After': String(verdict.retryAfterSeconds), Connection: 'close' });
    options.refuse(res);
  };
}
