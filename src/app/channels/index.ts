import type { ChannelMessages } from '../../edges/outbound/discord/channel-messages';
import type { PatreonClient } from '../../edges/outbound/patreon';
import type { Repositories } from '../../edges/outbound/store/repositories';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import { type AnnouncementsDeps, createAnnouncements } from './announcements';
import { createChannelPoster } from './channel-poster';
import { createModLog } from './mod-log';
import type { Announcements } from './announcements';
import type { ModLog } from './mod-log';
import type { Post } from '../../edges/outbound/patreon/posts';

export { ANNOUNCE_WINDOW_MS, POST_POLL_INTERVAL_MS } from './announcements';
export type { Announcements, PostSource } from './announcements';
export type { ModLog } from './mod-log';

export interface ChannelsDeps {
  repos: Pick<Repositories, 'guilds' | 'campaigns' | 'links' | 'credentials' | 'webhooks' | 'channelOutbox' | 'memberPreferences'>;
  /** A member's name in the server (null: not in it), for the welcomes that may name them. */
  nameInServer(guildId: string, userId: string): Promise<string | null>;
  channels: ChannelMessages;
  accounts: { clientForCampaign(campaignId: string): Promise<Pick<PatreonClient, 'getPost' | 'listPosts'> | null> };
  /** Runs `fn` under a lock across instances, or skips it (`Database.tryWithLock`). */
  withLock<T>(name: string, fn: () => Promise<T>): Promise<{ acquired: true; value: T } | { acquired: false }>;
  clock: Clock;
  logger: Logger;
  /** Ko-fi's new supporters, welcomed beside Patreon's (src/app/channels/announcements.ts). */
  kofi?: AnnouncementsDeps['kofi'];
  /** Time between rounds. Default 1 s. */
  pollMs?: number;
  /** How long an observed audit id waits before the mod-log reads up to it (every row below it is committed by then). Default 2 s. */
  settleMs?: number;
}

export function createChannels(deps: ChannelsDeps): Channels {
  const { repos, clock, logger } = deps;
  const outbox = repos.channelOutbox;
  const pollMs = deps.pollMs ?? 1_000;
  const settleRounds = Math.max(1, Math.ceil((deps.settleMs ?? 2_000) / pollMs));
  const poster = createChannelPoster({ channels: deps.channels, outbox, clock });
  const modLog = createModLog({ outbox, poster, guilds: repos.guilds, clock, logger });
  const announcements = createAnnouncements({
    ...repos,
    outbox,
    accounts: deps.accounts,
    nameInServer: deps.nameInServer,
    poster,
    kofi: deps.kofi ?? null,
    clock,
    logger,
  });

  /** Audit ids observed at the last rounds, newest last: the oldest is settled once it is `settleRounds` old. */
  const observed: number[] = [];
  let settled: number | null = null;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | null = null;

  async function roundNow(): Promise<void> {
    const horizon = await outbox.auditHorizon();
    observed.push(horizon);
    if (observed.length > settleRounds) settled = observed.shift()!;
    const polled = new Set<string>();
    for (const guild of await repos.guilds.withChannels()) {
      const { guildId } = guild;
      try {
        if (guild.modLogChannelId && settled !== null) await modLog.round(guildId, guild.modLogChannelId, settled, horizon);
        if (guild.announcePatronsChannelId && guild.announcePatronsSince) {
          await announcements.welcomeNewPatrons(guildId, guild.announcePatronsChannelId, guild.announcePatronsSince);
        }
        if (guild.announcePostsChannelId) {
          for (const campaignId of await repos.guilds.campaignsOf(guildId)) {
            if (polled.has(campaignId)) continue;
            polled.add(campaignId);
            await announcements.pollPosts(campaignId);
          }
        }
      } catch (error) {
        logger.warn({ guildId, err: error }, 'a channel round failed for this server; tried again next round');
      }
    }
    await announcements.sendDue();
  }

  /** One round under the cross-instance lock; skipped when another instance holds it. */
  async function round(): Promise<void> {
    await deps.withLock('channel-posts', roundNow);
  }

  function tick(): void {
    if (running) return;
    running = round()
      .catch((error) => logger.warn({ err: error }, 'channel round failed'))
      .finally(() => {
        running = null;
      });
  }

  return {
    modLog,
    announcements,
    round,
    onPostDelivery: announcements.onPostDelivery,
    start() {
      if (timer) return;
      timer = setInterval(tick, pollMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}

/**
 * What Tierlink posts in a guild's channels: the mod-log and the announcements. One instance at a
 * time posts (a lock per round), so the channels' windows, kept in the database from Discord's
 * headers, hold for all of them. Posting only reads what role changes and deliveries stored: it
 * never holds up a role change.
 */
export interface Channels {
  modLog: ModLog;
  announcements: Announcements;
  round(): Promise<void>;
  /** The webhook processor's hook for post deliveries. */
  onPostDelivery: (input: { campaignId: string; postId: string; payload: Post | null; receivedAt: Date }) => Promise<void>;
  start(): void;
  stop(): Promise<void>;
}
