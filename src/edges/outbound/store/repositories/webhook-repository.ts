import { and, desc, eq, gte, inArray, lt, notInArray, sql } from 'drizzle-orm';
import type { SealContext, SecretBox } from '../secret-box';
import { type Db, queryRows } from '../database';
import { webhookInbox, webhooks } from '../schema';

/**
 * The webhooks this client registered on the service (secrets sealed) and the inbox of verified
 * deliveries. An inbox write is one INSERT, on purpose: it sits between a delivery and its 200,
 * and the receiver must sustain 1,000 of them a second (several concurrent deliveries share one
 * INSERT through the receiver's `createInboxWriter`).
 */
export interface WebhookRepository {
  insertDeliveries(deliveries: readonly InboxDelivery[]): Promise<Array<number | null>>;
  /**
   * Writes a verified delivery, due at once (`run_at` = receipt, so an injected clock governs it);
   * null when it is a replay (see {@link insertDeliveries}).
   */
  insertDelivery(delivery: InboxDelivery): Promise<number | null>;
  delivery(id: number): Promise<InboxRow | null>;
  deliveries(): Promise<InboxRow[]>;
  /**
   * The newest deliveries of these campaigns, newest first, at most `limit`: what a server's staff
   * see of Patreon's webhook. Processed ones stay for 7 days (`pruneDone`), failed ones longer.
   */
  recentOf(campaignIds: readonly string[], limit: number): Promise<InboxRow[]>;
  /** The campaign's deliveries given up (dead letters) since `since`: how many, and when the last was. */
  givenUpSince(campaignId: string, since: Date): Promise<{ count: number; last: Date | null }>;
  /**
   * Deletes processed deliveries finished before `before`. Dead letters are kept: they are the
   * record of deliveries that could not be processed, for an operator to read.
   */
  pruneDone(before: Date): Promise<number>;
  upsert(webhook: WebhookInput, checkedAt: Date): Promise<void>;
  /** The campaign's stored webhooks, the most recently checked first. */
  forCampaign(campaignId: string): Promise<StoredWebhook[]>;
  /** Forgets the campaign's webhooks that are not in `keepIds` (gone from the service). Returns their ids. */
  removeOthers(campaignId: string, keepIds: readonly string[]): Promise<string[]>;
  /** Every stored secret, decrypted. A secret sealed with another SECRET_KEY is skipped, not fatal. */
  secrets(onUnreadable?: (webhookId: string, error: unknown) => void): Promise<StoredWebhookSecret[]>;
}
/** A webhook this client registered on the service, as stored (its secret sealed). */
export interface WebhookRow {
  id: string;
  campaignId: string;
  uri: string;
  triggers: string[];
  /** The signing secret, sealed with SECRET_KEY (src/edges/outbound/store/secret-box.ts). */
  secretEnc: string;
  /** The service's own state of the webhook: paused after repeated failed deliveries. */
  paused: boolean;
  numConsecutiveTimesFailed: number;
  lastAttemptedAt: Date | null;
  /** When this client last read the webhook from the service. */
  checkedAt: Date | null;
  createdAt: Date;
}
/** A stored webhook without its secret: what health readers and registration compare against. */
export type StoredWebhook = Omit<WebhookRow, 'secretEnc'>;
/** A verified delivery in the inbox, as stored: processed from here, so a crash between receipt and processing loses nothing. */
export interface InboxRow {
  id: number;
  receivedAt: Date;
  trigger: string | null;
  campaignId: string | null;
  body: string;
  /** SHA-256 (hex) of the body bytes as received; null for rows from before replays were refused. */
  bodyHash: string | null;
  status: 'pending' | 'done' | 'dead';
  attempts: number;
  runAt: Date;
  lockedUntil: Date | null;
  lastError: string | null;
  finishedAt: Date | null;
}

export interface WebhookInput {
  id: string;
  campaignId: string;
  uri: string;
  triggers: readonly string[];
  /** Plain text here; sealed with SECRET_KEY before it reaches the database. */
  secret: string;
  paused: boolean;
  numConsecutiveTimesFailed: number;
  lastAttemptedAt: Date | null;
}

export interface InboxDelivery {
  receivedAt: Date;
  trigger: string | null;
  campaignId: string | null;
  body: string;
  /** SHA-256 (hex) of the body bytes as received: the replay check ({@link REPLAY_WINDOW_MS}). */
  bodyHash: string;
}

/** A delivery whose body was seen within this window is a replay (docs/decisions.md §10). */
export const REPLAY_WINDOW_MS = 7 * 24 * 60 * 60_000;

