import { and, eq, inArray } from 'drizzle-orm';
import type { GuildSettings } from '../../../core/planner/types';
import { DEFAULT_SETTINGS } from '../../../core/planner/settings';
import type { Db } from '../database';
import { guildCampaigns, guilds } from '../schema';

export type GuildRepository = ReturnType<typeof createGuildRepository>;

/** Guilds, their settings, and which campaigns each serves. */
export function createGuildRepository(db: Db) {
  return {
    async ensure(guildId: string, name?: string | null): Promise<void> {
      await db
        .insert(guilds)
        .values({ id: guildId, name: name ?? null })
        .onConflictDoUpdate(
          name ? { target: guilds.id, set: { name, updatedAt: new Date() } } : { target: guilds.id, set: { id: guildId } },
        );
    },

    async name(guildId: string): Promise<string | null> {
      const [row] = await db.select({ name: guilds.name }).from(guilds).where(eq(guilds.id, guildId));
      return row?.name ?? null;
    },

    /** The guilds among `guildIds` that Tierlink knows (the bot was there), with their names. */
    async namesOf(guildIds: readonly string[]): Promise<Map<string, string | null>> {
      if (guildIds.length === 0) return new Map();
      const rows = await db
        .select({ id: guilds.id, name: guilds.name })
        .from(guilds)
        .where(inArray(guilds.id, [...guildIds]));
      return new Map(rows.map((r) => [r.id, r.name]));
    },

    async settings(guildId: string): Promise<GuildSettings> {
      const [row] = await db.select().from(guilds).where(eq(guilds.id, guildId));
      if (!row) return { ...DEFAULT_SETTINGS };
      return {
        graceDays: row.graceDays,
        mode: row.mode,
        formerPatronRoleId: row.formerPatronRoleId,
        followerRoleId: row.followerRoleId,
        strict: row.strict,
        removalThresholdPercent: row.removalThresholdPercent,
        removalThresholdMin: row.removalThresholdMin,
      };
    },

    async saveSettings(guildId: string, settings: GuildSettings): Promise<void> {
      const values = { ...settings, updatedAt: new Date() };
      await db
        .insert(guilds)
        .values({ id: guildId, ...values })
        .onConflictDoUpdate({ target: guilds.id, set: values });
    },

    async campaignsOf(guildId: string): Promise<string[]> {
      const rows = await db
        .select({ campaignId: guildCampaigns.campaignId })
        .from(guildCampaigns)
        .where(eq(guildCampaigns.guildId, guildId))
        .orderBy(guildCampaigns.boundAt, guildCampaigns.campaignId);
      return rows.map((r) => r.campaignId);
    },

    async guildsOf(campaignId: string): Promise<string[]> {
      const rows = await db
        .select({ guildId: guildCampaigns.guildId })
        .from(guildCampaigns)
        .where(eq(guildCampaigns.campaignId, campaignId))
        .orderBy(guildCampaigns.guildId);
      return rows.map((r) => r.guildId);
    },

    async bindings(): Promise<Array<{ guildId: string; campaignId: string }>> {
      return db
        .select({ guildId: guildCampaigns.guildId, campaignId: guildCampaigns.campaignId })
        .from(guildCampaigns)
        .orderBy(guildCampaigns.guildId, guildCampaigns.campaignId);
    },

    /** Returns true when the binding is new. */
    async bind(guildId: string, campaignId: string): Promise<boolean> {
      await this.ensure(guildId);
      const rows = await db.insert(guildCampaigns).values({ guildId, campaignId }).onConflictDoNothing().returning();
      return rows.length > 0;
    },

    async unbind(guildId: string, campaignId: string): Promise<void> {
      await db.delete(guildCampaigns).where(and(eq(guildCampaigns.guildId, guildId), eq(guildCampaigns.campaignId, campaignId)));
    },
  };
}
