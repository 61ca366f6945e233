import { bigserial, index, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import type { ReasonCode } from '../../../../core/planner/reasons';
import type { HeldWhy } from '../../../../core/sync-report';
import { ts } from './columns';

// The ledger of roles Tierlink granted and the audit log of every role change.

/** The ledger: every role Tierlink granted. Tierlink removes only roles recorded here (unless `strict`). */
export const roleGrants = pgTable(
  'role_grants',
  {
    guildId: text('guild_id').notNull(),
    discordUserId: text('discord_user_id').notNull(),
    roleId: text('role_id').notNull(),
    campaignId: text('campaign_id'),
    tierId: text('tier_id'),
    kind: text('kind').$type<'tier' | 'former' | 'follower' | 'joiner' | 'tenure' | 'amount'>().notNull(),
    /** The entitlement sources that justified the grant when it was made (`patreon`, `comp`, `kofi`); empty for setting roles. */
    sources: text('sources').array().notNull().default([]),
    reason: text('reason').notNull(),
    /** `reason` as a code and its parameters, for readers of another language; null on rows written before codes were. */
    reasonCode: jsonb('reason_code').$type<ReasonCode>(),
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
    /** `reason` as a code and its parameters (src/core/planner/reasons.ts); null on rows written before codes were: shown as recorded. */
    reasonCode: jsonb('reason_code').$type<ReasonCode>(),
    error: text('error'),
    /** A held change: why the run held its removals (what `error` says), as facts. */
    heldWhy: jsonb('held_why').$type<HeldWhy>(),
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
