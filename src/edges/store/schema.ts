import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * The whole schema. Secrets (creator tokens, webhook secrets) are stored only encrypted
 * (`*_enc`, see src/edges/store/secret-box.ts); one-time link tokens only as SHA-256 hashes.
 * Patron OAuth tokens are never stored.
 */

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** Why a member's last read could not be understood (`member_snapshots.unreadable`); `since`: ISO time of the first such read. */
export interface UnreadableMark {
  attribute: string;
  reason: string;
  since: string;
}

/** A campaign on the membership service that Tierlink serves. */
export const campaigns = pgTable('campaigns', {
  id: text('id').primaryKey(),
  creatorUserId: text('creator_user_id').notNull(),
  name: text('name').notNull(),
  url: text('url'),
  /** The campaign's name in its Patreon address; the join page's default slug. */
  vanity: text('vanity'),
  patronCount: integer('patron_count'),
  tiersRefreshedAt: ts('tiers_refreshed_at'),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/** Tiers as last read from the service; `roleIds` is the parsed `chat_role_ids`/`discord_role_ids`. */
export const tiers = pgTable(
  'tiers',
  {
    campaignId: text('campaign_id').notNull(),
    id: text('id').notNull(),
    title: text('title').notNull(),
    amountCents: integer('amount_cents').notNull(),
    patronCount: integer('patron_count'),
    published: boolean('published').notNull().default(true),
    roleIds: jsonb('role_ids').$type<{ everywhere: string[]; byGuild: Record<string, string[]> }>().notNull(),
    /** Set when a tier disappears from the campaign; its /map rows stay but grant nothing. */
    removedAt: ts('removed_at'),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.campaignId, t.id] })],
);

