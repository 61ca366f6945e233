import type { SandboxResponse } from './http-kit';
import { apiError, errorEntry, json } from './http-kit';

/**
 * An injected failure: requests that match `method` and `path` get `status` instead of the
 * route's answer. `status: 'reset'` destroys the connection (a network error for the client).
 */
export interface FaultSpec {
  method?: string;
  /** A string matches the path exactly (no query); a RegExp is tested against the path. */
  path?: string | RegExp;
  status: number | 'reset';
  /** How many matching requests fail; default 1. Use `Infinity` for "until cleared". */
  times?: number;
  /** Skip (let through) the first N matching requests. */
  afterMatching?: number;
  /** For 429 (or any status): how long the client should wait. */
  retryAfterSeconds?: number;
  /** `header` (default): `Retry-After: N`. `body`: `{ errors: [...], retry_after_seconds: N }`. */
  retryAfterIn?: 'header' | 'body';
  /** Replaces the error detail text. */
  detail?: string;
}

/**
 * The Nth page of a member list answers with a bad next cursor, as Patreon was seen to do
 * (docs/patreon-api-notes.md §10).
 * - `same-cursor`: page N's next cursor is the cursor that led to page N (the previous page's).
 * - `new-cursor`: page N's next cursor is a fresh string that leads to page N again.
 */
export interface RepeatCursorSpec {
  page: number;
  campaignId?: string;
  mode?: 'same-cursor' | 'new-cursor';
  /** How many answers to spoil; default `Infinity`. */
  times?: number;
}

interface ActiveFault {
  id: string;
  spec: FaultSpec;
  remaining: number;
  matched: number;
}

interface ActiveRepeat {
  id: string;
  spec: RepeatCursorSpec;
  remaining: number;
}

export type Faults = ReturnType<typeof createFaults>;

export function createFaults() {
  let counter = 0;
  let faults: ActiveFault[] = [];
  let repeats: ActiveRepeat[] = [];

  const matches = (spec: FaultSpec, method: string, path: string): boolean => {
    if (spec.method && spec.method.toUpperCase() !== method) return false;
    if (spec.path === undefined) return true;
    if (typeof spec.path === 'string') return spec.path === path;
    spec.path.lastIndex = 0;
    return spec.path.test(path);
  };

  return {
    inject(spec: FaultSpec): string {
      const id = `fault-${++counter}`;
      faults.push({ id, spec, remaining: spec.times ?? 1, matched: 0 });
      return id;
    },

    injectRepeatCursor(spec: RepeatCursorSpec): string {
      if (!Number.isInteger(spec.page) || spec.page < 2)
        throw new Error('repeatCursor.page must be 2 or more (page 1 has no previous cursor)');
      const id = `fault-${++counter}`;
      repeats.push({ id, spec, remaining: spec.times ?? Infinity });
      return id;
    },

    remove(id: string): void {
      faults = faults.filter((f) => f.id !== id);
      repeats = repeats.filter((f) => f.id !== id);
    },

    clear(): void {
      faults = [];
      repeats = [];
    },

    /** Finds the fault that answers this request, consuming one of its `times`. */
    take(method: string, path: string): { id: string; spec: FaultSpec } | null {
      for (const fault of faults) {
        if (fault.remaining <= 0 || !matches(fault.spec, method, path)) continue;
        fault.matched += 1;
        if (fault.matched <= (fault.spec.afterMatching ?? 0)) continue;
        fault.remaining -= 1;
        return { id: fault.id, spec: fault.spec };
      }
      return null;
    },

    takeRepeatCursor(campaignId: string, page: number): { id: string; mode: 'same-cursor' | 'new-cursor' } | null {
      for (const r of repeats) {
        if (r.remaining <= 0 || r.spec.page !== page) continue;
        if (r.spec.campaignId !== undefined && r.spec.campaignId !== campaignId) continue;
        r.remaining -= 1;
        return { id: r.id, mode: r.spec.mode ?? 'same-cursor' };
      }
      return null;
    },

    active(): Array<{ id: string; remaining: number }> {
      return [...faults, ...repeats].filter((f) => f.remaining > 0).map((f) => ({ id: f.id, remaining: f.remaining }));
    },
  };
}

export function faultResponse(spec: FaultSpec, status: number): SandboxResponse {
  const detail = spec.detail ?? (status === 429 ? 'Too many requests; slow down.' : 'Injected fault.');
  if (spec.retryAfterSeconds === undefined) return apiError(status, detail);
  if (spec.retryAfterIn === 'body') {
    return json(status, { errors: [errorEntry(status, detail)], retry_after_seconds: spec.retryAfterSeconds });
  }
  return apiError(status, detail, {}, { 'retry-after': String(spec.retryAfterSeconds) });
}
