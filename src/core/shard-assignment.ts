/**
 * Which gateway shards an instance should hold (docs/decisions.md §17): pure, so every instance
 * reaching the same view of the instance table and the leases reaches the same answer.
 */

/** How the gateway is cut: the shard count every instance uses and Discord's `max_concurrency`. */
export interface ShardPlan {
  shardCount: number;
  maxConcurrency: number;
  /** DISCORD_SHARD_COUNT set the count; otherwise it is Discord's recommendation. */
  fixed: boolean;
}

/**
 * The plan to use, given the stored one and this instance's proposal; answers `stored` itself when
 * nothing changes. An operator's count (fixed) wins over a recommendation and over an older fixed
 * count (the instance started last says what the operator wants now); a recommendation only ever
 * grows a recommended count (Discord recommends more shards as the bot joins guilds; shrinking
 * would close every session for nothing). `max_concurrency` is Discord's fact: the newest reading wins.
 */
export function nextPlan(stored: ShardPlan | null, proposed: ShardPlan): ShardPlan {
  if (stored === null) return proposed;
  if (proposed.fixed) {
    const same = stored.fixed && stored.shardCount === proposed.shardCount && stored.maxConcurrency === proposed.maxConcurrency;
    return same ? stored : proposed;
  }
  const shardCount = stored.fixed ? stored.shardCount : Math.max(stored.shardCount, proposed.shardCount);
  if (shardCount === stored.shardCount && proposed.maxConcurrency === stored.maxConcurrency) return stored;
  return { shardCount, maxConcurrency: proposed.maxConcurrency, fixed: stored.fixed };
}

/** The gateway shard a guild's events arrive on: `(guild_id >> 22) % shard_count` (docs/discord-api-notes.md §4). */
export function shardOfGuild(guildId: string, shardCount: number): number {
  return Number((BigInt(guildId) >> 22n) % BigInt(Math.max(1, shardCount)));
}

/**
 * Each live instance's fair share of `shardCount` shards: ⌊n/m⌋ each, and one more for the
 * ⌈n mod m⌉ oldest (`members` is ordered oldest first), so shares never differ by more than one and
 * a newcomer does not take a shard from an instance of equal share.
 */
export function sharesOf(members: readonly string[], shardCount: number): Map<string, number> {
  const shares = new Map<string, number>();
  if (members.length === 0) return shares;
  const base = Math.floor(shardCount / members.length);
  const extra = shardCount % members.length;
  members.forEach((id, i) => shares.set(id, base + (i < extra ? 1 : 0)));
  return shares;
}

export interface AssignmentInput {
  me: string;
  /** Live instances that are not stopping, oldest first. */
  members: readonly string[];
  shardCount: number;
  /** Live leases of the current shard count: shard → holder. */
  held: ReadonlyMap<number, string>;
  /**
   * Whether the member list has stayed the same for a while: only then does an instance give a
   * shard away to even out the shares (no shard moves while instances come and go).
   */
  settled: boolean;
  /** Free shards nobody took for a while: anyone may take them, whatever its share. */
  stranded: ReadonlySet<number>;
  /** Shards this instance must not take now (its session failed on them a moment ago). */
  avoid?: ReadonlySet<number>;
}

export interface Assignment {
  claim: number[];
  release: number[];
}

/**
 * What `me` does this round: take free shards up to its share (lowest first), take stranded
 * shards, and, once settled, give away its highest shard when it holds more than its share while
 * another instance is short of its own and no free shard can make up for it. One shard moves per
 * round, so the spread converges without two instances trading the same shard back and forth.
 */
export function assignShards(input: AssignmentInput): Assignment {
  const { me, members, shardCount, held, settled, stranded } = input;
  const avoid = input.avoid ?? new Set<number>();
  const shares = sharesOf(members, shardCount);
  const mine: number[] = [];
  const count = new Map<string, number>();
  for (const [shard, holder] of held) {
    if (shard >= shardCount) continue;
    count.set(holder, (count.get(holder) ?? 0) + 1);
    if (holder === me) mine.push(shard);
  }
  const free: number[] = [];
  for (let shard = 0; shard < shardCount; shard++) if (!held.has(shard) && !avoid.has(shard)) free.push(shard);
  const myShare = shares.get(me) ?? 0;

  const claim = free.slice(0, Math.max(0, myShare - mine.length));
  for (const shard of free) if (stranded.has(shard) && !claim.includes(shard)) claim.push(shard);

  const release: number[] = [];
  if (settled && mine.length > myShare) {
    let short = 0;
    for (const id of members) if (id !== me) short += Math.max(0, (shares.get(id) ?? 0) - (count.get(id) ?? 0));
    if (short > free.length) release.push(Math.max(...mine));
  }
  return { claim, release };
}
