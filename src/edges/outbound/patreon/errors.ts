import type { UnreadableMember } from './resources';

/**
 * What went wrong talking to the membership service. HTTP statuses map to the kinds of the spec's
 * Errors table; the rest are failures we detect ourselves.
 */
export type PatreonErrorKind =
  | 'bad_request' // 400
  | 'unauthorized' // 401: bad or expired token, or missing scopes (spec: Authentication §8)
  | 'forbidden' // 403
  | 'not_found' // 404
  | 'method_not_allowed' // 405
  | 'not_acceptable' // 406
  | 'gone' // 410
  | 'rate_limited' // 429
  | 'server' // 500, 503 and other 5xx: "retry later"
  | 'unexpected_status' // any other status
  | 'network' // no answer: connection refused or reset
  | 'timeout' // no answer in time
  | 'invalid_response' // an answer we cannot read (not JSON, not JSON:API, an attribute we asked for is missing)
  | 'pagination_loop' // the service repeated a cursor or a page (docs/patreon-api-notes.md §10)
  | 'not_connected' // no creator tokens are stored yet
  | 'refresh_failed' // refreshing the creator token failed just now
  | 'refresh_cooldown' // a refresh failed recently; not tried again yet (docs/patreon-api-notes.md §10)
  | 'token_store_failed'; // the rotated tokens could not be saved, so they are not used

/** Spec: Errors. */
export function kindForStatus(status: number): PatreonErrorKind {
  switch (status) {
    case 400:
      return 'bad_request';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 405:
      return 'method_not_allowed';
    case 406:
      return 'not_acceptable';
    case 410:
      return 'gone';
    case 429:
      return 'rate_limited';
    default:
      return status >= 500 && status <= 599 ? 'server' : 'unexpected_status';
  }
}

/** One entry of a JSON:API `errors` array, narrowed to what we read. */
export interface ServiceErrorEntry {
  code_name?: string;
  detail?: string;
  status?: string;
  title?: string;
}

export interface PatreonApiErrorInit {
  kind: PatreonErrorKind;
  status?: number | null;
  method: string;
  /** Path without query: queries and bodies may hold secrets and are never put in errors. */
  path: string;
  message?: string;
  retryAfterSeconds?: number | null;
  errors?: ServiceErrorEntry[];
  /** The token endpoint's `error` value, e.g. `invalid_grant`. */
  oauthError?: string | null;
  /** An `invalid_response` for one member whose state cannot be read: which, and what. */
  unreadable?: UnreadableMember | null;
  cause?: unknown;
}

/**
 * A failed call to the membership service. `name` reads like `PatreonApiError[401]` (or the kind
 * when there was no HTTP status) so logs and test output say what happened at a glance.
 */
export class PatreonApiError extends Error {
  readonly kind: PatreonErrorKind;
  readonly status: number | null;
  readonly method: string;
  readonly path: string;
  readonly retryAfterSeconds: number | null;
  readonly errors: readonly ServiceErrorEntry[];
  readonly oauthError: string | null;
  readonly unreadable: UnreadableMember | null;

  constructor(init: PatreonApiErrorInit) {
    const status = init.status ?? null;
    const detail = init.message ?? init.errors?.[0]?.detail ?? init.oauthError ?? init.kind;
    super(`${init.method} ${init.path}${status !== null ? ` answered ${status}` : ' failed'}: ${detail}`, { cause: init.cause });
    this.kind = init.kind;
    this.status = status;
    this.method = init.method;
    this.path = init.path;
    this.retryAfterSeconds = init.retryAfterSeconds ?? null;
    this.errors = init.errors ?? [];
    this.oauthError = init.oauthError ?? null;
    this.unreadable = init.unreadable ?? null;
    this.name = `PatreonApiError[${status ?? init.kind}]`;
  }

  /** The house rule's error `code`: the same as {@link kind}. */
  get code(): PatreonErrorKind {
    return this.kind;
  }
}

export function isPatreonApiError(value: unknown, kind?: PatreonErrorKind): value is PatreonApiError {
  return value instanceof PatreonApiError && (kind === undefined || value.kind === kind);
}
