import type { RateLimitHit, RequestRecord } from './types';

/**
 * Every API request the sandbox answered, in order, plus Discord's invalid-request count: 401, 403
 * and 429 answers, except 429s of scope `shared` (Discord's docs, Rate Limits, "Invalid Request
 * Limit"; docs/tech-facts.md §1).
 */
export class RequestLog {
  private records: RequestRecord[] = [];
  private invalid = 0;
  private readonly limited = new Map<string, RateLimitHit>();

  add(record: RequestRecord, rateLimitScope?: string): void {
    this.records.push(record);
    if (record.status === 429) {
      const scope = rateLimitScope ?? 'user';
      const key = `${record.route}\n${scope}`;
      const hit = this.limited.get(key) ?? { route: record.route, scope, count: 0 };
      hit.count += 1;
      this.limited.set(key, hit);
    }
    const counts = record.status === 401 || record.status === 403 || (record.status === 429 && rateLimitScope !== 'shared');
    if (counts) this.invalid += 1;
  }

  list(filter?: { route?: string; method?: string }): RequestRecord[] {
    return this.records
      .filter((r) => (!filter?.route || r.route === filter.route) && (!filter?.method || r.method === filter.method))
      .map((r) => ({ ...r }));
  }

  reset(): void {
    this.records = [];
  }

  /** 429s per route and scope since the sandbox started; `reset()` keeps them, like the invalid count. */
  rateLimitHits(): RateLimitHit[] {
    return [...this.limited.values()].map((hit) => ({ ...hit }));
  }

  invalidCount(): number {
    return this.invalid;
  }

  resetInvalidCount(): void {
    this.invalid = 0;
  }
}
