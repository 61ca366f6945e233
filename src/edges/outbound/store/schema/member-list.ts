import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { ts } from './columns';

// Who is in each server (as far as the Members page needs it) and each person's own choices.

/**
 * The members of a server that a source knows (linked, comped, or holding a role Tierlink granted),
 * with their name in the server, as the full sync's member listing last saw them. A complete
 * listing removes the rows it did not see, so a linked patron without a row is not in the server.
 * Only people Tierlink plans are kept: the table grows with the patrons, never with the server.
 */
export const guildPresence = pgTable(
  'guild_presence',
  {
    guildId: text('guild_id').notNull(),
    discordUserId: text('discord_user_id').notNull(),
    /** Their name in the server (nickname, display name or username) when seen. */
    displayName: text('display_name'),
    seenAt: ts('seen_at').notNull().defaultNow(),
    /**
     * The full sync's listing that last wrote them (null: a single reconcile did). A listing writes
     * only the members new to the presence, renamed, or last written by a reconcile, and removes
     * those it did not see (src/app/sync/guild-pass.ts).
     */
    listing: text('listing'),
  },
  (t) => [primaryKey({ columns: [t.guildId, t.discordUserId] }), index('guild_presence_seen_idx').on(t.guildId, t.seenAt)],
);

/**
 * Who left a server (GUILD_MEMBER_REMOVE, or a reconcile that found them gone), and when. Their
 * presence row goes at once; this row keeps a full sync's listing that began before the leave from
 * writing them back from a page Discord answered before it (src/app/sync/guild-pass.ts). A reconcile
 * that finds them in the server again (a rejoin) deletes it. Kept a day: no listing runs that long.
 */
export const guildDepartures = pgTable(
  'guild_departures',
  {
    guildId: text('guild_id').notNull(),
    discordUserId: text('discord_user_id').notNull(),
    leftAt: ts('left_at').notNull(),
    /**
     * When a leave last took them out of the presence (someone the Members page lists): only those
     * change the list, so only those make it count again (a stranger's leave costs the page nothing).
     */
    removedAt: ts('removed_at'),
  },
  (t) => [primaryKey({ columns: [t.guildId, t.discordUserId] }), index('guild_departures_left_idx').on(t.guildId, t.leftAt)],
);

/**
 * A person's own choices, wherever Tierlink serves them (`/privacy`): whether announcements may
 * name them, and whether Tierlink may send them direct messages about their membership.
 */
export const memberPreferences = pgTable('member_preferences', {
  discordUserId: text('discord_user_id').primaryKey(),
  namedInAnnouncements: boolean('named_in_announcements').notNull().default(true),
  directMessages: boolean('direct_messages').notNull().default(true),
  /** Their Discord client's language at their last command (`interaction.locale`): their direct messages are in it. */
  locale: text('locale'),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/**
 * The Members page's list of a server, built in one statement from the memberships of its
 * campaigns, the links, `guild_presence` and the comps (src/edges/outbound/store/repositories/member-list-repository.ts),
 * so that a page of 100,000 members is one index range instead of a join over all of them. Whether a
 * declined payment is still in grace is decided when read (it changes with time alone); everything
 * else is as of `member_list_state.built_at`, rebuilt when the data behind it changes.
 */
export const memberListRows = pgTable(
  'member_list_rows',
  {
    guildId: text('guild_id').notNull(),
    /** `source/campaign/member` for a membership, `discord/<user id>` for a member no source knows. */
    rowKey: text('row_key').notNull(),
    source: text('source').notNull(),
    campaignId: text('campaign_id'),
    memberId: text('member_id'),
    discordUserId: text('discord_user_id'),
    displayName: text('display_name'),
    patronName: text('patron_name'),
    /** `patron`, `declined` (grace or lapsed, decided when read), `former`, `follower`, `none`. */
    base: text('base').notNull(),
    declinedAt: ts('declined_at'),
    tierIds: jsonb('tier_ids')
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    inServer: boolean('in_server').notNull(),
    comped: boolean('comped').notNull(),
    since: ts('since'),
    amountCents: integer('amount_cents'),
    /** The name the list sorts by, lowercased. */
    sortName: text('sort_name').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.guildId, t.rowKey] }),
    index('member_list_rows_name_idx').on(t.guildId, t.sortName, t.rowKey),
    index('member_list_rows_since_idx').on(t.guildId, t.since, t.rowKey),
    index('member_list_rows_amount_idx').on(t.guildId, t.amountCents, t.rowKey),
    index('member_list_rows_declined_idx')
      .on(t.guildId, t.declinedAt)
      .where(sql`${t.base} = 'declined'`),
  ],
);

/** When a server's list was built, from which state of the data, and its counts outside declined payments. */
export const memberListState = pgTable('member_list_state', {
  guildId: text('guild_id').primaryKey(),
  /** What the data behind the list looked like ({@link memberListRows}): a different one means rebuild. */
  version: text('version').notNull(),
  builtAt: ts('built_at').notNull(),
  /** Per filter, the rows that are not declined payments (their state does not change with time). */
  counts: jsonb('counts').$type<Record<string, number>>().notNull(),
});
