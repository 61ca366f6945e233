import { and, eq, inArray, isNotNull, or } from 'drizzle-orm';
import type { GuildSettings } from '../../../../core/planner/types';
import { DEFAULT_SETTINGS } from '../../../../core/planner/settings';
import { type GuildChannels, NO_CHANNELS } from '../../../../core/guild-channels';
import { type Locale, fromDiscordLocale, isLocale } from '../../../../core/i18n';
import type { Db } from '../database';
import { guildCampaigns, guilds } from '../schema';

export type GuildRepository = ReturnType<typeof createGuildRepository>;

/** Guilds, their settings, and which campaigns each serves. */
/** The columns of a guild's channel settings ({@link GuildChannels}). */
const CHANNEL_COLUMNS = {
  modLogChannelId: guilds.modLogChannelId,
  announcePatronsChannelId: guilds.announcePatronsChannelId,
  announcePatronsSince: guilds.announcePatronsSince,
  announcePostsChannelId: guilds.announcePostsChannelId,
  announcePostsSince: guilds.announcePostsSince,
};

export function createGuildRepository(db: Db) {
  return {
    /** The guild's row, with its name and its `preferred_locale` when the bot sees them. */
    async ensure(guildId: string, name?: string | null, discordLocale?: string | null): Promise<void> {
      const seen = { ...(name ? { name } : {}), ...(discordLocale ? { discordLocale } : {}) };
      await db
        .insert(guilds)
        .values({ id: guildId, name: name ?? null, discordLocale: discordLocale ?? null })
        .onConflictDoUpdate(
          Object.keys(seen).length > 0
            ? { target: guilds.id, set: { ...seen, updatedAt: new Date() } }
            : { target: guilds.id, set: { id: guildId } },
        );
    },

    /**
     * The language of what the whole server sees: the managers' choice, else the server's language
     * as Discord states it, else English (docs/i18n.md).
     */
    async locale(guildId: string): Promise<Locale> {
      const [row] = await db
        .select({ locale: guilds.locale, discordLocale: guilds.discordLocale })
        .from(guilds)
        .where(eq(guilds.id, guildId));
      return (isLocale(row?.locale) ? row.locale : null) ?? fromDiscordLocale(row?.discordLocale);
    },

    /** The managers' choice of the server's language; null: follow Discord's. */
    async setLocale(guildId: string, locale: Locale | null): Promise<void> {
      await db
        .insert(guilds)
        .values({ id: guildId, locale })
        .onConflictDoUpdate({ target: guilds.id, set: { locale, updatedAt: new Date() } });
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
        freeTiersGrantRoles: row.freeTiersGrantRoles,
        removalThresholdPercent: row.removalThresholdPercent,
        removalThresholdMin: row.removalThresholdMin,
        joinNonPatrons: row.joinNonPatrons,
        joinerRoleId: row.joinerRoleId,
      };
    },

    /** The slug chosen with `/settings join_slug:`, or null. */
    async joinSlug(guildId: string): Promise<string | null> {
      const [row] = await db.select({ slug: guilds.joinSlug }).from(guilds).where(eq(guilds.id, guildId));
      return row?.slug ?? null;
    },

    /** The guild whose chosen slug is `slug` (lowercase), or null. */
    async byJoinSlug(slug: string): Promise<string | null> {
      const [row] = await db.select({ id: guilds.id }).from(guilds).where(eq(guilds.joinSlug, slug));
      return row?.id ?? null;
    },

    /** Sets (or with null, clears) the guild's slug; `taken` when another guild has it (a unique index decides). */
    async setJoinSlug(guildId: string, slug: string | null): Promise<'saved' | 'taken'> {
      if (slug !== null) {
        const holder = await this.byJoinSlug(slug);
        if (holder !== null && holder !== guildId) return 'taken';
      }
      try {
        await db
          .insert(guilds)
          .values({ id: guildId, joinSlug: slug })
          .onConflictDoUpdate({ target: guilds.id, set: { joinSlug: slug, updatedAt: new Date() } });
        return 'saved';
      } catch (error) {
        // Two servers claiming one slug at once: the unique index lets one win.
        if (slug !== null && (await this.byJoinSlug(slug)) !== guildId) return 'taken';
        throw error;
      }
    },

    async saveSettings(guildId: string, settings: GuildSettings): Promise<void> {
      const values = { ...settings, updatedAt: new Date() };
      await db
        .insert(guilds)
        .values({ id: guildId, ...values })
        .onConflictDoUpdate({ target: guilds.id, set: values });
    },

    // The channels Tierlink posts in (src/app/channels).
    /** How the server's welcomes name a new patron (`/settings welcome_names:`). */
    async welcomeNames(guildId: string): Promise<'mention' | 'display_name' | 'none'> {
      const [row] = await db.select({ welcomeNames: guilds.welcomeNames }).from(guilds).where(eq(guilds.id, guildId));
      return row?.welcomeNames ?? 'mention';
    },

    async setWelcomeNames(guildId: string, policy: 'mention' | 'display_name' | 'none'): Promise<void> {
      await db
        .insert(guilds)
        .values({ id: guildId, welcomeNames: policy })
        .onConflictDoUpdate({ target: guilds.id, set: { welcomeNames: policy, updatedAt: new Date() } });
    },

    /** Whether the server sends patrons direct messages about their membership (`/settings patron_messages`); off by default. */
    async patronMessages(guildId: string): Promise<boolean> {
      const [row] = await db.select({ patronMessages: guilds.patronMessages }).from(guilds).where(eq(guilds.id, guildId));
      return row?.patronMessages ?? false;
    },

    async setPatronMessages(guildId: string, on: boolean): Promise<void> {
      await db
        .insert(guilds)
        .values({ id: guildId, patronMessages: on })
        .onConflictDoUpdate({ target: guilds.id, set: { patronMessages: on, updatedAt: new Date() } });
    },

    async channels(guildId: string): Promise<GuildChannels> {
      const [row] = await db.select(CHANNEL_COLUMNS).from(guilds).where(eq(guilds.id, guildId));
      return row ?? { ...NO_CHANNELS };
    },

    async saveChannels(guildId: string, channels: GuildChannels): Promise<void> {
      const values = { ...channels, updatedAt: new Date() };
      await db
        .insert(guilds)
        .values({ id: guildId, ...values })
        .onConflictDoUpdate({ target: guilds.id, set: values });
    },

    /** Every guild with at least one channel set, with its channels. */
    async withChannels(): Promise<Array<{ guildId: string } & GuildChannels>> {
      return db
        .select({
          guildId: guilds.id,
          ...CHANNEL_COLUMNS,
        })
        .from(guilds)
        .where(or(isNotNull(guilds.modLogChannelId), isNotNull(guilds.announcePatronsChannelId), isNotNull(guilds.announcePostsChannelId)))
        .orderBy(guilds.id);
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
