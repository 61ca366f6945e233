import { boolean, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { ts } from './columns';

// Ko-fi: the payments its webhook delivered, the codes that link a supporter from `/link`, and the
// servers' donation settings (src/edges/outbound/kofi, docs/kofi.md).

/**
 * One Ko-fi payment as delivered (`POST /webhooks/kofi`), stored before the 200 and unique by
 * Ko-fi's `message_id` (Ko-fi retries a delivery until it gets a 200). `email` (lower case) is the
 * supporter's external id on the `kofi` source; the payment's message itself is not kept, only the
 * hash of a link code found in it.
 */
export const kofiPayments = pgTable(
  'kofi_payments',
  {
    messageId: text('message_id').primaryKey(),
    /** `Donation`, `Subscription`, `Commission`, `Shop Order` (or a type Ko-fi adds later: kept, grants nothing). */
    kind: text('kind').notNull(),
    paidAt: ts('paid_at').notNull(),
    email: text('email'),
    fromName: text('from_name'),
    tierName: text('tier_name'),
    amountCents: integer('amount_cents').notNull(),
    currency: text('currency'),
    isSubscriptionPayment: boolean('is_subscription_payment').notNull(),
    isFirstSubscriptionPayment: boolean('is_first_subscription_payment').notNull(),
    /** Ko-fi's `is_public`: the supporter agreed to be named; a welcome names only them. */
    isPublic: boolean('is_public').notNull().default(false),
    transactionId: text('transaction_id'),
    /** The Discord account Ko-fi's Discord integration names (`discord_userid`), if any. */
    discordUserId: text('discord_user_id'),
    /** SHA-256 of a `/link` code found in the payment's message, if any. */
    linkCodeHash: text('link_code_hash'),
    receivedAt: ts('received_at').notNull().defaultNow(),
    /** When the payment was linked and its supporter's roles planned; null until then (a job does it). */
    processedAt: ts('processed_at'),
  },
  (t) => [index('kofi_payments_email_idx').on(t.email, t.paidAt), index('kofi_payments_unprocessed_idx').on(t.processedAt)],
);

/** A one-time code `/link` gave a Discord user to put in their next Ko-fi payment's message (stored hashed). */
export const kofiLinkCodes = pgTable(
  'kofi_link_codes',
  {
    codeHash: text('code_hash').primaryKey(),
    discordUserId: text('discord_user_id').notNull(),
    guildId: text('guild_id').notNull(),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
  },
  (t) => [index('kofi_link_codes_user_idx').on(t.discordUserId)],
);

/** A server's Ko-fi donation setting: a donation of at least `minCents` entitles to `kofi:donation` for `days` days. */
export const kofiDonationSettings = pgTable('kofi_donation_settings', {
  guildId: text('guild_id').primaryKey(),
  minCents: integer('min_cents').notNull(),
  days: integer('days').notNull(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});
