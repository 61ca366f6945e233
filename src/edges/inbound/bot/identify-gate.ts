import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../../shared/logger';
import type { IdentifyThrottler } from './discord-bot';

/** The shared record of the last IDENTIFY per rate-limit key (the `identify_slots` table). */
export interface IdentifySlots {
  /** 0 when the caller may identify now (the slot is taken for it), else how many ms to wait first. */
  takeIdentifySlot(key: number, intervalMs: number): Promise<number>;
}

/**
 * Discord allows `max_concurrency` IDENTIFYs per 5 s, one per `rate_limit_key = shard_id %
 * max_concurrency` (docs/discord-api-notes.md §4). The slot is taken a moment before the IDENTIFY
 * leaves, so a little more than 5 s keeps two instances' IDENTIFYs apart even when one sends late.
 */
export const IDENTIFY_INTERVAL_MS = 5_500;

/**
 * discord.js's identify throttler, coordinated through the database: every IDENTIFY of every
 * instance, first ones and reconnections alike, waits for its key's slot, so two instances never
 * identify the same key within the interval (a too-fast IDENTIFY is refused with op 9).
 */
export function createIdentifyThrottler(deps: {
  slots: IdentifySlots;
  maxConcurrency: number;
  logger: Logger;
  intervalMs?: number;
}): IdentifyThrottler {
  const intervalMs = deps.intervalMs ?? IDENTIFY_INTERVAL_MS;
  return {
    async waitForIdentify(shardId, signal) {
      const key = shardId % Math.max(1, deps.maxConcurrency);
      for (;;) {
        let waitMs: number;
        try {
          waitMs = await deps.slots.takeIdentifySlot(key, intervalMs);
        } catch (error) {
          deps.logger.warn({ err: error, shard: shardId }, 'the IDENTIFY slot could not be read; trying again in a second');
          waitMs = 1000;
        }
        if (waitMs === 0) return;
        // A little jitter, so instances waiting on one key do not ask again in the same millisecond.
        await sleep(waitMs + Math.floor(Math.random() * 200), undefined, { signal });
      }
    },
  };
}
