import { boundText } from '../../../shared/bounded-text';
import type { Clock, Random, Sleep } from '../../../shared/clock';
import type { Logger } from '../../../shared/logger';
import type { PatreonErrorKind, ServiceErrorEntry } from './errors';
import { PatreonApiError, kindForStatus } from './errors';
import type { RequestBudget, RequestPriority } from './request-budget';
import { tokenKeyOf } from './request-budget';

/**
 * Bounds on waiting. The spec names 429, 500 and 503 as "retry later" (Errors) but gives no
 * quota (Limits); Patreon publishes one, which the request budget paces to (`request-budget.ts`),
 * but its numbers moved three times in 2024 (docs/patreon-api-notes.md §6), so a 429 that comes
 * anyway is obeyed as `Retry-After` (or `retry_after_seconds`) says, within these caps.
 */
export interface RetryPolicy {
  /** Attempts for 5xx, network errors and timeouts, the first included. */
  maxAttempts: number;
  /** First back-off ceiling; it doubles per failure (full jitter: a uniform wait below it). */
  baseDelayMs: number;
  maxDelayMs: number;
  /** How many 429s one request may wait out. */
  maxRateLimitWaits: number;
  /** A 429 asking for a longer wait than this fails at once with `rate_limited`. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRateLimitWaits: 3,
  maxRetryAfterMs: 60_000,
};

export const DEFAULT_TIMEOUT_MS = 20_000;

/** Reported once per HTTP attempt, for call counting and metrics. */
export interface RequestInfo {
  method: string;
  /** Path without query. */
  path: string;
  status: number | null;
  attempt: number;
  durationMs: number;
  /** `retry`: this attempt failed and another follows. */
  outcome: 'ok' | 'retry' | 'error';
  errorKind: PatreonErrorKind | null;
}

export interface HttpOptions {
  baseUrl: string;
  fetch?: typeof fetch;
  clock: Clock;
  sleep: Sleep;
  random: Random;
  logger: Logger;
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  onRequest?: (info: RequestInfo) => void;
  /** Paces every attempt (see `request-budget.ts`); without it requests go at once. */
  budget?: RequestBudget;
}

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  query?: URLSearchParams;
  accessToken?: string;
  /** Sent as `application/json`. */
  json?: unknown;
  /** Sent as `application/x-www-form-urlencoded`. */
  form?: URLSearchParams;
  /**
   * The server may act on the request even when the answer is lost (a token refresh that
   * rotates, a webhook create). Such requests are repeated only after 429 and 503, which say the
   * request was not handled, never after a network error, a timeout or a 500.
   */
  unsafe?: boolean;
  /** Default `interactive`. */
  priority?: RequestPriority;
  /**
   * What the service counts this request's token against: a creator's grant keeps one key across
   * refreshes. Default: a key of `accessToken`, or none without one.
   */
  tokenKey?: string | null;
}

export interface HttpResponse {
  status: number;
  body: unknown;
  headers: Headers;
}

export interface Http {
  request(req: HttpRequest): Promise<HttpResponse>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Duck-typed: fetch's errors may come from another realm (undici, jest), where `instanceof Error` fails. */
function errorName(e: unknown): string {
  return isRecord(e) && typeof e.name === 'string' ? e.name : '';
}

function errorMessage(e: unknown): string {
  const cause = isRecord(e) && isRecord(e.cause) && typeof e.cause.message === 'string' ? ` (${e.cause.message})` : '';
  return boundText(isRecord(e) && typeof e.message === 'string' ? `${e.message}${cause}` : String(e));
}

function errorEntries(body: unknown): ServiceErrorEntry[] {
  if (!isRecord(body) || !Array.isArray(body.errors)) return [];
  // The service's own words: kept, but cut (they end up in messages and logs).
  const text = (v: unknown) => (typeof v === 'string' ? boundText(v) : undefined);
  return body.errors
    .slice(0, 10)
    .filter(isRecord)
    .map((e) => ({ code_name: text(e.code_name), detail: text(e.detail), status: text(e.status), title: text(e.title) }));
}

/**
 * Seconds to wait after a 429: the `Retry-After` header (seconds or an HTTP date), else
 * `retry_after_seconds` in the body, top level or inside an `errors` entry (docs/patreon-api-notes.md §10).
 */
export function retryAfterSeconds(headers: Headers, body: unknown, now: Date): number | null {
  const header = headers.get('retry-after');
  if (header !== null) {
    const trimmed = header.trim();
    if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
    const at = Date.parse(trimmed);
    if (!Number.isNaN(at)) return Math.max(0, (at - now.getTime()) / 1000);
  }
  const fromRecord = (r: Record<string, unknown>): number | null => {
    const v = r.retry_after_seconds;
    const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
    return Number.isFinite(n) && n >= 0 ? n : null;
  };
  if (isRecord(body)) {
    const top = fromRecord(body);
    if (top !== null) return top;
    if (Array.isArray(body.errors)) {
      for (const e of body.errors) {
        if (isRecord(e)) {
          const inner = fromRecord(e);
          if (inner !== null) return inner;
        }
      }
    }
  }
  return null;
}

/**
 * HTTP with the service's retry rules: 429 waits what the service asks (bounded), 500/503 and
 * network failures back off exponentially with full jitter (bounded), other 4xx fail at once.
 * Every attempt has a timeout. Failures become {@link PatreonApiError}.
 */
export function createHttp(options: HttpOptions): Http {
  const doFetch = options.fetch ?? fetch;
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const base = options.baseUrl.replace(/\/+$/, '');
  const { clock, logger } = options;

  const backoffMs = (failures: number): number => options.random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (failures - 1));

