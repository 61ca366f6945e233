import { DiscordAPIError, type REST } from '@discordjs/rest';
import type { Result } from '../../../core/result';
import { err, ok } from '../../../core/result';
import type { RequestScheduler } from './request-scheduler';

/** Discord's answer to a direct message the user does not take (closed DMs, no shared server, a block). */
export const CANNOT_MESSAGE_USER = 50007;

export interface DirectMessageFailure {
  /** `refused`: Discord will not deliver to this user (50007); `failed`: any other error. */
  kind: 'refused' | 'failed';
  message: string;
  discordCode?: number;
}

export interface DirectMessages {
  /** Opens the bot's DM channel with the user and sends `content` there (mentions suppressed). */
  send(userId: string, content: string): Promise<Result<{ messageId: string }, DirectMessageFailure>>;
}

/**
 * Direct messages over the shared REST client, in the request budget's bulk lane: a message to a
 * patron never takes room from a link, a webhook or a role change (`POST /users/@me/channels`,
 * then `POST /channels/{id}/messages`). One attempt; the caller records the outcome and never retries.
 */
export function createDirectMessages(options: { rest: REST; scheduler: Pick<RequestScheduler, 'inLane'> }): DirectMessages {
  const { rest, scheduler } = options;
  return {
    send(userId, content) {
      return scheduler.inLane('bulk', async () => {
        try {
          const channel = (await rest.post('/users/@me/channels', { body: { recipient_id: userId } })) as { id: string };
          const message = (await rest.post(`/channels/${channel.id}/messages`, {
            body: { content, allowed_mentions: { parse: [] } },
          })) as { id: string };
          return ok({ messageId: message.id });
        } catch (error) {
          if (!(error instanceof DiscordAPIError)) {
            return err({ kind: 'failed' as const, message: error instanceof Error ? error.message : String(error) });
          }
          const code = typeof error.code === 'number' ? error.code : undefined;
          return err({
            kind: code === CANNOT_MESSAGE_USER ? ('refused' as const) : ('failed' as const),
            message: `${error.status} ${error.message}`,
            ...(code !== undefined ? { discordCode: code } : {}),
          });
        }
      });
    },
  };
}
