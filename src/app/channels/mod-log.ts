import { composeModLog } from '../../core/channel-posts';
import { type Locale, translator } from '../../core/i18n';
import type { ChannelOutboxRepository } from '../../edges/outbound/store/repositories/channel-outbox-repository';
import type { Clock } from '../../shared/clock';
import type { Logger } from '../../shared/logger';
import { type ChannelPoster, nonceOf } from './channel-poster';

/** Audit rows one batch reads at most; a larger backlog becomes several batches. */
export const MOD_LOG_BATCH_ROWS = 500;

export interface ModLogDeps {
  outbox: Pick<
    ChannelOutboxRepository,
    'modLogState' | 'startModLog' | 'modLogRows' | 'beginModLogBatch' | 'modLogPosted' | 'finishModLogBatch'
  >;
  poster: ChannelPoster;
  /** The server's language, which the mod-log is written in. */
  guilds: { locale(guildId: string): Promise<Locale> };
  clock: Clock;
  logger: Logger;
}

export function createModLog(deps: ModLogDeps): ModLog {
  const { outbox, poster, clock, logger } = deps;

  return {
    start(guildId: string, horizon: number): Promise<void> {
      return outbox.startModLog(guildId, horizon, clock.now());
    },

    async round(guildId: string, channelId: string, settledHorizon: number, currentHorizon: number): Promise<void> {
      const state = await outbox.modLogState(guildId);
      if (!state) {
        await outbox.startModLog(guildId, currentHorizon, clock.now());
        return;
      }
      let toId = state.batchToId;
      let posted = state.batchPosted;
      if (toId === null) {
        if (settledHorizon <= state.cursorId) return;
        const rows = await outbox.modLogRows(guildId, state.cursorId, settledHorizon, MOD_LOG_BATCH_ROWS);
        toId = rows.length === MOD_LOG_BATCH_ROWS ? rows[rows.length - 1]!.id : settledHorizon;
        if (rows.length === 0) {
          await outbox.finishModLogBatch(guildId, toId, null, clock.now());
          return;
        }
        await outbox.beginModLogBatch(guildId, toId, clock.now());
        posted = 0;
      }
      const rows = await outbox.modLogRows(guildId, state.cursorId, toId, MOD_LOG_BATCH_ROWS);
      // The same rows compose the same messages after a restart, as long as the server's language
      // stays; a language changed mid-batch posts the rest of the batch in the new one.
      const t = translator(await deps.guilds.locale(guildId));
      const messages = composeModLog(
        rows.map((r) => ({ ...r, userId: r.discordUserId })),
        t,
      );
      for (let i = posted; i < messages.length; i += 1) {
        const outcome = await poster.post(channelId, messages[i]!, nonceOf('mod-log', guildId, channelId, toId, i));
        if (outcome.kind === 'paced') return;
        if (outcome.kind === 'failed') {
          const { failure } = outcome;
          if (failure.kind === 'unavailable') {
            logger.warn({ guildId, channelId, err: failure.message }, 'mod-log post failed; tried again next round');
            return;
          }
          logger.warn(
            { guildId, channelId, kind: failure.kind, discordCode: failure.discordCode, changes: rows.length },
            'the mod-log channel refused a post; this batch is skipped (the audit log has it)',
          );
          await outbox.finishModLogBatch(guildId, toId, `${failure.kind}: ${failure.message}`, clock.now());
          return;
        }
        await outbox.modLogPosted(guildId, i + 1, clock.now());
      }
      await outbox.finishModLogBatch(guildId, toId, null, clock.now());
    },
  };
}

/**
 * The mod-log: Tierlink's role changes posted after the fact, from the audit log, never in the way
 * of a role change. Each guild keeps a cursor (the last audit row posted); a round takes the rows
 * after it up to a settled horizon (an id observed a few seconds earlier, so every row up to it is
 * committed: each audit insert is one short statement), groups them per member and trigger into
 * messages, and records the batch before its first message. A restart composes the same batch from
 * the same rows and goes on after the messages already posted; a message posted just before a
 * crash is not repeated, because Discord answers its nonce again with the same message. A channel
 * that refuses the posts (deleted, permissions taken away) is logged and the batch skipped: the
 * audit log keeps every change.
 */
export interface ModLog {
  /** Starts a guild's mod-log at `horizon` (nothing older is posted). */
  start(guildId: string, horizon: number): Promise<void>;
  /** Posts what is due in one guild, as far as the channel's window allows. */
  round(guildId: string, channelId: string, settledHorizon: number, currentHorizon: number): Promise<void>;
}
