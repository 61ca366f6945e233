import type { Clock } from '../support/clock';

/** Discord's epoch (2015-01-01T00:00:00Z) in ms, the origin of snowflake timestamps. */
export const DISCORD_EPOCH = 1_420_070_400_000n;

export interface SnowflakeFactory {
  (): string;
  /** The next id whose guild shard is `shardId` of `shardCount`: the timestamp moves up to `shardCount - 1` ms ahead. */
  onShard(shardId: number, shardCount: number): string;
}

/**
 * The shard a guild's events go to: `(guild_id >> 22) % num_shards`, in BigInt because `Number`
 * loses bits (docs/discord-api-notes.md §4).
 */
export function shardIdForGuild(guildId: string, shardCount: number): number {
  return Number((BigInt(guildId) >> 22n) % BigInt(shardCount));
}

/**
 * Snowflakes as Discord builds them: ms since the Discord epoch shifted left 22 bits. Today's values
 * have 19 digits, inside the 17–19 digits @discordjs/rest recognises for route bucketing
 * (docs/tech-facts.md §2). Strictly increasing even when a manual clock stands still.
 */
export function createSnowflakeFactory(clock: Clock): SnowflakeFactory {
  let last = 0n;
  const candidate = (): bigint => {
    const fromTime = (BigInt(clock.now().getTime()) - DISCORD_EPOCH) << 22n;
    return fromTime > last ? fromTime : last + 1n;
  };
  const next = (): string => {
    last = candidate();
    return last.toString();
  };
  next.onShard = (shardId: number, shardCount: number): string => {
    if (!Number.isInteger(shardCount) || shardCount < 1 || !Number.isInteger(shardId) || shardId < 0 || shardId >= shardCount) {
      throw new RangeError(`no shard ${shardId} of ${shardCount}`);
    }
    const start = candidate();
    let ms = start >> 22n;
    while (ms % BigInt(shardCount) !== BigInt(shardId)) ms += 1n;
    last = ms === start >> 22n ? start : ms << 22n;
    return last.toString();
  };
  return next;
}

/** Orders decimal id strings numerically without BigInt (ids have no leading zeros). */
export function compareIds(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}
