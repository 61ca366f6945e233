import { index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { ts } from './columns';

// Dashboard sign-ins.

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
    /** The language of the user's Discord client at sign-in: the dashboard's frame speaks it. */
    locale: text('locale'),
    /** The servers Discord listed for the user at sign-in (at most 200): a menu, never an authority. */
    guildIds: jsonb('guild_ids').$type<string[]>().notNull(),
    /** One message for the next page after a change (post, redirect, get). */
    flash: jsonb('flash').$type<{ tone: 'success' | 'warning' | 'error' | 'info'; text: string } | null>(),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [index('dashboard_sessions_user_idx').on(t.discordUserId), index('dashboard_sessions_expires_idx').on(t.expiresAt)],
);
