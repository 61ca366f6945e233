import { createHash } from 'node:crypto';
import type { ComposedMessage } from '../../core/channel-posts';
import type { ChannelMessages, PostFailure } from '../../edges/outbound/discord/channel-messages';
import type { ChannelOutboxRepository } from '../../edges/outbound/store/repositories/channel-outbox-repository';
import type { Clock } from '../../shared/clock';

export type PostOutcome =
  | { kind: 'posted'; messageId: string }
  /** The channel's window is spent: try again after `until`. */
  | { kind: 'paced'; until: Date }
  | { kind: 'failed'; failure: PostFailure };

/** A nonce of at most 25 characters (Discord's limit), the same for the same message after a restart. */
export function nonceOf(...parts: ReadonlyArray<string | number>): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('base64url').slice(0, 24);
}

export function createChannelPoster(deps: {
  channels: Pick<ChannelMessages, 'post'>;
  outbox: Pick<ChannelOutboxRepository, 'pacedUntil' | 'setPacedUntil'>;
  clock: Clock;
}): ChannelPoster {
  const { clock } = deps;
  return {
    async post(channelId: string, message: ComposedMessage, nonce: string): Promise<PostOutcome> {
      const until = await deps.outbox.pacedUntil(channelId);
      if (until && until.getTime() > clock.now().getTime()) return { kind: 'paced', until };
      const result = await deps.channels.post(channelId, { ...message, nonce });
      if (!result.ok) return { kind: 'failed', failure: result.error };
      const { remaining, resetAfterMs, messageId } = result.value;
      if (remaining !== null && remaining <= 0 && resetAfterMs !== null) {
        await deps.outbox.setPacedUntil(channelId, new Date(clock.now().getTime() + resetAfterMs));
      }
      return { kind: 'posted', messageId };
    },
  };
}

/**
 * Posts in a channel within its rate limit, across instances: before a post, the channel's
 * `paced_until` (from the last answer's `X-RateLimit-Remaining` and `-Reset-After`, stored in the
 * database) says whether its window has room; after it, the headers set it again. Discord's channel
 * limit is about 5 messages per 5 s (docs/discord-api-notes.md §9), but the headers decide, so a
 * different limit is kept too. @discordjs/rest queues by the same headers within one process.
 */
export interface ChannelPoster {
  post(channelId: string, message: ComposedMessage, nonce: string): Promise<PostOutcome>;
}
