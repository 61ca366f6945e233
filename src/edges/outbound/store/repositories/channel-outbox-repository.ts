import { and, asc, eq, gt, inArray, lte, sql } from 'drizzle-orm';
import type { ModLogChange } from '../../../../core/channel-posts';
import type { Db } from '../database';
import { announcements, auditLog, channelPacing, memberSnapshots, modLogState, postPolls } from '../schema';

/** Where a server's mod-log stands in the audit log. */
export interface ModLogStateRow {
  guildId: string;
  /** The last audit row id the mod-log has posted. */
  cursorId: number;
  /** The last audit row id of the batch being posted, if one is under way. */
  batchToId: number | null;
  batchPosted: number;
  lastError: string | null;
  updatedAt: Date;
}

/** An announcement (a new patron, a new post), composed when written and posted from the outbox. */
export interface AnnouncementRow {
  id: number;
  guildId: string;
  kind: 'patron' | 'post';
  /** `post:<id>` or `member:<id>:<pledge start>`. */
  subject: string;
  channelId: string;
  message: Record<string, unknown>;
  status: 'pending' | 'posted' | 'dead';
  attempts: number;
  runAt: Date;
  lastError: string | null;
  messageId: string | null;
  createdAt: Date;
  postedAt: Date | null;
}

/** The audit rows a mod-log posts: role changes on Discord (requests, held, blocked), not bookkeeping. */
export interface ModLogRow extends Omit<ModLogChange, 'userId'> {
  id: number;
  discordUserId: string;
}

/** A member whose current pledge began recently and who is entitled now (src/app/channels/announcements.ts). */
export interface RecentPledge {
  campaignId: string;
  memberId: string;
  externalUserId: string | null;
  fullName: string | null;
  pledgeStart: Date;
  entitledTierIds: string[];
  source: string;
  /** Patreon's `hide_pledges` as last read; null when no read said. */
  hidesPledges: boolean | null;
}

/** The subject of a welcome: once per member and pledge (its start). */
export function welcomeSubject(memberId: string, pledgeStart: Date): string {
  return `member:${memberId}:${pledgeStart.getTime()}`;
}

