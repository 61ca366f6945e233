import { boolean, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { ts } from './columns';

// Campaigns on the membership service, their tiers, and their creators' OAuth tokens (sealed).

/**
 * A campaign Tierlink serves, on an entitlement source (`patreon`; `kofi`: the Ko-fi page, id
 * `kofi`). Campaign ids are unique across sources.
 */
export const campaigns = pgTable('campaigns', {
  id: text('id').primaryKey(),
  source: text('source').notNull().default('patreon'),
  creatorUserId: text('creator_user_id').notNull(),
  name: text('name').notNull(),
  url: text('url'),
  /** The campaign's name in its Patreon address; the join page's default slug. */
  vanity: text('vanity'),
  patronCount: integer('patron_count'),
  /**
   * How often patrons pay, as the source states it: `month` (Patreon's `is_monthly`), `creation`
   * (per creation), `year`; null when not read yet.
   */
  payPer: text('pay_per'),
  /** Patreon's `pay_per_name`: what a per-creation campaign calls a creation ("video"), as the creator typed it. */
  payPerName: text('pay_per_name'),
  /** The currency of its prices (ISO 4217) when the source states it; null: PATREON_CURRENCY. */
  currency: text('currency'),
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
