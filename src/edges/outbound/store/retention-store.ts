import { type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows } from './database';

/** Rows deleted per statement: a long-grown table is pruned in short statements, never one long lock. */
export const PRUNE_BATCH = 5_000;

/** What each prune deleted. */
export type PruneCounts = Record<
  | 'auditLog'
  | 'syncRuns'
  | 'deadDeliveries'
  | 'deadJobs'
  | 'doneJobs'
  | 'seenDeliveries'
  | 'linkEvents'
  | 'orphanCredentials'
  | 'announcements'
  | 'channelPacing'
  | 'postPolls'
  | 'directMessages'
  | 'kofiPayments',
  number
>;

export interface PruneBefore {
  audit: Date;
  syncRuns: Date;
  deadLetters: Date;
  doneJobs: Date;
  seenDeliveries: Date;
  linkEvents: Date;
  /** Credentials of creators who serve no campaign, unchanged since. */
  orphanCredentials: Date;
  /** Announcements written before this (posted, given up, or too stale to post). */
  announcements: Date;
  /** Channel windows that ended before this. */
  channelPacing: Date;
  /** Direct messages to patrons (sent, refused or given up) written before this. */
  directMessages: Date;
  /**
   * Ko-fi payments that grant nothing now, paid before this: donations (no donation setting lasts
   * longer), commissions and shop orders, once processed. Subscription payments stay: a supporter's
   * tenure counts from the first payment of their unbroken run (src/edges/outbound/kofi/kofi-states.ts).
   */
  kofiPayments: Date;
}

export function createRetentionStore(db: Db): RetentionStore {
  async function inBatches(table: string, key: string, where: SQL): Promise<number> {
    const t = sql.identifier(table);
    const k = sql.identifier(key);
    let total = 0;
    for (;;) {
      const rows = await queryRows<{ k: unknown }>(
        db,
        sql`delete from ${t} where ${k} in (select ${k} from ${t} where ${where} limit ${PRUNE_BATCH}) returning ${k} as k`,
      );
      total += rows.length;
      if (rows.length < PRUNE_BATCH) return total;
    }
  }

  return {
    async prune(before: PruneBefore): Promise<PruneCounts> {
      const counts: PruneCounts = {
        auditLog: await inBatches('audit_log', 'id', sql`at < ${before.audit}`),
        syncRuns: await inBatches('sync_runs', 'id', sql`status <> 'running' and started_at < ${before.syncRuns}`),
        deadDeliveries: await inBatches('webhook_inbox', 'id', sql`status = 'dead' and finished_at < ${before.deadLetters}`),
        deadJobs: await inBatches('jobs', 'id', sql`status = 'dead' and finished_at < ${before.deadLetters}`),
        doneJobs: await inBatches('jobs', 'id', sql`status = 'done' and finished_at < ${before.doneJobs}`),
        seenDeliveries: await inBatches('webhook_seen', 'body_hash', sql`seen_at < ${before.seenDeliveries}`),
        linkEvents: await inBatches('link_events', 'id', sql`at < ${before.linkEvents}`),
        orphanCredentials: 0,
        announcements: await inBatches('announcements', 'id', sql`created_at < ${before.announcements}`),
        channelPacing: await inBatches('channel_pacing', 'channel_id', sql`paced_until < ${before.channelPacing}`),
        directMessages: await inBatches('direct_messages', 'id', sql`created_at < ${before.directMessages}`),
        kofiPayments: await inBatches(
          'kofi_payments',
          'message_id',
          sql`kind <> 'Subscription' and processed_at is not null and paid_at < ${before.kofiPayments}`,
        ),
        // A campaign no longer served has nothing to poll.
        postPolls: await inBatches(
          'post_polls',
          'campaign_id',
          sql`not exists (select 1 from campaigns where campaigns.id = post_polls.campaign_id)`,
        ),
      };
      const orphans = await queryRows<{ creator_user_id: string }>(
        db,
        sql`delete from creator_credentials c
            where c.updated_at < ${before.orphanCredentials}
              and not exists (select 1 from campaigns where campaigns.creator_user_id = c.creator_user_id)
            returning c.creator_user_id`,
      );
      counts.orphanCredentials = orphans.length;
      if (orphans.length > 0) {
        // The environment's seed names a creator whose tokens are gone: the next start seeds again.
        await db.execute(
          sql`delete from app_state where key = 'creator-env-seed' and value->>'creatorUserId' in (${sql.join(
            orphans.map((o) => sql`${o.creator_user_id}`),
            sql`, `,
          )})`,
        );
      }
      return counts;
    },
  };
}

/**
 * The deletes of the retention job (src/app/housekeeping/retention.ts): each table by its own age column, in
 * batches of {@link PRUNE_BATCH}. Nothing here decides how long anything is kept.
 */
export interface RetentionStore {
  prune(before: PruneBefore): Promise<PruneCounts>;
}
