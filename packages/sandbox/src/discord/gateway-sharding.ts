/**
 * The sharding side of the gateway (docs/discord-api-notes.md §4): what `GET /gateway/bot` answers,
 * which shard a session may identify as, and how fast sessions may identify.
 */
export interface GatewaySettings {
  /** The recommended shard count `GET /gateway/bot` answers; when absent, one per 1,000 guilds of the bot (at least 1). */
  shards?: number;
  /** `session_start_limit.max_concurrency`: identify buckets, keyed `shard_id % max_concurrency`. 1 by default. */
  maxConcurrency: number;
  /** Per bucket, one IDENTIFY per this many ms; a faster one gets op 9 Invalid Session. Discord's 5 s by default. */
  identifyIntervalMs: number;
  /** Guilds a session may hold; more closes it with 4011 Sharding Required. Discord's 2,500 by default. */
  maxGuildsPerShard: number;
  /** `session_start_limit.total`, counted down by each accepted IDENTIFY. 1,000 by default. */
  sessionStartLimit: number;
}

export const DEFAULT_GATEWAY_SETTINGS: GatewaySettings = {
  maxConcurrency: 1,
  identifyIntervalMs: 5_000,
  maxGuildsPerShard: 2_500,
  sessionStartLimit: 1_000,
};

/** A day, in ms: `session_start_limit.reset_after` (milliseconds, docs/discord-api-notes.md §4). */
const SESSION_LIMIT_RESET_MS = 86_400_000;

export type Shard = [id: number, count: number];

/** IDENTIFY's `shard`: absent means `[0, 1]`; anything but `[id, count]` with `0 <= id < count` is invalid (4010). */
export function parseShard(raw: unknown): Shard | null {
  if (raw === undefined || raw === null) return [0, 1];
  if (!Array.isArray(raw) || raw.length !== 2) return null;
  const [id, count] = raw as unknown[];
  if (typeof id !== 'number' || typeof count !== 'number' || !Number.isInteger(id) || !Number.isInteger(count)) return null;
  return count >= 1 && id >= 0 && id < count ? [id, count] : null;
}

export function validateSettings(settings: Partial<GatewaySettings>): void {
  const positive = (value: number | undefined, name: string, min: number): void => {
    if (value !== undefined && (!Number.isInteger(value) || value < min)) throw new RangeError(`${name} must be an integer >= ${min}`);
  };
  positive(settings.shards, 'shards', 1);
  positive(settings.maxConcurrency, 'maxConcurrency', 1);
  positive(settings.identifyIntervalMs, 'identifyIntervalMs', 0);
  positive(settings.maxGuildsPerShard, 'maxGuildsPerShard', 1);
  positive(settings.sessionStartLimit, 'sessionStartLimit', 0);
}

/** One IDENTIFY as the stand-in judged it. */
export interface IdentifyRecord {
  at: Date;
  shard: Shard;
  /** `ready`, or why not: op 9 for identifying too fast, 4010, 4011. */
  outcome: 'ready' | 'rate-limited' | 'invalid-shard' | 'sharding-required';
}

/**
 * IDENTIFY pacing: per bucket `shard_id % max_concurrency`, one accepted IDENTIFY per interval. Only
 * accepted ones count, so a client refused for a bad token or intent may try again at once.
 */
export class IdentifyPacer {
  private readonly last = new Map<number, number>();
  private remaining: number;

  constructor(
    private readonly nowMs: () => number,
    private readonly settings: () => GatewaySettings,
  ) {
    this.remaining = settings().sessionStartLimit;
  }

  /** Whether shard `id` may identify now; when it may, the bucket and the session budget are spent. */
  take(id: number): boolean {
    const { maxConcurrency, identifyIntervalMs } = this.settings();
    const bucket = id % maxConcurrency;
    const now = this.nowMs();
    const previous = this.last.get(bucket);
    if (previous !== undefined && now - previous < identifyIntervalMs) return false;
    this.last.set(bucket, now);
    this.remaining = Math.max(0, this.remaining - 1);
    return true;
  }

  resetLimit(): void {
    this.remaining = this.settings().sessionStartLimit;
  }

  sessionStartLimit(): Record<string, number> {
    const { sessionStartLimit, maxConcurrency } = this.settings();
    return { total: sessionStartLimit, remaining: this.remaining, reset_after: SESSION_LIMIT_RESET_MS, max_concurrency: maxConcurrency };
  }
}
