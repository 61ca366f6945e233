import { and, eq, inArray, isNotNull, or } from 'drizzle-orm';
import type { GuildSettings } from '../../../../core/planner/types';
import { DEFAULT_SETTINGS } from '../../../../core/planner/settings';
import { DEFAULT_PREVIEW_THRESHOLD } from '../../../../core/bulk-changes';
import { type GuildChannels, NO_CHANNELS } from '../../../../core/guild-channels';
import { type Locale, fromDiscordLocale, isLocale } from '../../../../core/i18n';
import type { Db } from '../database';
import { guildCampaigns, guilds } from '../schema';

/** Who connected a campaign to a guild, and the highest role they held then (null: the owner, or the operator's environment). */
export interface CampaignConnector {
  userId: string | null;
  roleId: string | null;
}

export interface GuildRepository {
  /** The guild's row, with its name and its `preferred_locale` when the bot sees them. */
  ensure(guildId: string, name?: string | null, discordLocale?: string | null): Promise<void>;
  /**
   * The language of what the whole server sees: the managers' choice, else the server's language
   * as Discord states it, else English (docs/i18n.md).
   */
  locale(guildId: string): Promise<Locale>;
  /** The managers' choice of the server's language; null: follow Discord's. */
  setLocale(guildId: string, locale: Locale | null): Promise<void>;
  /** The managers' choice (null: none) and the server's language as Discord states it (English when none is ours). */
  localeChoice(guildId: string): Promise<{ chosen: Locale | null; discord: Locale }>;
  name(guildId: string): Promise<string | null>;
  /** The guilds among `guildIds` that Tierlink knows (the bot was there), with their names. */
  namesOf(guildIds: readonly string[]): Promise<Map<string, string | null>>;
  settings(guildId: string): Promise<GuildSettings>;
  /** The slug chosen with `/settings join_slug:`, or null. */
  joinSlug(guildId: string): Promise<string | null>;
  /** The guild whose chosen slug is `slug` (lowercase), or null. */
  byJoinSlug(slug: string): Promise<string | null>;
  /** Sets (or with null, clears) the guild's slug; `taken` when another guild has it (a unique index decides). */
  setJoinSlug(guildId: string, slug: string | null): Promise<'saved' | 'taken'>;
  saveSettings(guildId: string, settings: GuildSettings): Promise<void>;
  /** How the server's welcomes name a new patron (`/settings welcome_names:`). */
  welcomeNames(guildId: string): Promise<'mention' | 'display_name' | 'none'>;
  setWelcomeNames(guildId: string, policy: 'mention' | 'display_name' | 'none'): Promise<void>;
  /** Whether the server sends patrons direct messages about their membership (`/settings patron_messages`); off by default. */
  patronMessages(guildId: string): Promise<boolean>;
  setPatronMessages(guildId: string, on: boolean): Promise<void>;
  /** Whether a patron is told by direct message when their membership is linked here. */
  linkMessages(guildId: string): Promise<boolean>;
  setLinkMessages(guildId: string, on: boolean): Promise<void>;
  /** From how many role changes a change in Discord asks first (the dashboard always asks). */
  previewThreshold(guildId: string): Promise<number>;
  setPreviewThreshold(guildId: string, threshold: number): Promise<void>;
  channels(guildId: string): Promise<GuildChannels>;
  saveChannels(guildId: string, channels: GuildChannels): Promise<void>;
  /** Every guild with at least one channel set, with its channels. */
  withChannels(): Promise<Array<{ guildId: string } & GuildChannels>>;
  campaignsOf(guildId: string): Promise<string[]>;
  guildsOf(campaignId: string): Promise<string[]>;
  bindings(): Promise<Array<{ guildId: string; campaignId: string }>>;
  /**
   * Returns true when the binding is new. With `connector` (a `/connect`, or the operator's
   * environment): who connected it and their highest role, replacing what an earlier connect stored.
   */
  bind(guildId: string, campaignId: string, connector?: CampaignConnector): Promise<boolean>;
  /** {@link campaignsOf} (in its order), each with its connector's highest role (see {@link CampaignConnector}). */
  servedCampaigns(guildId: string): Promise<Array<{ campaignId: string; connectedBy: string | null; connectorRoleId: string | null }>>;
  /**
   * The connector's highest role as the latest listing of the server showed it (src/app/sync/connector-refresh.ts).
   * Only while `connectorId` is still the campaign's limited connector: a `/connect` since (by the
   * owner, or by someone else) stands. Null: the connector now owns the server, and the campaign is
   * no longer limited (as if the owner had connected it).
   */
  setConnectorRole(guildId: string, campaignId: string, connectorId: string, roleId: string | null): Promise<void>;
  unbind(guildId: string, campaignId: string): Promise<void>;
}

/** Guilds, their settings, and which campaigns each serves. */
/** The columns of a guild's channel settings ({@link GuildChannels}). */
const CHANNEL_COLUMNS = {
  modLogChannelId: guilds.modLogChannelId,
  announcePatronsChannelId: guilds.announcePatronsChannelId,
  announcePatronsSince: guilds.announcePatronsSince,
  announcePostsChannelId: guilds.announcePostsChannelId,
  announcePostsSince: guilds.announcePostsSince,
};