  return {
    async request(req) {
      const query = req.query?.toString() ?? '';
      const url = `${base}${req.path}${query ? `?${query}` : ''}`;
      const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'Tierlink (+https://github.com/tierlink)' };
      if (req.accessToken !== undefined) headers.authorization = `Bearer ${req.accessToken}`;
      let body: string | undefined;
      if (req.form) {
        headers['content-type'] = 'application/x-www-form-urlencoded';
        body = req.form.toString();
      } else if (req.json !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(req.json);
      }
      const fail = (init: Omit<ConstructorParameters<typeof PatreonApiError>[0], 'method' | 'path'>): PatreonApiError =>
        new PatreonApiError({ ...init, method: req.method, path: req.path });

      const tokenKey = req.tokenKey !== undefined ? req.tokenKey : req.accessToken !== undefined ? tokenKeyOf(req.accessToken) : null;
      let attempt = 0;
      let failures = 0;
      let rateWaits = 0;
      for (;;) {
        attempt += 1;
        const counted = await options.budget?.acquire({ tokenKey, priority: req.priority ?? 'interactive' });
        const started = clock.now().getTime();
        const report = (status: number | null, outcome: RequestInfo['outcome'], errorKind: PatreonErrorKind | null): void => {
          options.onRequest?.({
            method: req.method,
            path: req.path,
            status,
            attempt,
            durationMs: clock.now().getTime() - started,
            outcome,
            errorKind,
          });
        };

        let res: Response;
        let text: string;
        try {
          try {
            res = await doFetch(url, { method: req.method, headers, body, signal: AbortSignal.timeout(timeoutMs) });
            text = await res.text();
          } finally {
            counted?.answered();
          }
        } catch (e) {
          const kind: PatreonErrorKind = errorName(e) === 'TimeoutError' || errorName(e) === 'AbortError' ? 'timeout' : 'network';
          if (!req.unsafe && failures + 1 < policy.maxAttempts) {
            failures += 1;
            const wait = backoffMs(failures);
            report(null, 'retry', kind);
            logger.warn(
              { method: req.method, path: req.path, kind, attempt, waitMs: Math.round(wait) },
              'membership service unreachable; retrying',
            );
            await options.sleep(wait);
            continue;
          }
          report(null, 'error', kind);
          throw fail({ kind, message: errorMessage(e), cause: e });
        }

        let parsed: unknown = null;
        let parseFailed = false;
        if (text.length > 0) {
          try {
            parsed = JSON.parse(text);
          } catch {
            parseFailed = true;
          }
        }

        if (res.status >= 200 && res.status < 300) {
          if (parseFailed) {
            report(res.status, 'error', 'invalid_response');
            throw fail({ kind: 'invalid_response', status: res.status, message: 'the answer is not JSON' });
          }
          report(res.status, 'ok', null);
          logger.debug({ method: req.method, path: req.path, status: res.status, attempt }, 'membership service call');
          return { status: res.status, body: parsed, headers: res.headers };
        }

        const kind = kindForStatus(res.status);
        const errors = errorEntries(parsed);
        const oauthError = isRecord(parsed) && typeof parsed.error === 'string' ? boundText(parsed.error) : null;

        if (res.status === 429) {
          const seconds = retryAfterSeconds(res.headers, parsed, clock.now());
          const wait = seconds !== null ? seconds * 1000 : backoffMs(rateWaits + 1);
          if (rateWaits < policy.maxRateLimitWaits && wait <= policy.maxRetryAfterMs) {
            rateWaits += 1;
            report(429, 'retry', kind);
            logger.warn({ method: req.method, path: req.path, waitMs: Math.round(wait) }, 'membership service rate limit; waiting');
            await options.sleep(wait);
            continue;
          }
          report(429, 'error', kind);
          throw fail({ kind, status: 429, errors, retryAfterSeconds: seconds });
        }

        const transient = res.status === 503 || (!req.unsafe && (res.status === 500 || res.status === 502 || res.status === 504));
        if (transient && failures + 1 < policy.maxAttempts) {
          failures += 1;
          const wait = backoffMs(failures);
          report(res.status, 'retry', kind);
          logger.warn(
            { method: req.method, path: req.path, status: res.status, attempt, waitMs: Math.round(wait) },
            'membership service error; retrying',
          );
          await options.sleep(wait);
          continue;
        }
        report(res.status, 'error', kind);
        throw fail({ kind, status: res.status, errors, oauthError });
      }
    },
  };
}
