import { bigserial, index, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { ts } from './columns';

// Discord user ↔ a person on an entitlement source (Patreon, Ko-fi), their history, and the
// one-time link tokens of `/link`, `/connect` and the join page.

/**
 * Discord user ↔ a person on a source (`source`: `patreon`, `kofi`; `external_id`: the source's
 * user id, or the email Ko-fi knows a supporter by). One to one in both directions within a source:
 * linking a source account from a second Discord account moves the link (and the roles). `method`:
 * how it was made (`oauth`: the person signed in; `social`: the Discord account on their profile or
 * payment).
 */
export const links = pgTable(
  'links',
  {
    discordUserId: text('discord_user_id').notNull(),
    source: text('source').notNull().default('patreon'),
    externalId: text('external_id').notNull(),
    method: text('method').$type<'oauth' | 'social'>().notNull(),
    linkedAt: ts('linked_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'links_pkey', columns: [t.discordUserId, t.source] }),
    uniqueIndex('links_external_idx').on(t.source, t.externalId),
  ],
);

/** History of links, so `/status` can tell a user why their link is gone (moved, unlinked). */
export const linkEvents = pgTable(
  'link_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    discordUserId: text('discord_user_id').notNull(),
    source: text('source').notNull().default('patreon'),
    externalId: text('external_id').notNull(),
    kind: text('kind').$type<'linked' | 'unlinked' | 'moved_away'>().notNull(),
    detail: text('detail'),
    at: ts('at').notNull().defaultNow(),
  },
  (t) => [index('link_events_user_idx').on(t.discordUserId, t.at)],
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
  /** A join flow, once Patreon said who the patron is: the Patreon user to link at the Discord step. */
  externalId: text('external_id'),
  /** A join flow's second state (toward Discord's consent page), hashed, consumed once like the first. */
  discordStateNonceHash: text('discord_state_nonce_hash'),
  discordStateUsedAt: ts('discord_state_used_at'),
});