export function createGuildRepository(db: Db): GuildRepository {
  const served = (guildId: string) =>
    db
      .select({
        campaignId: guildCampaigns.campaignId,
        connectedBy: guildCampaigns.connectedBy,
        connectorRoleId: guildCampaigns.connectorRoleId,
      })
      .from(guildCampaigns)
      .where(eq(guildCampaigns.guildId, guildId))
      .orderBy(guildCampaigns.boundAt, guildCampaigns.campaignId);
  return {
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

    async locale(guildId: string): Promise<Locale> {
      const [row] = await db
        .select({ locale: guilds.locale, discordLocale: guilds.discordLocale })
        .from(guilds)
        .where(eq(guilds.id, guildId));
      return (isLocale(row?.locale) ? row.locale : null) ?? fromDiscordLocale(row?.discordLocale);
    },

    async setLocale(guildId: string, locale: Locale | null): Promise<void> {
      await db
        .insert(guilds)
        .values({ id: guildId, locale })
        .onConflictDoUpdate({ target: guilds.id, set: { locale, updatedAt: new Date() } });
    },

    async localeChoice(guildId: string): Promise<{ chosen: Locale | null; discord: Locale }> {
      const [row] = await db
        .select({ locale: guilds.locale, discordLocale: guilds.discordLocale })
        .from(guilds)
        .where(eq(guilds.id, guildId));
      return { chosen: isLocale(row?.locale) ? row.locale : null, discord: fromDiscordLocale(row?.discordLocale) };
    },

    async name(guildId: string): Promise<string | null> {
      const [row] = await db.select({ name: guilds.name }).from(guilds).where(eq(guilds.id, guildId));
      return row?.name ?? null;
    },

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

    async joinSlug(guildId: string): Promise<string | null> {
      const [row] = await db.select({ slug: guilds.joinSlug }).from(guilds).where(eq(guilds.id, guildId));
      return row?.slug ?? null;
    },

    async byJoinSlug(slug: string): Promise<string | null> {
      const [row] = await db.select({ id: guilds.id }).from(guilds).where(eq(guilds.joinSlug, slug));
      return row?.id ?? null;
    },

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

    async linkMessages(guildId: string): Promise<boolean> {
      const [row] = await db.select({ linkMessages: guilds.linkMessages }).from(guilds).where(eq(guilds.id, guildId));
      return row?.linkMessages ?? false;
    },

    async setLinkMessages(guildId: string, on: boolean): Promise<void> {
      await db
        .insert(guilds)
        .values({ id: guildId, linkMessages: on })
        .onConflictDoUpdate({ target: guilds.id, set: { linkMessages: on, updatedAt: new Date() } });
    },

    async previewThreshold(guildId: string): Promise<number> {
      const [row] = await db.select({ previewThreshold: guilds.previewThreshold }).from(guilds).where(eq(guilds.id, guildId));
      return row?.previewThreshold ?? DEFAULT_PREVIEW_THRESHOLD;
    },

    async setPreviewThreshold(guildId: string, threshold: number): Promise<void> {
      await db
        .insert(guilds)
        .values({ id: guildId, previewThreshold: threshold })
        .onConflictDoUpdate({ target: guilds.id, set: { previewThreshold: threshold, updatedAt: new Date() } });
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
      return (await served(guildId)).map((r) => r.campaignId);
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

    async bind(guildId: string, campaignId: string, connector?: CampaignConnector): Promise<boolean> {
      await this.ensure(guildId);
      const by = connector ? { connectedBy: connector.userId, connectorRoleId: connector.roleId } : {};
      const rows = await db
        .insert(guildCampaigns)
        .values({ guildId, campaignId, ...by })
        .onConflictDoNothing()
        .returning({ guildId: guildCampaigns.guildId });
      if (rows.length === 0 && connector)
        await db
          .update(guildCampaigns)
          .set(by)
          .where(and(eq(guildCampaigns.guildId, guildId), eq(guildCampaigns.campaignId, campaignId)));
      return rows.length > 0;
    },

    async servedCampaigns(
      guildId: string,
    ): Promise<Array<{ campaignId: string; connectedBy: string | null; connectorRoleId: string | null }>> {
      return served(guildId);
    },

    async setConnectorRole(guildId: string, campaignId: string, connectorId: string, roleId: string | null): Promise<void> {
      await db
        .update(guildCampaigns)
        .set({ connectorRoleId: roleId })
        .where(
          and(
            eq(guildCampaigns.guildId, guildId),
            eq(guildCampaigns.campaignId, campaignId),
            eq(guildCampaigns.connectedBy, connectorId),
            isNotNull(guildCampaigns.connectorRoleId),
          ),
        );
    },

    async unbind(guildId: string, campaignId: string): Promise<void> {
      await db.delete(guildCampaigns).where(and(eq(guildCampaigns.guildId, guildId), eq(guildCampaigns.campaignId, campaignId)));
    },
  };
}
