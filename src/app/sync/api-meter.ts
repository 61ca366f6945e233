import { performance } from 'node:perf_hooks';
import type { APIRequest, RateLimitData, REST } from '@discordjs/rest';
import type { RequestInfo } from '../../edges/outbound/patreon/http';

export interface MeterReading {
  /** Requests per `api METHOD route` since the meter was made. */
  calls: Record<string, number>;
  /** Wall time during which Discord's rate limits held requests back; overlapping waits count once. */
  rateLimitWaitMs: number;
}

/**
 * Counts requests to the membership service and to Discord, and the wall time Discord's rate
 * limits cost. A run reads it before and after and keeps the difference, so requests other work
 * of the same process made meanwhile (a webhook) are counted in too.
 */
export interface ApiMeter {
  /** Pass as the Patreon client's `onRequest` (one call per HTTP attempt, retries included). */
  onPatreonRequest(info: RequestInfo): void;
  read(): MeterReading;
}

/** `/api/oauth2/v2/campaigns/123/members` → `/api/oauth2/v2/campaigns/:id/members`. */
export function patreonRoute(path: string): string {
  return path.replace(/\/(campaigns|members|webhooks|posts|tiers|users)\/[^/]+/g, '/$1/:id');
}

/**
 * A meter over the REST client every Discord call goes through (its `response` and `rateLimited`
 * events, docs/tech-facts.md §2) and the Patreon client's `onRequest` hook. Rate-limit waits
 * are merged as intervals: eight requests waiting on the same bucket for a second cost a second.
 */
export function createApiMeter(options: { discordRest?: REST; now?: () => number } = {}): ApiMeter {
  const now = options.now ?? (() => performance.now());
  const calls: Record<string, number> = {};
  const count = (key: string) => {
    calls[key] = (calls[key] ?? 0) + 1;
  };
  let waited = 0;
  let coveredUntil = 0;
  options.discordRest?.on('response', (request: APIRequest) => count(`discord ${request.method.toUpperCase()} ${request.route}`));
  options.discordRest?.on('rateLimited', (data: RateLimitData) => {
    const start = now();
    const end = start + Math.max(0, data.timeToReset);
    if (end <= coveredUntil) return;
    waited += end - Math.max(start, coveredUntil);
    coveredUntil = end;
  });
  return {
    onPatreonRequest: (info) => count(`patreon ${info.method} ${patreonRoute(info.path)}`),
    read: () => ({ calls: { ...calls }, rateLimitWaitMs: waited - Math.max(0, coveredUntil - now()) }),
  };
}

export function callsBetween(before: MeterReading | null, after: MeterReading | null): Record<string, number> {
  if (!before || !after) return {};
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(after.calls)) {
    const delta = value - (before.calls[key] ?? 0);
    if (delta > 0) out[key] = delta;
  }
  return out;
}

export function addCalls(into: Record<string, number>, from: Record<string, number>): void {
  for (const [key, value] of Object.entries(from)) into[key] = (into[key] ?? 0) + value;
}
