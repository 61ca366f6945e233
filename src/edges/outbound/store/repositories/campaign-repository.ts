import { and, eq, inArray, isNull, notInArray, sql } from 'drizzle-orm';
import type { Db } from '../database';
import { campaigns, tiers } from '../schema';

/** Campaigns we serve and their tiers as last read from the service. */
export interface CampaignRepository {
  upsert(campaign: {
    id: string;
    creatorUserId: string;
    name: string;
    url: string | null;
    vanity?: string | null;
    patronCount: number | null;
    payPer?: string | null;
    payPerName?: string | null;
  }): Promise<void>;
  get(id: string): Promise<CampaignRow | null>;
  /** Campaigns whose vanity is `vanity`, whatever its case (the join page's default address). */
  byVanity(vanity: string): Promise<CampaignRow[]>;
  all(): Promise<CampaignRow[]>;
  /**
   * Stores tiers as read (a member page or re-read includes the tiers it names), without
   * touching the others: an incomplete view never marks a tier removed.
   */
  upsertTiers(campaignId: string, seen: readonly TierInput[], now: Date): Promise<void>;
  /**
   * Stores the campaign's complete tier list. Tiers that disappeared are kept with `removedAt`
   * set, so their `/map` rows and the roles they granted can still be explained and cleaned up.
   */
  replaceTiers(campaignId: string, current: readonly TierInput[], now: Date): Promise<void>;
  tiersOf(campaignIds: readonly string[]): Promise<TierRow[]>;
}
/** A campaign Tierlink serves, on an entitlement source; ids are unique across sources. */
export interface CampaignRow {
  id: string;
  /** The entitlement source: `patreon`, or `kofi` (the Ko-fi page, id `kofi`). */
  source: string;
  creatorUserId: string;
  name: string;
  url: string | null;
  /** The campaign's name in its Patreon address; the join page's default slug. */
  vanity: string | null;
  patronCount: number | null;
  /**
   * How often patrons pay, as the source states it: `month` (Patreon's `is_monthly`), `creation`
   * (per creation), `year`; null when not read yet.
   */
  payPer: string | null;
  /** Patreon's `pay_per_name`: what a per-creation campaign calls a creation ("video"), as the creator typed it. */
  payPerName: string | null;
  /** The currency of its prices (ISO 4217) when the source states it; null: PATREON_CURRENCY. */
  currency: string | null;
  tiersRefreshedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A tier as the service describes it (what a read of the campaign stores). */
export interface TierInput {
  id: string;
  title: string;
  amountCents: number;
  patronCount: number | null;
  published: boolean;
  /** The parsed `chat_role_ids`/`discord_role_ids`: roles granted in every server, and per server. */
  roleIds: { everywhere: string[]; byGuild: Record<string, string[]> };
}

/** A tier as last read from the service. */
export interface TierRow extends TierInput {
  campaignId: string;
  /** Set when a tier disappears from the campaign; its /map rows stay but grant nothing. */
  removedAt: Date | null;
  updatedAt: Date;
}

export function createCampaignRepository(db: Db): CampaignRepository {
  return {
    async upsert(campaign: {
      id: string;
      creatorUserId: string;
      name: string;
      url: string | null;
      vanity?: string | null;
      patronCount: number | null;
      payPer?: string | null;
      payPerName?: string | null;
    }) {
      const values = { ...campaign, updatedAt: new Date() };
      await db.insert(campaigns).values(values).onConflictDoUpdate({ target: campaigns.id, set: values });
    },

    async get(id: string): Promise<CampaignRow | null> {
      const [row] = await db.select().from(campaigns).where(eq(campaigns.id, id));
      return row ?? null;
    },

    async byVanity(vanity: string): Promise<CampaignRow[]> {
      return db
        .select()
        .from(campaigns)
        .where(sql`lower(${campaigns.vanity}) = ${vanity.toLowerCase()}`)
        .orderBy(campaigns.id);
    },

    async all(): Promise<CampaignRow[]> {
      return db.select().from(campaigns).orderBy(campaigns.id);
    },

    async upsertTiers(campaignId: string, seen: readonly TierInput[], now: Date): Promise<void> {
      if (seen.length === 0) return;
      await db
        .insert(tiers)
        .values(seen.map((t) => ({ campaignId, ...t, removedAt: null, updatedAt: now })))
        .onConflictDoUpdate({
          target: [tiers.campaignId, tiers.id],
          set: {
            title: sql`excluded.title`,
            amountCents: sql`excluded.amount_cents`,
            patronCount: sql`excluded.patron_count`,
            published: sql`excluded.published`,
            roleIds: sql`excluded.role_ids`,
            removedAt: sql`null`,
            updatedAt: sql`excluded.updated_at`,
          },
        });
    },

    async replaceTiers(campaignId: string, current: readonly TierInput[], now: Date): Promise<void> {
      await this.upsertTiers(campaignId, current, now);
      const ids = current.map((t) => t.id);
      await db
        .update(tiers)
        .set({ removedAt: now, updatedAt: now })
        .where(and(eq(tiers.campaignId, campaignId), isNull(tiers.removedAt), ids.length > 0 ? notInArray(tiers.id, ids) : undefined));
      await db.update(campaigns).set({ tiersRefreshedAt: now }).where(eq(campaigns.id, campaignId));
    },

    async tiersOf(campaignIds: readonly string[]): Promise<TierRow[]> {
      if (campaignIds.length === 0) return [];
      return db
        .select()
        .from(tiers)
        .where(inArray(tiers.campaignId, [...campaignIds]))
        .orderBy(tiers.campaignId, tiers.amountCents, tiers.id);
    },
  };
}
