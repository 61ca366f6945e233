import { DiscordAPIError, type REST, RequestMethod } from '@discordjs/rest';
import type { Result } from '../../../core/result';
import { err, ok } from '../../../core/result';
import type { Overwrite } from '../../../core/channel-access';

/** A guild channel as Tierlink reads it to check that it can post there. */
export interface GuildChannel {
  id: string;
  guildId: string;
  name: string;
  type: number;
  position: number;
  overwrites: Overwrite[];
}

/** A message Tierlink posts: content and/or embeds; mentions are always suppressed. */
export interface OutgoingMessage {
  content?: string;
  embeds?: Array<Record<string, unknown>>;
  /**
   * Discord returns the existing message instead of creating a second one when the same nonce comes
   * again within a few minutes (`enforce_nonce`, docs/discord-api-notes.md §9): a post retried after a
   * crash is not repeated.
   */
  nonce: string;
}

/** What a posted message tells about the channel's bucket (the `X-RateLimit-*` headers). */
export interface PostedMessage {
  messageId: string;
  /** Requests left in the channel's window; null when Discord sent no bucket headers. */
  remaining: number | null;
  /** When the window resets, in ms from now; null without headers. */
  resetAfterMs: number | null;
}

export interface PostFailure {
  /** `gone`: the channel no longer exists; `forbidden`: the bot may not post there; `rejected`: Discord refused the body. */
  kind: 'gone' | 'forbidden' | 'rejected' | 'unavailable';
  message: string;
  discordCode?: number;
}

export interface ChannelMessages {
  /** The channel, or null when Discord does not know it or the bot cannot see it. */
  getChannel(channelId: string): Promise<GuildChannel | null>;
  /** The guild's channels (every type), in Discord's order. */
  listChannels(guildId: string): Promise<GuildChannel[]>;
  post(channelId: string, message: OutgoingMessage): Promise<Result<PostedMessage, PostFailure>>;
}

interface RawChannel {
  id: string;
  guild_id?: string;
  name?: string;
  type: number;
  position?: number;
  permission_overwrites?: Array<{ id: string; type: number | string; allow: string; deny: string }>;
}

function toChannel(raw: RawChannel, guildId?: string): GuildChannel {
  return {
    id: raw.id,
    guildId: raw.guild_id ?? guildId ?? '',
    name: raw.name ?? raw.id,
    type: raw.type,
    position: raw.position ?? 0,
    overwrites: (raw.permission_overwrites ?? []).map((o) => ({ id: o.id, type: Number(o.type), allow: o.allow, deny: o.deny })),
  };
}

const headerNumber = (value: string | null): number | null => {
  if (value === null) return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
};

/**
 * Channel reads and posts over the shared REST client. `POST /channels/{id}/messages` goes through
 * @discordjs/rest's queue for the channel's bucket like every other call; its answer's headers are
 * handed back so the caller can keep to the channel's window across instances.
 */
export function createChannelMessages(options: { rest: REST }): ChannelMessages {
  const { rest } = options;
  return {
    async getChannel(channelId) {
      try {
        return toChannel((await rest.get(`/channels/${channelId}`)) as RawChannel);
      } catch (error) {
        if (error instanceof DiscordAPIError && (error.status === 404 || error.status === 403)) return null;
        throw error;
      }
    },

    async listChannels(guildId) {
      const raw = (await rest.get(`/guilds/${guildId}/channels`)) as RawChannel[];
      return raw.map((c) => toChannel(c, guildId)).sort((a, b) => a.position - b.position || a.id.localeCompare(b.id));
    },

    async post(channelId, message) {
      const body = {
        ...(message.content !== undefined ? { content: message.content } : {}),
        ...(message.embeds !== undefined ? { embeds: message.embeds } : {}),
        allowed_mentions: { parse: [] },
        nonce: message.nonce,
        enforce_nonce: true,
      };
      try {
        const response = await rest.queueRequest({ fullRoute: `/channels/${channelId}/messages`, method: RequestMethod.Post, body });
        const json = (await response.json()) as { id: string };
        const resetAfter = headerNumber(response.headers.get('x-ratelimit-reset-after'));
        return ok({
          messageId: json.id,
          remaining: headerNumber(response.headers.get('x-ratelimit-remaining')),
          resetAfterMs: resetAfter === null ? null : Math.ceil(resetAfter * 1000),
        });
      } catch (error) {
        if (!(error instanceof DiscordAPIError)) {
          return err({ kind: 'unavailable', message: error instanceof Error ? error.message : String(error) });
        }
        const code = typeof error.code === 'number' ? error.code : undefined;
        const base = { message: `${error.status} ${error.message}`, ...(code !== undefined ? { discordCode: code } : {}) };
        if (error.status === 404) return err({ kind: 'gone', ...base });
        if (error.status === 403) return err({ kind: 'forbidden', ...base });
        if (error.status >= 400 && error.status < 500) return err({ kind: 'rejected', ...base });
        return err({ kind: 'unavailable', ...base });
      }
    },
  };
}
