import { bigserial, boolean, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { ts } from './columns';

// The service's webhooks: the ones registered, the deliveries received, and the body hashes seen.

/** Webhooks this client registered (or was given) on the service; the secret is encrypted. */
export const webhooks = pgTable('webhooks', {
  id: text('id').primaryKey(),
  campaignId: text('campaign_id').notNull(),
  uri: text('uri').notNull(),
  triggers: jsonb('triggers').$type<string[]>().notNull(),
  secretEnc: text('secret_enc').notNull(),
  paused: boolean('paused').notNull().default(false),
  numConsecutiveTimesFailed: integer('num_consecutive_times_failed').notNull().default(0),
  lastAttemptedAt: ts('last_attempted_at'),
  checkedAt: ts('checked_at'),
  createdAt: ts('created_at').notNull().defaultNow(),
});

/**
 * Verified webhook deliveries, written before the 200 and processed from here (durable: a crash
 * between receipt and processing loses nothing). Claimed with `FOR UPDATE SKIP LOCKED`.
 */
export const webhookInbox = pgTable(
  'webhook_inbox',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    receivedAt: ts('received_at').notNull().defaultNow(),
    trigger: text('trigger'),
    campaignId: text('campaign_id'),
    body: text('body').notNull(),
    /** SHA-256 (hex) of the body bytes as received; null for rows from before replays were refused. */
    bodyHash: text('body_hash'),
    status: text('status').$type<'pending' | 'done' | 'dead'>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    runAt: ts('run_at').notNull().defaultNow(),
    lockedUntil: ts('locked_until'),
    lastError: text('last_error'),
    finishedAt: ts('finished_at'),
  },
  (t) => [index('webhook_inbox_due_idx').on(t.status, t.runAt)],
);

/**
 * Body hashes of the verified deliveries of the last 7 days: a delivery whose hash is here is a
 * replay, acknowledged and dropped without a read of the service (src/edges/outbound/store/repositories/webhook-repository.ts).
 */
export const webhookSeen = pgTable(
  'webhook_seen',
  {
    bodyHash: text('body_hash').primaryKey(),
    seenAt: ts('seen_at').notNull(),
  },
  (t) => [index('webhook_seen_at_idx').on(t.seenAt)],
);