/** A stored webhook's secret, decrypted: one verification candidate of the receiver. */
export interface StoredWebhookSecret {
  webhookId: string;
  campaignId: string;
  secret: string;
}

/** Where a webhook's secret is sealed: the `secret_enc` column of its row (src/edges/outbound/store/secret-box.ts). */
export const webhookSecretSeal = (webhookId: string): SealContext => ({ table: 'webhooks', column: 'secret_enc', row: webhookId });

const withoutSecret = {
  id: webhooks.id,
  campaignId: webhooks.campaignId,
  uri: webhooks.uri,
  triggers: webhooks.triggers,
  paused: webhooks.paused,
  numConsecutiveTimesFailed: webhooks.numConsecutiveTimesFailed,
  lastAttemptedAt: webhooks.lastAttemptedAt,
  checkedAt: webhooks.checkedAt,
  createdAt: webhooks.createdAt,
};

export function createWebhookRepository(db: Db, box: SecretBox): WebhookRepository {
  /**
   * Writes several deliveries in one statement (one commit), returning for each, in input order, its
   * inbox id. A body first seen is a new row: its hash is recorded and the row inserted by the same
   * statement, so a crash can never leave a delivery marked seen but not queued. A replay (its body
   * hash seen within {@link REPLAY_WINDOW_MS}, before or earlier in the batch) is never dropped
   * unread, since the same bytes can be a change and its undoing (a tier and back): it re-arms the
   * row that holds those bytes (see {@link rearmReplays}), so replays add no row and the processor
   * decides from the member's state whether a read is due. `bigserial` draws ids in VALUES order.
   */
  async function insertDeliveries(deliveries: readonly InboxDelivery[]): Promise<Array<number | null>> {
    if (deliveries.length === 0) return [];
    const first = new Map<string, number>();
    deliveries.forEach((d, i) => {
      if (!first.has(d.bodyHash)) first.set(d.bodyHash, i);
    });
    const unique = [...first.values()].map((i) => deliveries[i]!);
    const cutoff = new Date(Math.min(...unique.map((d) => d.receivedAt.getTime())) - REPLAY_WINDOW_MS);
    const values = sql.join(
      unique.map(
        (d, ord) =>
          sql`(${ord}::int, ${d.receivedAt}::timestamptz, ${d.trigger}::text, ${d.campaignId}::text, ${d.body}::text, ${d.bodyHash}::text)`,
      ),
      sql`, `,
    );
    const rows = await queryRows<{ id: string | number; body_hash: string }>(
      db,
      sql`with v(ord, received_at, trigger, campaign_id, body, body_hash) as (values ${values}),
        fresh as (
          insert into webhook_seen (body_hash, seen_at) select body_hash, received_at from v
          on conflict (body_hash) do update set seen_at = excluded.seen_at where webhook_seen.seen_at < ${cutoff}
          returning body_hash)
        insert into webhook_inbox (received_at, run_at, trigger, campaign_id, body, body_hash)
        select v.received_at, v.received_at, v.trigger, v.campaign_id, v.body, v.body_hash
        from v join fresh on fresh.body_hash = v.body_hash
        order by v.ord
        returning id, body_hash`,
    );
    const idOf = new Map(rows.map((r) => [r.body_hash, Number(r.id)]));
    const replays = unique.filter((d) => !idOf.has(d.bodyHash));
    for (const replay of replays) idOf.set(replay.bodyHash, await rearmReplay(replay));
    // A second copy within the batch is answered by the first's row: the same bytes, one processing.
    return deliveries.map((d) => idOf.get(d.bodyHash) ?? null);
  }

  /**
   * A replay's row: the finished row holding the same bytes, due again at once (as received now);
   * the waiting one when it has not been claimed yet (it will read the state of its processing
   * time, so this copy adds nothing); a new row when the only copy is being worked now (its read
   * may predate the change these bytes bring back) or was pruned. A waiting row is preferred, then a
   * finished one, so replays add a row only while every copy of the body is being worked.
   */
  async function rearmReplay(d: InboxDelivery): Promise<number> {
    const [row] = await queryRows<{ id: string | number }>(
      db,
      sql`with target as (
            select id, status, locked_until from webhook_inbox where body_hash = ${d.bodyHash}
            order by (status = 'pending' and (locked_until is null or locked_until < ${d.receivedAt})) desc, (status <> 'pending') desc, id desc
            limit 1),
          rearmed as (
            update webhook_inbox w set status = 'pending', received_at = ${d.receivedAt}, run_at = ${d.receivedAt}, attempts = 0,
              locked_until = null, last_error = null, finished_at = null
            from target where w.id = target.id and target.status <> 'pending'
            returning w.id),
          waiting as (
            select id from target where status = 'pending' and (locked_until is null or locked_until < ${d.receivedAt})),
          added as (
            insert into webhook_inbox (received_at, run_at, trigger, campaign_id, body, body_hash)
            select ${d.receivedAt}::timestamptz, ${d.receivedAt}::timestamptz, ${d.trigger}::text, ${d.campaignId}::text, ${d.body}::text, ${d.bodyHash}::text
            where not exists (select 1 from rearmed) and not exists (select 1 from waiting)
            returning id)
          select id from rearmed union all select id from waiting union all select id from added`,
    );
    return Number(row!.id);
  }

  return {
    insertDeliveries,

    async insertDelivery(delivery: InboxDelivery): Promise<number | null> {
      const [id] = await insertDeliveries([delivery]);
      return id ?? null;
    },

    async delivery(id: number): Promise<InboxRow | null> {
      const [row] = await db.select().from(webhookInbox).where(eq(webhookInbox.id, id));
      return row ?? null;
    },

    async deliveries(): Promise<InboxRow[]> {
      return db.select().from(webhookInbox).orderBy(webhookInbox.id);
    },

    async recentOf(campaignIds: readonly string[], limit: number): Promise<InboxRow[]> {
      if (campaignIds.length === 0) return [];
      return db
        .select()
        .from(webhookInbox)
        .where(inArray(webhookInbox.campaignId, [...campaignIds]))
        .orderBy(desc(webhookInbox.id))
        .limit(limit);
    },

    async givenUpSince(campaignId: string, since: Date): Promise<{ count: number; last: Date | null }> {
      const [row] = await db
        .select({ count: sql<number>`count(*)::int`, last: sql<Date | string | null>`max(${webhookInbox.finishedAt})` })
        .from(webhookInbox)
        .where(and(eq(webhookInbox.campaignId, campaignId), eq(webhookInbox.status, 'dead'), gte(webhookInbox.finishedAt, since)));
      const last = row?.last ?? null;
      return { count: Number(row?.count ?? 0), last: last === null ? null : new Date(last) };
    },

    async pruneDone(before: Date): Promise<number> {
      const rows = await db
        .delete(webhookInbox)
        .where(and(eq(webhookInbox.status, 'done'), lt(webhookInbox.finishedAt, before)))
        .returning({ id: webhookInbox.id });
      return rows.length;
    },

    async upsert(webhook: WebhookInput, checkedAt: Date): Promise<void> {
      const values = {
        campaignId: webhook.campaignId,
        uri: webhook.uri,
        triggers: [...webhook.triggers],
        secretEnc: box.encrypt(webhook.secret, webhookSecretSeal(webhook.id)),
        paused: webhook.paused,
        numConsecutiveTimesFailed: webhook.numConsecutiveTimesFailed,
        lastAttemptedAt: webhook.lastAttemptedAt,
        checkedAt,
      };
      await db
        .insert(webhooks)
        .values({ id: webhook.id, ...values, createdAt: checkedAt })
        .onConflictDoUpdate({ target: webhooks.id, set: values });
    },

    async forCampaign(campaignId: string): Promise<StoredWebhook[]> {
      return db
        .select(withoutSecret)
        .from(webhooks)
        .where(eq(webhooks.campaignId, campaignId))
        .orderBy(sql`${webhooks.checkedAt} desc nulls last`, desc(webhooks.createdAt), webhooks.id);
    },

    async removeOthers(campaignId: string, keepIds: readonly string[]): Promise<string[]> {
      const rows = await db
        .delete(webhooks)
        .where(and(eq(webhooks.campaignId, campaignId), keepIds.length > 0 ? notInArray(webhooks.id, [...keepIds]) : undefined))
        .returning({ id: webhooks.id });
      return rows.map((r) => r.id);
    },

    async secrets(onUnreadable?: (webhookId: string, error: unknown) => void): Promise<StoredWebhookSecret[]> {
      const rows = await db
        .select({ id: webhooks.id, campaignId: webhooks.campaignId, secretEnc: webhooks.secretEnc })
        .from(webhooks)
        .orderBy(webhooks.id);
      return rows.flatMap((row) => {
        try {
          return [{ webhookId: row.id, campaignId: row.campaignId, secret: box.decrypt(row.secretEnc, webhookSecretSeal(row.id)) }];
        } catch (error) {
          onUnreadable?.(row.id, error);
          return [];
        }
      });
    },
  };
}
