import { boolean, index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { ts } from './columns';

// Discord servers and their settings, the campaigns each serves, and the `/map` rows.

/** A Discord server and its sync settings (see src/core/planner/settings.ts for meanings and bounds). */
export const guilds = pgTable('guilds', {
  id: text('id').primaryKey(),
  name: text('name'),
  graceDays: integer('grace_days').notNull().default(7),
  mode: text('mode').$type<'stack' | 'highest'>().notNull().default('stack'),
  formerPatronRoleId: text('former_patron_role_id'),
  followerRoleId: text('follower_role_id'),
  strict: boolean('strict').notNull().default(false),
  /** Whether a free tier (`amount_cents` 0, Patreon's free membership) grants its roles here (`/settings free_tiers_grant_roles:`). */
  freeTiersGrantRoles: boolean('free_tiers_grant_roles').notNull().default(true),
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
  /**
   * How a welcome names a new patron (`/settings welcome_names:`): `mention` (their Discord mention,
   * which pings nobody), `display_name` (their name in the server), `none` (a welcome without a name).
   * Whatever the policy, only a member who is in the server and linked is ever named.
   */
  welcomeNames: text('welcome_names').$type<'mention' | 'display_name' | 'none'>().notNull().default('mention'),
  /** Whether Tierlink sends patrons direct messages about their membership (a declined payment, the grace end, a new link). */
  patronMessages: boolean('patron_messages').notNull().default(false),
  /** Whether a patron is sent a direct message when their Patreon membership is linked here (`/settings link_messages:`). */
  linkMessages: boolean('link_messages').notNull().default(false),
  /**
   * A `/map`, `/unmap` or `/settings` change in Discord that would change fewer roles than this applies
   * at once; from this many it shows what it would do and waits for a confirmation (`/settings preview_threshold:`).
   * 0: always ask. The dashboard always asks.
   */
  previewThreshold: integer('preview_threshold').notNull().default(10),
  /** The server's language as Discord last stated it (`preferred_locale`, set in Community settings), stored when the bot sees the guild. */
  discordLocale: text('discord_locale'),
  /** The language of what the whole server sees (announcements, the mod-log), chosen by its managers; null: {@link discordLocale}. */
  locale: text('locale'),
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
    /** Who connected it with `/connect`; null: the operator's environment, or a release that did not keep it. */
    connectedBy: text('connected_by'),
    /**
     * The connector's highest role when they connected it, when they were not the owner: the roles its
     * tiers name are given only below it (src/core/authority.ts, `aboveConnector`). Null: no such limit.
     */
    connectorRoleId: text('connector_role_id'),
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
 * A bulk change shown and waiting for its confirmation (src/app/admin/pending-changes.ts): what was
 * asked, by whom, what its preview came to, and until when it may be confirmed. Rows go when used,
 * cancelled or expired.
 */
export const pendingChanges = pgTable(
  'pending_changes',
  {
    id: text('id').primaryKey(),
    guildId: text('guild_id').notNull(),
    userId: text('user_id').notNull(),
    change: jsonb('change').notNull(),
    fingerprint: text('fingerprint').notNull(),
    expiresAt: ts('expires_at').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('pending_changes_guild_idx').on(t.guildId, t.createdAt), index('pending_changes_expiry_idx').on(t.expiresAt)],
);
