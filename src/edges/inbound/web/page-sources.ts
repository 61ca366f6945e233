/** A guild's name for the pages (null when the bot has not seen the guild yet). */
export interface GuildNames {
  name(guildId: string): Promise<string | null>;
}

/** The tiers of campaigns, for their titles on the patron's result page. */
export interface TierTitles {
  tiersOf(campaignIds: readonly string[]): Promise<ReadonlyArray<{ campaignId: string; id: string; title: string }>>;
}
