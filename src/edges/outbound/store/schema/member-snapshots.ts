import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { ts } from './columns';

// The last known state of each member of a campaign, as a source that reads members (Patreon) read it.

/** Why a member's last read could not be understood (`member_snapshots.unreadable`); `since`: ISO time of the first such read. */
export interface UnreadableMark {
  attribute: string;
  reason: string;
  since: string;
}

/** The last known state of a member of a campaign (webhook re-read, link, or full sync). */
export const memberSnapshots = pgTable(
  'member_snapshots',
  {
    /** The entitlement source that read it (`patreon`). */
    source: text('source').notNull().default('patreon'),
    campaignId: text('campaign_id').notNull(),
    memberId: text('member_id').notNull(),
    /** The person on the source (Patreon's user id): what a link names. */
    externalUserId: text('external_user_id'),
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
    /**
     * The user's `hide_pledges` as last read ("keep private which creators they pledge to"): never
     * named in a welcome. Null: no read included the user yet (a welcome then names nobody either).
     */
    hidesPledges: boolean('hides_pledges'),
    /** The member's `full_name` as last read: the dashboard searches members by it. */
    fullName: text('full_name'),
    /** Which read wrote it: a link, a webhook's re-read, a webhook's payload (unconfirmed), the full sync. */
    readBy: text('read_by').$type<'link' | 'webhook' | 'webhook-payload' | 'sync'>().notNull(),
    fetchedAt: ts('fetched_at').notNull().defaultNow(),
    /**
     * A digest of the read the planner sees (`readDigest`, src/edges/outbound/store/repositories/snapshot-repository.ts):
     * a full sync that reads the same again writes nothing. Null: write at the next read (rows of an
     * earlier release, and members marked unreadable, whose mark the next readable read clears).
     */
    readHash: text('read_hash'),
  },
  (t) => [
    primaryKey({ name: 'member_snapshots_pkey', columns: [t.source, t.campaignId, t.memberId] }),
    index('member_snapshots_user_idx').on(t.campaignId, t.externalUserId),
    index('member_snapshots_external_user_idx').on(t.source, t.externalUserId),
    // New pledges to welcome (src/app/channels/announcements.ts): recent starts of a campaign.
    index('member_snapshots_pledge_start_idx').on(t.campaignId, t.pledgeRelationshipStart),
    // The Members list's rebuild check (src/edges/outbound/store/repositories/member-list-repository.ts): the newest read of a campaign.
    index('member_snapshots_fetched_idx').on(t.campaignId, t.fetchedAt),
  ],
);