/** The creator's OAuth tokens, encrypted. One row per creator (a creator may own several campaigns). */
export const creatorCredentials = pgTable('creator_credentials', {
  creatorUserId: text('creator_user_id').primaryKey(),
  accessTokenEnc: text('access_token_enc').notNull(),
  refreshTokenEnc: text('refresh_token_enc').notNull(),
  expiresAt: ts('expires_at'),
  scopes: text('scopes').notNull().default(''),
  refreshFailedAt: ts('refresh_failed_at'),
  refreshError: text('refresh_error'),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/** A Discord server and its sync settings (see src/core/planner/settings.ts for meanings and bounds). */
export const guilds = pgTable('guilds', {
  id: text('id').primaryKey(),
  name: text('name'),
  graceDays: integer('grace_days').notNull().default(7),
  mode: text('mode').$type<'stack' | 'highest'>().notNull().default('stack'),
  formerPatronRoleId: text('former_patron_role_id'),
  followerRoleId: text('follower_role_id'),
  strict: boolean('strict').notNull().default(false),
  removalThresholdPercent: integer('removal_threshold_percent').notNull().default(10),
  removalThresholdMin: integer('removal_threshold_min').notNull().default(25),
  // Channels Tierlink posts in (src/app/channels): none unless a manager sets them with /settings.
  modLogChannelId: text('mod_log_channel_id'),
  announcePatronsChannelId: text('announce_patrons_channel_id'),
  /** When the patrons channel was set: only pledges that began after it are welcomed. */
  announcePatronsSince: ts('announce_patrons_since'),
  announcePostsChannelId: text('announce_posts_channel_id'),
  /** When the posts channel was set: only posts published after it are announced. */
  announcePostsSince: ts('announce_posts_since'),
  /** The join page's address, `/join/<slug>` (`/settings join_slug:`), lowercase; null: the default (src/core/join-slug.ts). */
  joinSlug: text('join_slug').unique('guilds_join_slug_unique'),
  /** Whether the join page lets in people whose tiers grant no role here. */
  joinNonPatrons: boolean('join_non_patrons').notNull().default(false),
  /** The role someone who joins through the join page without a tier role gets. */
  joinerRoleId: text('joiner_role_id'),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/** Which campaigns a guild serves. One campaign may serve several guilds and a guild several campaigns. */
export const guildCampaigns = pgTable(
  'guild_campaigns',
  {
    guildId: text('guild_id').notNull(),
    campaignId: text('campaign_id').notNull(),
    boundAt: ts('bound_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.guildId, t.campaignId] }), index('guild_campaigns_campaign_idx').on(t.campaignId)],
);

/** `/map` rows: a tier grants a role in a guild, on top of the tier's own role ids. */
export const roleMappings = pgTable(
  'role_mappings',
  {
    guildId: text('guild_id').notNull(),
    campaignId: text('campaign_id').notNull(),
    tierId: text('tier_id').notNull(),
    roleId: text('role_id').notNull(),
    createdBy: text('created_by'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.guildId, t.campaignId, t.tierId, t.roleId] })],
);

/**
 * Discord user ↔ service user. One to one in both directions: linking a service account from a
 * second Discord account moves the link (and the roles).
 */
export const links = pgTable(
  'links',
  {
    discordUserId: text('discord_user_id').primaryKey(),
    patreonUserId: text('patreon_user_id').notNull(),
    source: text('source').$type<'oauth' | 'social'>().notNull(),
    linkedAt: ts('linked_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('links_patreon_user_idx').on(t.patreonUserId)],
);

/** History of links, so `/status` can tell a user why their link is gone (moved, unlinked). */
export const linkEvents = pgTable(
  'link_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    discordUserId: text('discord_user_id').notNull(),
    patreonUserId: text('patreon_user_id').notNull(),
    kind: text('kind').$type<'linked' | 'unlinked' | 'moved_away'>().notNull(),
    detail: text('detail'),
    at: ts('at').notNull().defaultNow(),
  },
  (t) => [index('link_events_user_idx').on(t.discordUserId, t.at)],
);

/** The last known state of a member of a campaign (webhook re-read, link, or full sync). */
export const memberSnapshots = pgTable(
  'member_snapshots',
  {
    campaignId: text('campaign_id').notNull(),
    memberId: text('member_id').notNull(),
    patreonUserId: text('patreon_user_id'),
    patronStatus: text('patron_status').$type<'active_patron' | 'declined_patron' | 'former_patron' | null>(),
    isFollower: boolean('is_follower').notNull().default(false),
    lastChargeDate: ts('last_charge_date'),
    lastChargeStatus: text('last_charge_status'),
    entitledTierIds: jsonb('entitled_tier_ids')
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    /** Tiers last seen while `active_patron`: what a declined member keeps through the grace period. */
    lastActiveTierIds: jsonb('last_active_tier_ids')
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    /**
     * When a decline was first seen. Superseded by `first_declined_at` (migration 0001 carried its
     * values over); no longer written or read, kept so that migrations stay additive.
     */
    declinedSeenAt: ts('declined_seen_at'),
    /**
     * The first declined charge of the current pledge (`firstDeclineOf`, src/core/planner/grace.ts):
     * the grace period counts from it, not from `last_charge_date`, which moves with every retry.
     */
    firstDeclinedAt: ts('first_declined_at'),
    /** Patreon's `is_free_trial` and `is_gifted` (false where the service has no such attribute). */
    isFreeTrial: boolean('is_free_trial').notNull().default(false),
    isGifted: boolean('is_gifted').notNull().default(false),
    /**
     * Set when the last read of the member could not be understood (an unknown `patron_status`, an
     * unexpected null): which attribute, why, and since when. The other columns keep the last
     * readable state, and the planner leaves the member's roles as they are.
     */
    unreadable: jsonb('unreadable').$type<UnreadableMark>(),
    pledgeRelationshipStart: ts('pledge_relationship_start'),
    entitledAmountCents: integer('entitled_amount_cents'),
    /** The member's `full_name` as last read: the dashboard searches members by it. */
    fullName: text('full_name'),
    source: text('source').$type<'link' | 'webhook' | 'webhook-payload' | 'sync'>().notNull(),
    fetchedAt: ts('fetched_at').notNull().defaultNow(),
    /**
     * A digest of the read the planner sees (`readDigest`, src/edges/store/repositories/snapshot-repository.ts):
     * a full sync that reads the same again writes nothing. Null: write at the next read (rows of an
     * earlier release, and members marked unreadable, whose mark the next readable read clears).
     */
    readHash: text('read_hash'),
  },
  (t) => [
    primaryKey({ columns: [t.campaignId, t.memberId] }),
    index('member_snapshots_user_idx').on(t.campaignId, t.patreonUserId),
    index('member_snapshots_patreon_user_idx').on(t.patreonUserId),
    // New pledges to welcome (src/app/channels/announcements.ts): recent starts of a campaign.
    index('member_snapshots_pledge_start_idx').on(t.campaignId, t.pledgeRelationshipStart),
  ],
);

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
 * replay, acknowledged and dropped without a read of the service (src/edges/store/repositories/webhook-repository.ts).
 */
export const webhookSeen = pgTable(
  'webhook_seen',
  {
    bodyHash: text('body_hash').primaryKey(),
    seenAt: ts('seen_at').notNull(),
  },
  (t) => [index('webhook_seen_at_idx').on(t.seenAt)],
);

/** Durable background work other than deliveries (member re-checks, campaign syncs, mapping reconciles). */
export const jobs = pgTable(
  'jobs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    kind: text('kind').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    /** At most one pending job per key: queueing the same re-check twice is one job. */
    dedupeKey: text('dedupe_key'),
    status: text('status').$type<'pending' | 'done' | 'dead'>().notNull().default('pending'),
    runAt: ts('run_at').notNull().defaultNow(),
    attempts: integer('attempts').notNull().default(0),
    lockedUntil: ts('locked_until'),
    lastError: text('last_error'),
    createdAt: ts('created_at').notNull().defaultNow(),
    finishedAt: ts('finished_at'),
  },
  (t) => [
    index('jobs_due_idx').on(t.status, t.runAt),
    uniqueIndex('jobs_pending_dedupe_idx')
      .on(t.dedupeKey)
      .where(sql`status = 'pending'`),
  ],
);

/** The ledger: every role Tierlink granted. Tierlink removes only roles recorded here (unless `strict`). */
export const roleGrants = pgTable(
  'role_grants',
  {
    guildId: text('guild_id').notNull(),
    discordUserId: text('discord_user_id').notNull(),
    roleId: text('role_id').notNull(),
    campaignId: text('campaign_id'),
    tierId: text('tier_id'),
    kind: text('kind').$type<'tier' | 'former' | 'follower' | 'joiner'>().notNull(),
    reason: text('reason').notNull(),
    grantedAt: ts('granted_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.guildId, t.discordUserId, t.roleId] })],
);

/** Every role change Tierlink made, attempted or held, with its reason. */
export const auditLog = pgTable(
  'audit_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    at: ts('at').notNull().defaultNow(),
    guildId: text('guild_id').notNull(),
    discordUserId: text('discord_user_id').notNull(),
    roleId: text('role_id').notNull(),
    /** `adopt`: a role the member already held, recorded as Tierlink's grant without a request (`/sync adopt:true`). */
    action: text('action').$type<'add' | 'remove' | 'forget' | 'adopt'>().notNull(),
    outcome: text('outcome').$type<'applied' | 'failed' | 'held' | 'blocked'>().notNull(),
    trigger: text('trigger').notNull(),
    reason: text('reason').notNull(),
    error: text('error'),
  },
  (t) => [
    index('audit_log_user_idx').on(t.guildId, t.discordUserId, t.at),
    // The dashboard's keyset pages (newest first by at, id) with one filter each: every page is one
    // index range however many rows the guild has (bench/run.ts, "audit log").
    index('audit_log_guild_at_idx').on(t.guildId, t.at, t.id),
    index('audit_log_role_idx').on(t.guildId, t.roleId, t.at, t.id),
    index('audit_log_outcome_idx').on(t.guildId, t.outcome, t.at, t.id),
    index('audit_log_trigger_idx').on(t.guildId, t.trigger, t.at, t.id),
  ],
);

/**
 * One-time links from `/link` and `/connect`, stored as SHA-256 hashes. The OAuth `state` minted when
 * the link is followed is bound to the row (its nonce hash) and consumed once.
 */
export const linkTokens = pgTable('link_tokens', {
  tokenHash: text('token_hash').primaryKey(),
  purpose: text('purpose').$type<'link' | 'connect' | 'join'>().notNull(),
  /** Who ran `/link` or `/connect`; null for a join page's flow, where Discord says who it is at the end. */
  discordUserId: text('discord_user_id'),
  guildId: text('guild_id').notNull(),
  createdAt: ts('created_at').notNull(),
  expiresAt: ts('expires_at').notNull(),
  usedAt: ts('used_at'),
  stateNonceHash: text('state_nonce_hash'),
  stateUsedAt: ts('state_used_at'),
  /** The PKCE code verifier of the authorization request, sealed (secret-box); sent only at the code exchange. */
  codeVerifier: text('code_verifier'),
  /** When the campaign chooser of a `/connect` flow was acted on: its tickets work once. */
  choiceUsedAt: ts('choice_used_at'),
  /** A join flow, once the service said who the patron is: the service user to link at the Discord step. */
  patreonUserId: text('patreon_user_id'),
  /** A join flow's second state (toward Discord's consent page), hashed, consumed once like the first. */
  discordStateNonceHash: text('discord_state_nonce_hash'),
  discordStateUsedAt: ts('discord_state_used_at'),
});

/** One row per full sync of a guild (or dry run), with what it read, planned, did and held. */
export const syncRuns = pgTable(
  'sync_runs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    trigger: text('trigger').notNull(),
    guildId: text('guild_id'),
    campaignId: text('campaign_id'),
    dryRun: boolean('dry_run').notNull().default(false),
    forced: boolean('forced').notNull().default(false),
    status: text('status').$type<'running' | 'ok' | 'held' | 'failed' | 'skipped'>().notNull(),
    startedAt: ts('started_at').notNull(),
    finishedAt: ts('finished_at'),
    pagesRead: integer('pages_read').notNull().default(0),
    membersSeen: integer('members_seen').notNull().default(0),
    links: integer('links').notNull().default(0),
    plannedAdds: integer('planned_adds').notNull().default(0),
    plannedRemoves: integer('planned_removes').notNull().default(0),
    appliedAdds: integer('applied_adds').notNull().default(0),
    appliedRemoves: integer('applied_removes').notNull().default(0),
    heldRemovals: integer('held_removals').notNull().default(0),
    failedChanges: integer('failed_changes').notNull().default(0),
    errors: jsonb('errors')
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    apiCalls: jsonb('api_calls')
      .$type<Record<string, number>>()
      .notNull()
      .default(sql`'{}'::jsonb`),
    heldReason: text('held_reason'),
    /**
     * Where a running sync is (`campaigns`: reading the service's members, `members`: reading and
     * planning the server's, `applying`, `finishing`); kept with the counts above as the run goes,
     * so `/sync` and `/doctor` on any instance show its progress and a restart knows what stopped.
     */
    phase: text('phase').$type<'campaigns' | 'members' | 'applying' | 'finishing'>(),
    /** Members of the server listed so far (`members_seen` counts the service's). */
    membersRead: integer('members_read').notNull().default(0),
    progressAt: ts('progress_at'),
    /** When the applying is expected to end, from the pace so far (or the member-role bucket's floor before any). */
    estimatedEndAt: ts('estimated_end_at'),
    /** The run a stopped process left `running` that this one took over. */
    resumedFrom: integer('resumed_from'),
    /** 1 for a fresh run; a run resuming attempt n is attempt n + 1 (a restart resumes at most up to 3). */
    attempt: integer('attempt').notNull().default(1),
  },
  (t) => [index('sync_runs_guild_idx').on(t.guildId, t.startedAt), index('sync_runs_running_idx').on(t.status)],
);

/**
 * Dashboard sign-ins. The browser holds the session id sealed with SECRET_KEY; the row holds only
 * its SHA-256, so a copy of the database signs nobody in, and deleting the row signs out. No
 * Discord token is kept: it is used once at sign-in to learn who the user is, then revoked.
 */
export const dashboardSessions = pgTable(
  'dashboard_sessions',
  {
    idHash: text('id_hash').primaryKey(),
    discordUserId: text('discord_user_id').notNull(),
    userName: text('user_name').notNull(),
    /** The servers Discord listed for the user at sign-in (at most 200): a menu, never an authority. */
    guildIds: jsonb('guild_ids').$type<string[]>().notNull(),
    /** One message for the next page after a change (post, redirect, get). */
    flash: jsonb('flash').$type<{ tone: 'success' | 'warning' | 'error' | 'info'; text: string } | null>(),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [index('dashboard_sessions_user_idx').on(t.discordUserId), index('dashboard_sessions_expires_idx').on(t.expiresAt)],
);

/** Small named values that must survive restarts (e.g. the hash of the registered slash commands). */
export const appState = pgTable('app_state', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

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
});

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
});

/** The last IDENTIFY of each `rate_limit_key` (`shard_id % max_concurrency`) by any instance: one per key per 5 s. */
export const identifySlots = pgTable('identify_slots', {
  rateLimitKey: integer('rate_limit_key').primaryKey(),
  identifiedAt: ts('identified_at').notNull(),
});

/**
 * Where the mod-log of a guild stands (src/app/channels/mod-log.ts): every audit row up to
 * `cursorId` is posted; a batch `(cursorId, batchToId]` in progress has its first `batchPosted`
 * messages posted (a restart recomposes the same batch and goes on from there).
 */
export const modLogState = pgTable('mod_log_state', {
  guildId: text('guild_id').primaryKey(),
  cursorId: bigint('cursor_id', { mode: 'number' }).notNull(),
  batchToId: bigint('batch_to_id', { mode: 'number' }),
  batchPosted: integer('batch_posted').notNull().default(0),
  lastError: text('last_error'),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/** When Tierlink may next post in a channel, from Discord's rate-limit headers (shared by every instance). */
export const channelPacing = pgTable('channel_pacing', {
  channelId: text('channel_id').primaryKey(),
  pacedUntil: ts('paced_until').notNull(),
});

/**
 * Announcements (a new patron, a new post), one row per guild, kind and subject for ever: the
 * unique key is what makes the webhook, the poll and several instances announce a thing once.
 * The message is composed when the row is written and posted from here (an outbox).
 */
export const announcements = pgTable(
  'announcements',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    guildId: text('guild_id').notNull(),
    kind: text('kind').$type<'patron' | 'post'>().notNull(),
    /** `post:<id>` or `member:<id>:<pledge start>`. */
    subject: text('subject').notNull(),
    channelId: text('channel_id').notNull(),
    message: jsonb('message').$type<Record<string, unknown>>().notNull(),
    status: text('status').$type<'pending' | 'posted' | 'dead'>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    runAt: ts('run_at').notNull().defaultNow(),
    lastError: text('last_error'),
    messageId: text('message_id'),
    createdAt: ts('created_at').notNull().defaultNow(),
    postedAt: ts('posted_at'),
  },
  (t) => [uniqueIndex('announcements_subject_idx').on(t.guildId, t.kind, t.subject), index('announcements_due_idx').on(t.status, t.runAt)],
);

/** The last poll of a campaign's posts endpoint (the fallback where its webhook carries no posts). */
export const postPolls = pgTable('post_polls', {
  campaignId: text('campaign_id').primaryKey(),
  polledAt: ts('polled_at').notNull(),
  lastError: text('last_error'),
});

/**
 * Discord's request budget shared by every instance on this database (docs/decisions.md §19): one
 * row per rate-limit bucket (`member-role:<guild>`, `GET /guilds/<guild>/members/:id`, …) and one
 * for the global limit (`global`), updated by compare-and-swap on `version` through the rule in
 * src/edges/discord/request-budget.ts. Rows idle for an hour are deleted.
 */
export const discordBudget = pgTable('discord_budget', {
  key: text('key').primaryKey(),
  limitCount: integer('limit_count').notNull(),
  windowMs: integer('window_ms').notNull(),
  windowEnd: ts('window_end').notNull(),
  used: integer('used').notNull(),
  learned: boolean('learned').notNull(),
  version: integer('version').notNull().default(1),
});
