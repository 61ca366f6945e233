import { sql } from 'drizzle-orm';
import { bigserial, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { ts } from './columns';

// Comps (a tier given by the server's staff for a while) and the server's roles by tenure and amount.

/**
 * A comp: a member of a server is entitled to a tier until `until`, whatever any other source says
 * (`/comp grant`). It ends by itself at `until` (a scheduled check), or when revoked; ended comps
 * are kept for the audit trail and pruned after a year (src/app/housekeeping/retention.ts).
 */
export const comps = pgTable(
  'comps',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    guildId: text('guild_id').notNull(),
    discordUserId: text('discord_user_id').notNull(),
    campaignId: text('campaign_id').notNull(),
    tierId: text('tier_id').notNull(),
    until: ts('until').notNull(),
    reason: text('reason').notNull(),
    grantedBy: text('granted_by').notNull(),
    grantedAt: ts('granted_at').notNull().defaultNow(),
    revokedAt: ts('revoked_at'),
    revokedBy: text('revoked_by'),
  },
  (t) => [
    // One comp in force per member and tier: granting again replaces its end and reason.
    uniqueIndex('comps_in_force_idx')
      .on(t.guildId, t.discordUserId, t.campaignId, t.tierId)
      .where(sql`${t.revokedAt} is null`),
    index('comps_user_idx').on(t.discordUserId),
    index('comps_until_idx').on(t.until),
  ],
);

/** A server's role for patrons of at least N months (`tenure`), or for at least X a month whatever the tier (`amount`). */
export const ruleRoles = pgTable(
  'rule_roles',
  {
    guildId: text('guild_id').notNull(),
    kind: text('kind').$type<'tenure' | 'amount'>().notNull(),
    /** Months (`tenure`), or cents a month in the campaign's currency (`amount`). */
    threshold: integer('threshold').notNull(),
    roleId: text('role_id').notNull(),
    createdBy: text('created_by'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('rule_roles_role_idx').on(t.guildId, t.kind, t.roleId)],
);
