import type { ChargeStatus } from './types';

/**
 * Which service the stand-in imitates. `spec`: the generic spec (`chat_server_id`,
 * `chat_role_ids`, no page size, no stated rate limit). `patreon`: Patreon's documented API v2
 * (docs/patreon-api-notes.md §0): `discord_server_id`, `google_analytics_id`, `discord_role_ids`,
 * `page[count]`, three more charge statuses, `is_free_trial` / `is_gifted`, `is_follower` always
 * false, nulls as in its samples, and its published rate limits. Each dialect answers 400 for the
 * other's names, as the real service does for an attribute a type does not have.
 */
export type ServiceDialect = 'spec' | 'patreon';

export const SPEC_CHARGE_STATUSES: readonly NonNullable<ChargeStatus>[] = [
  'Paid',
  'Declined',
  'Deleted',
  'Pending',
  'Refunded',
  'Fraud',
  'Other',
];

/** Patreon: `Member.last_charge_status` (docs/patreon-api-notes.md §3.2). */
export const PATREON_CHARGE_STATUSES: readonly NonNullable<ChargeStatus>[] = [
  ...SPEC_CHARGE_STATUSES,
  'Refunded by Patreon',
  'Partially Refunded',
  'Free Trial',
];

export function chargeStatusesOf(dialect: ServiceDialect): readonly NonNullable<ChargeStatus>[] {
  return dialect === 'patreon' ? PATREON_CHARGE_STATUSES : SPEC_CHARGE_STATUSES;
}

/** One sliding window: at most `requests` in any `windowMs`. */
export interface RateWindow {
  requests: number;
  windowMs: number;
}

export interface RateLimits {
  /** Every request of one OAuth client, whatever the token. */
  perClient: RateWindow;
  /** Every request of one user's grant to one client: a refreshed token keeps the count (docs/patreon-api-notes.md §6). */
  perToken: RateWindow;
}

/** Patreon's published limits (docs/patreon-api-notes.md §6): 100 requests per 2 s per client, 100 per minute per token. */
export const PATREON_RATE_LIMITS: RateLimits = Object.freeze({
  perClient: { requests: 100, windowMs: 2_000 },
  perToken: { requests: 100, windowMs: 60_000 },
});

/**
 * The member list's page without `page[count]` in Patreon's dialect: the docs state none; 20 was
 * reported (docs/patreon-api-notes.md §2.3, patreon-php#89).
 */
export const PATREON_DEFAULT_PAGE_SIZE = 20;
