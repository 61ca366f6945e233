import { and, desc, eq, gt, gte, inArray, isNotNull, isNull, lt, notExists, or, sql } from 'drizzle-orm';
import type { Db } from '../store/database';
import { campaigns, kofiDonationSettings, kofiLinkCodes, kofiPayments, links, tiers } from '../store/schema';
import { KOFI, type KofiPayment } from './kofi-payment';
import type { DonationSetting } from './kofi-states';

type PaymentRow = typeof kofiPayments.$inferSelect;

/** A supporter who paid on Ko-fi and is linked to no Discord account yet (the dashboard's Members page). */
export interface UnlinkedSupporter {
  email: string;
  fromName: string | null;
  tierName: string | null;
  kind: string;
  lastPaidAt: Date;
}

const toPayment = (r: PaymentRow): KofiPayment => ({
  messageId: r.messageId,
  kind: r.kind,
  paidAt: r.paidAt,
  email: r.email,
  fromName: r.fromName,
  tierName: r.tierName,
  amountCents: r.amountCents,
  currency: r.currency,
  isSubscriptionPayment: r.isSubscriptionPayment,
  isFirstSubscriptionPayment: r.isFirstSubscriptionPayment,
  isPublic: r.isPublic,
  transactionId: r.transactionId,
  discordUserId: r.discordUserId,
  linkCodeHash: r.linkCodeHash,
});

export function createKofiPaymentStore(db: Db): KofiPaymentStore {
  return {
    async insert(payment: KofiPayment, receivedAt: Date): Promise<boolean> {
      const rows = await db
        .insert(kofiPayments)
        .values({ ...payment, receivedAt })
        .onConflictDoNothing({ target: kofiPayments.messageId })
        .returning({ id: kofiPayments.messageId });
      return rows.length > 0;
    },

    async get(messageId: string): Promise<(KofiPayment & { processedAt: Date | null }) | null> {
      const [row] = await db.select().from(kofiPayments).where(eq(kofiPayments.messageId, messageId));
      return row ? { ...toPayment(row), processedAt: row.processedAt } : null;
    },

    async markProcessed(messageId: string, at: Date): Promise<void> {
      await db.update(kofiPayments).set({ processedAt: at }).where(eq(kofiPayments.messageId, messageId));
    },

    async unprocessed(limit: number): Promise<string[]> {
      const rows = await db
        .select({ id: kofiPayments.messageId })
        .from(kofiPayments)
        .where(isNull(kofiPayments.processedAt))
        .orderBy(kofiPayments.receivedAt)
        .limit(limit);
      return rows.map((r) => r.id);
    },

    async ofSupporters(emails: readonly string[]): Promise<Map<string, KofiPayment[]>> {
      const out = new Map<string, KofiPayment[]>();
      if (emails.length === 0) return out;
      const rows = await db
        .select()
        .from(kofiPayments)
        .where(inArray(kofiPayments.email, [...emails]))
        .orderBy(kofiPayments.paidAt);
      for (const row of rows) out.set(row.email!, [...(out.get(row.email!) ?? []), toPayment(row)]);
      return out;
    },

    async unlinkedSince(since: Date, limit: number): Promise<UnlinkedSupporter[]> {
      const rows = await db
        .selectDistinctOn([kofiPayments.email])
        .from(kofiPayments)
        .where(
          and(
            sql`${kofiPayments.email} is not null`,
            notExists(
              db
                .select({ one: sql`1` })
                .from(links)
                .where(and(eq(links.source, KOFI), eq(links.externalId, kofiPayments.email))),
            ),
          ),
        )
        .orderBy(kofiPayments.email, desc(kofiPayments.paidAt));
      return rows
        .filter((r) => r.paidAt.getTime() >= since.getTime())
        .sort((a, b) => b.paidAt.getTime() - a.paidAt.getTime())
        .slice(0, limit)
        .map((r) => ({ email: r.email!, fromName: r.fromName, tierName: r.tierName, kind: r.kind, lastPaidAt: r.paidAt }));
    },

    async ensureCampaign(now: Date): Promise<void> {
      await db
        .insert(campaigns)
        .values({ id: KOFI, source: KOFI, creatorUserId: KOFI, name: 'Ko-fi', url: 'https://ko-fi.com', tiersRefreshedAt: now })
        .onConflictDoNothing({ target: campaigns.id });
    },

    async seeTier(id: string, title: string, amountCents: number, now: Date): Promise<void> {
      const values = {
        campaignId: KOFI,
        id,
        title,
        amountCents,
        published: true,
        roleIds: { everywhere: [], byGuild: {} },
        updatedAt: now,
      };
      await db
        .insert(tiers)
        .values(values)
        .onConflictDoUpdate({ target: [tiers.campaignId, tiers.id], set: { title, amountCents, removedAt: null, updatedAt: now } });
    },

    /**
     * Only processed payments: processing makes the link a payment carries (a code, a Discord
     * account), and a welcome written before it would name nobody, for good (it is written once).
     */
    async firstSubscriptionsSince(since: Date, limit: number): Promise<KofiPayment[]> {
      const rows = await db
        .select()
        .from(kofiPayments)
        .where(
          and(
            eq(kofiPayments.kind, 'Subscription'),
            eq(kofiPayments.isFirstSubscriptionPayment, true),
            gte(kofiPayments.paidAt, since),
            isNotNull(kofiPayments.processedAt),
          ),
        )
        .orderBy(kofiPayments.paidAt, kofiPayments.messageId)
        .limit(limit);
      return rows.map(toPayment);
    },

    async pruneLinkCodes(before: Date): Promise<number> {
      const rows = await db
        .delete(kofiLinkCodes)
        .where(or(lt(kofiLinkCodes.expiresAt, before), lt(kofiLinkCodes.usedAt, before)))
        .returning({ h: kofiLinkCodes.codeHash });
      return rows.length;
    },

    async saveLinkCode(code: { codeHash: string; discordUserId: string; guildId: string; createdAt: Date; expiresAt: Date }) {
      await db.insert(kofiLinkCodes).values(code);
    },

    async useLinkCode(codeHash: string, now: Date): Promise<{ discordUserId: string; guildId: string } | null> {
      const [row] = await db
        .update(kofiLinkCodes)
        .set({ usedAt: now })
        .where(and(eq(kofiLinkCodes.codeHash, codeHash), isNull(kofiLinkCodes.usedAt), gt(kofiLinkCodes.expiresAt, now)))
        .returning({ discordUserId: kofiLinkCodes.discordUserId, guildId: kofiLinkCodes.guildId });
      return row ?? null;
    },

    async openCodes(discordUserId: string, now: Date): Promise<number> {
      const [row] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(kofiLinkCodes)
        .where(and(eq(kofiLinkCodes.discordUserId, discordUserId), isNull(kofiLinkCodes.usedAt), gt(kofiLinkCodes.expiresAt, now)));
      return row?.n ?? 0;
    },

    async donationSettings(): Promise<DonationSetting[]> {
      return db
        .select({ guildId: kofiDonationSettings.guildId, minCents: kofiDonationSettings.minCents, days: kofiDonationSettings.days })
        .from(kofiDonationSettings);
    },

    async saveDonationSetting(setting: DonationSetting | { guildId: string; minCents: null }, now: Date): Promise<void> {
      if (setting.minCents === null) {
        await db.delete(kofiDonationSettings).where(eq(kofiDonationSettings.guildId, setting.guildId));
        return;
      }
      const values = { ...setting, updatedAt: now };
      await db.insert(kofiDonationSettings).values(values).onConflictDoUpdate({ target: kofiDonationSettings.guildId, set: values });
    },
  };
}