export function createChannelOutboxRepository(db: Db): ChannelOutboxRepository {
  return {
    async auditHorizon(): Promise<number> {
      const [row] = await db.select({ max: sql<string | number | null>`max(${auditLog.id})` }).from(auditLog);
      return Number(row?.max ?? 0);
    },

    async modLogState(guildId: string): Promise<ModLogStateRow | null> {
      const [row] = await db.select().from(modLogState).where(eq(modLogState.guildId, guildId));
      return row ?? null;
    },

    async startModLog(guildId: string, cursorId: number, now: Date): Promise<void> {
      const values = { cursorId, batchToId: null, batchPosted: 0, lastError: null, updatedAt: now };
      await db
        .insert(modLogState)
        .values({ guildId, ...values })
        .onConflictDoUpdate({ target: modLogState.guildId, set: values });
    },

    async modLogRows(guildId: string, afterId: number, toId: number, limit: number): Promise<ModLogRow[]> {
      const rows = await db
        .select({
          id: auditLog.id,
          discordUserId: auditLog.discordUserId,
          roleId: auditLog.roleId,
          action: auditLog.action,
          outcome: auditLog.outcome,
          trigger: auditLog.trigger,
          reason: auditLog.reason,
          why: auditLog.reasonCode,
          error: auditLog.error,
        })
        .from(auditLog)
        .where(
          and(eq(auditLog.guildId, guildId), gt(auditLog.id, afterId), lte(auditLog.id, toId), inArray(auditLog.action, ['add', 'remove'])),
        )
        .orderBy(asc(auditLog.id))
        .limit(limit);
      return rows as ModLogRow[];
    },

    async beginModLogBatch(guildId: string, batchToId: number, now: Date): Promise<void> {
      await db.update(modLogState).set({ batchToId, batchPosted: 0, updatedAt: now }).where(eq(modLogState.guildId, guildId));
    },

    async modLogPosted(guildId: string, batchPosted: number, now: Date): Promise<void> {
      await db.update(modLogState).set({ batchPosted, lastError: null, updatedAt: now }).where(eq(modLogState.guildId, guildId));
    },

    async finishModLogBatch(guildId: string, cursorId: number, error: string | null, now: Date): Promise<void> {
      await db
        .update(modLogState)
        .set({ cursorId, batchToId: null, batchPosted: 0, lastError: error, updatedAt: now })
        .where(eq(modLogState.guildId, guildId));
    },

    async pacedUntil(channelId: string): Promise<Date | null> {
      const [row] = await db.select().from(channelPacing).where(eq(channelPacing.channelId, channelId));
      return row?.pacedUntil ?? null;
    },

    async setPacedUntil(channelId: string, until: Date): Promise<void> {
      await db
        .insert(channelPacing)
        .values({ channelId, pacedUntil: until })
        .onConflictDoUpdate({ target: channelPacing.channelId, set: { pacedUntil: until } });
    },

    async addAnnouncement(input: {
      guildId: string;
      kind: 'patron' | 'post';
      subject: string;
      channelId: string;
      message: Record<string, unknown>;
      now: Date;
    }): Promise<boolean> {
      const { now, ...values } = input;
      const rows = await db
        .insert(announcements)
        .values({ ...values, runAt: now, createdAt: now })
        .onConflictDoNothing()
        .returning({ id: announcements.id });
      return rows.length > 0;
    },

    async hasAnnouncement(guildId: string, subject: string): Promise<boolean> {
      const rows = await db
        .select({ id: announcements.id })
        .from(announcements)
        .where(and(eq(announcements.guildId, guildId), eq(announcements.subject, subject)))
        .limit(1);
      return rows.length > 0;
    },

    async dueAnnouncements(now: Date, limit: number): Promise<AnnouncementRow[]> {
      return db
        .select()
        .from(announcements)
        .where(
          and(
            eq(announcements.status, 'pending'),
            lte(announcements.runAt, now),
            sql`not exists (select 1 from channel_pacing p where p.channel_id = announcements.channel_id
              and p.paced_until > ${now.toISOString()}::timestamptz)`,
          ),
        )
        .orderBy(asc(announcements.id))
        .limit(limit);
    },

    async announced(id: number, messageId: string, now: Date): Promise<void> {
      await db.update(announcements).set({ status: 'posted', messageId, postedAt: now, lastError: null }).where(eq(announcements.id, id));
    },

    async announcementFailed(id: number, error: string, next: { runAt: Date; dead: boolean }): Promise<void> {
      await db
        .update(announcements)
        .set({ status: next.dead ? 'dead' : 'pending', attempts: sql`${announcements.attempts} + 1`, runAt: next.runAt, lastError: error })
        .where(eq(announcements.id, id));
    },

    async announcementsOf(guildId: string): Promise<AnnouncementRow[]> {
      return db.select().from(announcements).where(eq(announcements.guildId, guildId)).orderBy(asc(announcements.id));
    },

    async recentPledges(guildId: string, campaignIds: readonly string[], since: Date, limit: number): Promise<RecentPledge[]> {
      if (campaignIds.length === 0) return [];
      const rows = await db
        .select({
          campaignId: memberSnapshots.campaignId,
          memberId: memberSnapshots.memberId,
          externalUserId: memberSnapshots.externalUserId,
          fullName: memberSnapshots.fullName,
          pledgeStart: memberSnapshots.pledgeRelationshipStart,
          entitledTierIds: memberSnapshots.entitledTierIds,
          source: memberSnapshots.source,
          hidesPledges: memberSnapshots.hidesPledges,
        })
        .from(memberSnapshots)
        .where(
          and(
            inArray(memberSnapshots.campaignId, [...campaignIds]),
            sql`${memberSnapshots.pledgeRelationshipStart} >= ${since.toISOString()}::timestamptz`,
            eq(memberSnapshots.patronStatus, 'active_patron'),
            sql`jsonb_array_length(${memberSnapshots.entitledTierIds}) > 0`,
            sql`${memberSnapshots.unreadable} is null`,
            sql`not exists (select 1 from announcements a where a.guild_id = ${guildId} and a.kind = 'patron'
              and a.subject = 'member:' || ${memberSnapshots.memberId} || ':'
                || floor(extract(epoch from ${memberSnapshots.pledgeRelationshipStart}) * 1000)::bigint)`,
          ),
        )
        .orderBy(asc(memberSnapshots.pledgeRelationshipStart), asc(memberSnapshots.memberId))
        .limit(limit);
      return rows.flatMap((r) => (r.pledgeStart ? [{ ...r, pledgeStart: r.pledgeStart }] : []));
    },

    async lastPostPoll(campaignId: string): Promise<PostPoll | null> {
      const [row] = await db.select().from(postPolls).where(eq(postPolls.campaignId, campaignId));
      return row ? { at: row.polledAt, resume: row.resumeCursor, error: row.lastError } : null;
    },

    async notePostPoll(campaignId: string, at: Date, outcome: { error: string } | { resume: string | null }): Promise<void> {
      const set =
        'error' in outcome
          ? { polledAt: at, lastError: outcome.error.slice(0, 500) }
          : { polledAt: at, lastError: null, resumeCursor: storableCursor(outcome.resume) };
      await db
        .insert(postPolls)
        .values({ campaignId, ...set })
        .onConflictDoUpdate({ target: postPolls.campaignId, set });
    },
  };
}

