import { bigint, bigserial, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { ts } from './columns';

// What Tierlink posts in channels: the mod-log position, channel pacing, the announcements outbox, and the posts poll.

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
  /** Where the next poll reads on from: the service's cursor of the last page read (see `PostStretch`). */
  resumeCursor: text('resume_cursor'),
});

/**
 * Direct messages Tierlink sends a patron about their membership (a declined payment), one row per
 * guild, user, kind and subject for ever: the row is written before the message is sent, so the
 * same decline seen again (a webhook redelivered, the nightly sync, another instance, a restart)
 * sends nothing more. `refused`: Discord would not deliver it (closed DMs, 50007), never retried.
 */
export const directMessages = pgTable(
  'direct_messages',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    guildId: text('guild_id').notNull(),
    discordUserId: text('discord_user_id').notNull(),
    kind: text('kind').$type<'payment_declined' | 'grace_ended' | 'linked'>().notNull(),
    /** The membership's id and when its payment first failed: one message of each kind per decline. */
    subject: text('subject').notNull(),
    status: text('status').$type<'sending' | 'sent' | 'refused' | 'failed'>().notNull().default('sending'),
    lastError: text('last_error'),
    createdAt: ts('created_at').notNull().defaultNow(),
    settledAt: ts('settled_at'),
  },
  (t) => [uniqueIndex('direct_messages_subject_idx').on(t.guildId, t.discordUserId, t.kind, t.subject)],
);