/** Ko-fi's payments, `/link` codes and the servers' donation settings. */
export interface KofiPaymentStore {
  /** Stores a delivery once: false when its `message_id` was stored already (Ko-fi's retry, a replay). */
  insert(payment: KofiPayment, receivedAt: Date): Promise<boolean>;
  get(messageId: string): Promise<(KofiPayment & { processedAt: Date | null }) | null>;
  markProcessed(messageId: string, at: Date): Promise<void>;
  /** Payments stored but not processed (a process stopped between the 200 and the job): oldest first. */
  unprocessed(limit: number): Promise<string[]>;
  /** Every payment of these supporters, by email. */
  ofSupporters(emails: readonly string[]): Promise<Map<string, KofiPayment[]>>;
  /** Supporters (by email) whose latest payment is at or after `since` and who are linked to nobody, latest first. */
  unlinkedSince(since: Date, limit: number): Promise<UnlinkedSupporter[]>;
  /** The Ko-fi page as a campaign of the `kofi` source (its tiers are the tier names payments carry). */
  ensureCampaign(now: Date): Promise<void>;
  /** A tier seen in a payment (or one of Tierlink's own: any membership, a donation); its amount follows the latest payment. */
  seeTier(id: string, title: string, amountCents: number, now: Date): Promise<void>;
  /** First payments of subscriptions since `since`, oldest first: the new supporters a welcome may greet. */
  firstSubscriptionsSince(since: Date, limit: number): Promise<KofiPayment[]>;
  /** Drops `/link` codes used or expired before `before` (the hourly housekeeping). */
  pruneLinkCodes(before: Date): Promise<number>;
  saveLinkCode(code: { codeHash: string; discordUserId: string; guildId: string; createdAt: Date; expiresAt: Date }): Promise<void>;
  /** The Discord user a code was given to, if it is unused and unexpired; it is used up by this call. */
  useLinkCode(codeHash: string, now: Date): Promise<{ discordUserId: string; guildId: string } | null>;
  /** Codes a user holds unused: bounded, so nobody fills the table. */
  openCodes(discordUserId: string, now: Date): Promise<number>;
  donationSettings(): Promise<DonationSetting[]>;
  saveDonationSetting(setting: DonationSetting | { guildId: string; minCents: null }, now: Date): Promise<void>;
}
