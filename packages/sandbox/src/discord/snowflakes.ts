import type { Clock } from '../support/clock';

/** Discord's epoch (2015-01-01T00:00:00Z) in ms, the origin of snowflake timestamps. */
export const DISCORD_EPOCH = 1_420_070_400_000n;

export type SnowflakeFactory = () => string;

/**
 * Snowflakes as Discord builds them: ms since the Discord epoch shifted left 22 bits. Today's values
 * have 19 digits, inside the 17–19 digits @discordjs/rest recognises for route bucketing
 * (research/tech-facts.md §2). Strictly increasing even when a manual clock stands still.
 */
export function createSnowflakeFactory(clock: Clock): SnowflakeFactory {
  let last = 0n;
  return () => {
    const fromTime = (BigInt(clock.now().getTime()) - DISCORD_EPOCH) << 22n;
    last = fromTime > last ? fromTime : last + 1n;
    return last.toString();
  };
}

/** Orders decimal id strings numerically without BigInt (ids have no leading zeros). */
export function compareIds(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}
