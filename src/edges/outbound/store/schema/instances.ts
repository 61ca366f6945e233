import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgSequence, pgTable, text } from 'drizzle-orm/pg-core';
import { ts } from './columns';

// What the instances on one database share: who is running, who holds each gateway shard, the IDENTIFY slots, and Discord's and Patreon's request budgets.

/**
 * The running instances of this installation (docs/decisions.md §17): each writes its row at start
 * and every few seconds after (`heartbeat_at`, the database's clock); a row whose heartbeat is older
 * than the lease time is of a dead instance. `shards` is what it holds, for anyone to read (/healthz,
 * the split of Discord's request budget).
 */
export const instances = pgTable('instances', {
  id: text('id').primaryKey(),
  host: text('host').notNull(),
  pid: integer('pid').notNull(),
  startedAt: ts('started_at').notNull().defaultNow(),
  heartbeatAt: ts('heartbeat_at').notNull().defaultNow(),
  /** A graceful stop is under way: it takes no new shard and counts for no share. */
  stopping: boolean('stopping').notNull().default(false),
  shards: jsonb('shards').$type<number[]>().notNull().default([]),
  /**
   * Of `shards`, those whose gateway session is connected now: a shard listed in `shards` but not
   * here has no session on its holder (`/doctor` says so on every instance).
   */
  connectedShards: jsonb('connected_shards').$type<number[]>().notNull().default([]),
});

/**
 * Where the lease generations come from: every take of a shard gets a number never given before, so
 * an event or a write of an older hold of the same shard (a paused instance that resumed) is told
 * apart from the current one (docs/outages-and-fencing.md).
 */
export const shardLeaseGeneration = pgSequence('shard_lease_generation');

/**
 * Who holds each gateway shard: one row per shard of the current shard count, held by one instance
 * until `expires_at` (renewed with its heartbeat). An expired row is free for anyone to take.
 */
export const shardLeases = pgTable('shard_leases', {
  shardId: integer('shard_id').primaryKey(),
  shardCount: integer('shard_count').notNull(),
  holder: text('holder').notNull(),
  acquiredAt: ts('acquired_at').notNull().defaultNow(),
  expiresAt: ts('expires_at').notNull(),
  /** The fencing token of this hold: new at every take, kept by renewals. */
  generation: bigint('generation', { mode: 'number' })
    .notNull()
    .default(sql`nextval('shard_lease_generation')`),
});

/**
 * Interactions some instance took on (docs/outages-and-fencing.md): the first to write an interaction's id
 * acts on it, every later delivery of the same id (a replay of a signed request, the same command on
 * an old and a new session of one shard) is dropped. Rows go after 15 minutes: Discord signs a request
 * for at most 5 minutes (src/edges/inbound/web/interactions-endpoint.ts).
 */
export const interactionClaims = pgTable(
  'interaction_claims',
  {
    id: text('id').primaryKey(),
    holder: text('holder').notNull(),
    claimedAt: ts('claimed_at').notNull().defaultNow(),
  },
  (t) => [index('interaction_claims_at_idx').on(t.claimedAt)],
);

/** The last IDENTIFY of each `rate_limit_key` (`shard_id % max_concurrency`) by any instance: one per key per 5 s. */
export const identifySlots = pgTable('identify_slots', {
  rateLimitKey: integer('rate_limit_key').primaryKey(),
  identifiedAt: ts('identified_at').notNull(),
});

/**
 * Discord's request budget shared by every instance on this database (docs/decisions.md §19): one
 * row per rate-limit bucket (`member-role:<guild>`, `GET /guilds/<guild>/members/:id`, …) and one
 * for the global limit (`global`), updated by compare-and-swap on `version` through the rule in
 * src/edges/outbound/discord/request-budget.ts. Rows idle for an hour are deleted.
 */
export const discordBudget = pgTable('discord_budget', {
  key: text('key').primaryKey(),
  limitCount: integer('limit_count').notNull(),
  windowMs: integer('window_ms').notNull(),
  windowEnd: ts('window_end').notNull(),
  used: integer('used').notNull(),
  learned: boolean('learned').notNull(),
  /** When the request whose answer the row follows was sent (the database's clock); null: none yet. */
  seenSentAt: ts('seen_sent_at'),
  version: integer('version').notNull().default(1),
});

/**
 * Patreon's request budget shared by every instance on this database (docs/decisions.md §19,
 * docs/patreon-api-notes.md §6): one row per limit Patreon counts (the OAuth client's, each
 * creator grant's), holding the times of the requests still inside its window (ms, the database's
 * clock), oldest first. Changed under a row lock by src/edges/outbound/store/patreon-budget-store.ts.
 */
export const patreonBudget = pgTable('patreon_budget', {
  key: text('key').primaryKey(),
  times: bigint('times', { mode: 'number' }).array().notNull(),
});

/**
 * Who counts Discord's global limit alone (docs/decisions.md §19): a process that runs alone on
 * this database may pace at Discord's whole 50 a second, counted in its own memory, while it holds
 * this row (`until`, renewed every second). A claim waits `claimed_at` + 1.5 s before it holds:
 * any other process that counts the global limit meanwhile writes `wanted_at`, and the claim
 * fails; a process that finds the row held waits until a second after `until` (the holder's last
 * requests have reached Discord by then) before it counts the limit in the shared windows again.
 */
export const discordGlobalHolder = pgTable('discord_global_holder', {
  key: text('key').primaryKey(),
  holder: text('holder').notNull(),
  claimedAt: ts('claimed_at').notNull(),
  /** Null while the claim waits; then the end of the hold. */
  until: ts('until'),
  /** The last time another process counted the global limit while the row was claimed or held. */
  wantedAt: ts('wanted_at'),
});