/** The last poll of a campaign's posts: when, the service's cursor the next poll reads on from, and why it failed if it did. */
export interface PostPoll {
  at: Date;
  resume: string | null;
  error: string | null;
}

/** The longest cursor kept: the service's cursors are short; a longer one is not stored, and the next poll starts over. */
const MAX_CURSOR_LENGTH = 1_000;

function storableCursor(cursor: string | null): string | null {
  return cursor !== null && cursor.length <= MAX_CURSOR_LENGTH ? cursor : null;
}

/**
 * The durable side of the channels Tierlink posts in: where each guild's mod-log stands, when each
 * channel may next be posted in, the announcements outbox (one row per guild, kind and subject, for
 * ever) and the last poll of each campaign's posts.
 */
export interface ChannelOutboxRepository {
  /** The newest audit row's id (0 when there is none). */
  auditHorizon(): Promise<number>;
  modLogState(guildId: string): Promise<ModLogStateRow | null>;
  /** Starts (or restarts) a guild's mod-log after `cursorId`: nothing older is posted. */
  startModLog(guildId: string, cursorId: number, now: Date): Promise<void>;
  /** Mod-log rows of a guild after `afterId`, up to `toId`, oldest first, at most `limit`. */
  modLogRows(guildId: string, afterId: number, toId: number, limit: number): Promise<ModLogRow[]>;
  beginModLogBatch(guildId: string, batchToId: number, now: Date): Promise<void>;
  modLogPosted(guildId: string, batchPosted: number, now: Date): Promise<void>;
  /** The batch is done (posted, or given up with `error`): the cursor moves past it. */
  finishModLogBatch(guildId: string, cursorId: number, error: string | null, now: Date): Promise<void>;
  pacedUntil(channelId: string): Promise<Date | null>;
  setPacedUntil(channelId: string, until: Date): Promise<void>;
  /** Writes an announcement unless this guild already has one of that kind and subject; true when written. */
  addAnnouncement(input: {
    guildId: string;
    kind: 'patron' | 'post';
    subject: string;
    channelId: string;
    message: Record<string, unknown>;
    now: Date;
  }): Promise<boolean>;
  /** Whether this server already holds an announcement of this subject (written once, whatever its state). */
  hasAnnouncement(guildId: string, subject: string): Promise<boolean>;
  /** Pending announcements due at `now`, oldest first, leaving out channels whose window is spent (they cannot hold up the others). */
  dueAnnouncements(now: Date, limit: number): Promise<AnnouncementRow[]>;
  announced(id: number, messageId: string, now: Date): Promise<void>;
  announcementFailed(id: number, error: string, next: { runAt: Date; dead: boolean }): Promise<void>;
  announcementsOf(guildId: string): Promise<AnnouncementRow[]>;
  /**
   * Entitled members of `campaignIds` whose current pledge began at or after `since` and whom
   * `guildId` has not welcomed yet (at most `limit`, oldest first). The subject of a welcome is
   * {@link welcomeSubject}; the query builds the same text to leave those out.
   */
  recentPledges(guildId: string, campaignIds: readonly string[], since: Date, limit: number): Promise<RecentPledge[]>;
  lastPostPoll(campaignId: string): Promise<PostPoll | null>;
  /** A poll that read the posts (and where the next one reads on from), or one that failed (the cursor stays). */
  notePostPoll(campaignId: string, at: Date, outcome: { error: string } | { resume: string | null }): Promise<void>;
}
