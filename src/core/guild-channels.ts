/** The channels a guild has Tierlink post in; each is off (null) until a manager sets it. */
export interface GuildChannels {
  /** Tierlink's role changes, batched. */
  modLogChannelId: string | null;
  /** A welcome when a pledge begins. */
  announcePatronsChannelId: string | null;
  /** When the patrons channel was set: pledges that began earlier are not welcomed. */
  announcePatronsSince: Date | null;
  /** New posts of the campaign. */
  announcePostsChannelId: string | null;
  /** When the posts channel was set: posts published earlier are not announced. */
  announcePostsSince: Date | null;
}

export type ChannelSetting = 'modLog' | 'announcePatrons' | 'announcePosts';

export const NO_CHANNELS: Readonly<GuildChannels> = Object.freeze({
  modLogChannelId: null,
  announcePatronsChannelId: null,
  announcePatronsSince: null,
  announcePostsChannelId: null,
  announcePostsSince: null,
});

/** Per setting: its `/settings` option, what it posts, and whether its messages carry embeds (Embed Links). */
export const CHANNEL_SETTINGS: Readonly<Record<ChannelSetting, { option: string; label: string; embeds: boolean }>> = {
  modLog: { option: 'mod_log_channel', label: 'mod-log channel', embeds: true },
  announcePatrons: { option: 'announce_patrons_channel', label: 'new-patrons channel', embeds: false },
  announcePosts: { option: 'announce_posts_channel', label: 'new-posts channel', embeds: true },
};

/** A change to the channels: a channel id sets one, null turns it off, absent leaves it. */
export type ChannelChange = Partial<Record<ChannelSetting, string | null>>;

export function channelOf(channels: GuildChannels, setting: ChannelSetting): string | null {
  if (setting === 'modLog') return channels.modLogChannelId;
  if (setting === 'announcePatrons') return channels.announcePatronsChannelId;
  return channels.announcePostsChannelId;
}

/**
 * The channels after `change` at `now`. An announcement channel set where there was none starts
 * counting from now (what happened before it was set is not news); moving it to another channel
 * keeps its start, and turning it off clears it.
 */
export function applyChannelChange(current: GuildChannels, change: ChannelChange, now: Date): GuildChannels {
  const next: GuildChannels = { ...current };
  if (change.modLog !== undefined) next.modLogChannelId = change.modLog;
  if (change.announcePatrons !== undefined) {
    next.announcePatronsChannelId = change.announcePatrons;
    next.announcePatronsSince = change.announcePatrons === null ? null : (current.announcePatronsSince ?? now);
  }
  if (change.announcePosts !== undefined) {
    next.announcePostsChannelId = change.announcePosts;
    next.announcePostsSince = change.announcePosts === null ? null : (current.announcePostsSince ?? now);
  }
  return next;
}
