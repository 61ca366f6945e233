import { performance } from 'node:perf_hooks';
import { type ShardPlan, assignShards, nextPlan } from '../../../core/shard-assignment';
import type { Logger } from '../../../shared/logger';
import { retryingResets } from '../../outbound/discord/bot-guilds';
import type { IdentifyThrottler, ShardClient } from './discord-bot';
import type { IdentifySlots } from './identify-gate';

/** The instance table and the shard leases as the coordinator uses them (src/edges/outbound/store/instance-registry.ts). */
export interface GatewayLeases extends IdentifySlots {
  readonly leaseMs: number;
  heartbeat(me: InstanceIdentity, shards: readonly number[], stopping: boolean): Promise<number[]>;
  live(): Promise<ReadonlyArray<{ id: string; stopping: boolean }>>;
  leases(): Promise<ReadonlyArray<{ shardId: number; shardCount: number; holder: string; live: boolean }>>;
  claim(shardId: number, shardCount: number, holder: string): Promise<boolean>;
  release(holder: string, shardIds: readonly number[]): Promise<void>;
  leave(id: string): Promise<void>;
  plan(): Promise<ShardPlan | null>;
  replacePlan(previous: ShardPlan | null, next: ShardPlan): Promise<ShardPlan>;
}

export interface InstanceIdentity {
  id: string;
  host: string;
  pid: number;
}

/** Unrecoverable gateway closes (docs/discord-api-notes.md §4): the session will not come back by itself. */
const SHARDING_REQUIRED = 4011;

export interface ShardCoordinatorDeps {
  me: InstanceIdentity;
  leases: GatewayLeases;
  /** `GET /gateway/bot`: the recommended shard count and `max_concurrency`. */
  gatewayInfo(): Promise<{ shards: number; maxConcurrency: number }>;
  /** DISCORD_SHARD_COUNT, when the operator fixed it. */
  fixedShardCount: number | undefined;
  /** Opens one shard's session; `start()` resolves once it is ready. */
  openShard(shardId: number, shardCount: number, throttler: IdentifyThrottler, onFatalClose: (code: number) => void): ShardClient;
  createThrottler(maxConcurrency: number): IdentifyThrottler;
  logger: Logger;
  /** How often the instance renews its heartbeat and looks for free shards. Default 1 s (at most a fifth of the lease). */
  tickMs?: number;
}

/**
 * Holds this instance's gateway shards (docs/decisions.md §17): every tick it renews its heartbeat
 * and leases in one go, then takes free shards up to its fair share and, once the instance list has
 * stayed the same for five rounds, gives one shard away when another instance is short. A shard's
 * session is opened only after its lease is taken and closed before the lease is given back, so at
 * most one instance holds a session of each shard. An instance that cannot renew closes its
 * sessions before its leases can expire (another instance is then free to take them).
 */
export function createShardCoordinator(deps: ShardCoordinatorDeps) {
  const { leases, logger, me } = deps;
  const leaseMs = leases.leaseMs;
  // Every second: a shard given up by a stopping instance is taken within about a second.
  const tickMs = deps.tickMs ?? Math.min(1000, Math.floor(leaseMs / 5));
  // Shards move only after the instance list stayed the same for five rounds.
  const settleTicks = 5;
  const sessions = new Map<number, ShardClient>();
  const opening = new Map<number, Promise<void>>();
  /** Shards whose session failed for good here: not taken again by this instance for a while. */
  const avoided = new Map<number, number>();
  /** Free shards and since which tick they were seen free (for stranded shards). */
  const freeSince = new Map<number, number>();
  let plan: ShardPlan | null = null;
  let throttler: IdentifyThrottler | null = null;
  let tick = 0;
  let members: string[] = [];
  let membersSince = 0;
  let lastRenewal = performance.now();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  let stopping = false;
  let replanWanted = false;

  const held = () => [...new Set([...sessions.keys(), ...opening.keys()])].sort((a, b) => a - b);

  async function agreePlan(): Promise<ShardPlan> {
    const info = await retryingResets(() => deps.gatewayInfo());
    const proposed: ShardPlan = {
      shardCount: deps.fixedShardCount ?? Math.max(1, info.shards),
      maxConcurrency: Math.max(1, info.maxConcurrency),
      fixed: deps.fixedShardCount !== undefined,
    };
    const stored = await leases.plan();
    const next = nextPlan(stored, proposed);
    return next === stored ? stored : leases.replacePlan(stored, next);
  }

  async function close(shardId: number, why: string): Promise<void> {
    const session = sessions.get(shardId);
    sessions.delete(shardId);
    if (session) {
      logger.info({ shard: shardId, why }, 'gateway shard given up');
      await session.stop().catch((error: unknown) => logger.warn({ err: error, shard: shardId }, 'closing a shard failed'));
    }
  }

  function open(shardId: number, current: ShardPlan): Promise<void> {
    throttler ??= deps.createThrottler(current.maxConcurrency);
    const session = deps.openShard(shardId, current.shardCount, throttler, (code) => {
      logger.error({ shard: shardId, code }, 'gateway shard closed for good');
      if (code === SHARDING_REQUIRED) replanWanted = true;
      avoided.set(shardId, tick + 10);
      void close(shardId, `close code ${code}`).then(() => leases.release(me.id, [shardId]).catch(() => undefined));
    });
    const started = session.start().then(
      () => {
        opening.delete(shardId);
        if (stopping || !isMine(shardId)) {
          void session.stop();
          return;
        }
        sessions.set(shardId, session);
      },
      async (error: unknown) => {
        opening.delete(shardId);
        await session.stop().catch(() => undefined);
        await leases.release(me.id, [shardId]).catch(() => undefined);
        avoided.set(shardId, tick + 10);
        throw error;
      },
    );
    opening.set(shardId, started);
    return started;
  }

  let owned = new Set<number>();
  const isMine = (shardId: number) => owned.has(shardId);

  /** One round: heartbeat and renewals, then the shards to take and to give up. Answers the openings it began. */
  async function round(): Promise<Array<Promise<void>>> {
    tick += 1;
    let renewed: number[];
    try {
      renewed = await leases.heartbeat(me, held(), stopping);
      lastRenewal = performance.now();
    } catch (error) {
      // Fence: past most of the lease without a renewal, another instance may soon take these shards.
      if (performance.now() - lastRenewal > leaseMs * 0.6 && held().length > 0) {
        logger.error({ err: error }, 'the shard leases could not be renewed; closing the sessions before they expire');
        owned = new Set();
        await Promise.all(held().map((id) => close(id, 'leases not renewed')));
      } else {
        logger.warn({ err: error }, 'heartbeat failed; trying again');
      }
      return [];
    }
    owned = new Set(renewed);
    for (const shardId of held()) if (!owned.has(shardId) && !opening.has(shardId)) await close(shardId, 'lease lost');
    if (stopping) return [];

    const stored = await leases.plan();
    if (replanWanted || plan === null || (stored !== null && stored.shardCount !== plan.shardCount)) {
      replanWanted = false;
      const next = stored !== null && plan !== null && stored.shardCount !== plan.shardCount ? stored : await agreePlan();
      if (plan !== null && next.shardCount !== plan.shardCount) {
        logger.warn({ from: plan.shardCount, to: next.shardCount }, 'the gateway is cut anew: every shard is opened again');
        const mine = held();
        await Promise.all(mine.map((id) => close(id, 'new shard count')));
        await leases.release(me.id, mine);
        owned = new Set();
        throttler = null;
      }
      plan = next;
    }
    const current = plan;

    const live = (await leases.live()).filter((i) => !i.stopping).map((i) => i.id);
    if (live.join() !== members.join()) {
      members = live;
      membersSince = tick;
    }
    const holders = new Map<number, string>();
    for (const lease of await leases.leases()) {
      if (lease.live && lease.shardCount === current.shardCount) holders.set(lease.shardId, lease.holder);
    }
    for (let shard = 0; shard < current.shardCount; shard++) {
      if (holders.has(shard)) freeSince.delete(shard);
      else if (!freeSince.has(shard)) freeSince.set(shard, tick);
    }
    const stranded = new Set([...freeSince].filter(([, since]) => tick - since >= 3 * settleTicks).map(([shard]) => shard));
    const avoid = new Set([...avoided].filter(([, until]) => until > tick).map(([shard]) => shard));
    const decision = assignShards({
      me: me.id,
      members,
      shardCount: current.shardCount,
      held: holders,
      settled: tick - membersSince >= settleTicks && opening.size === 0,
      stranded,
      avoid,
    });

    for (const shardId of decision.release) {
      if (!sessions.has(shardId)) continue;
      owned.delete(shardId);
      await close(shardId, 'another instance is short of its share');
      await leases.release(me.id, [shardId]);
    }
    const started: Array<Promise<void>> = [];
    for (const shardId of decision.claim) {
      if (opening.has(shardId) || sessions.has(shardId)) continue;
      if (!(await leases.claim(shardId, current.shardCount, me.id))) continue;
      owned.add(shardId);
      logger.info({ shard: shardId, shardCount: current.shardCount }, 'gateway shard taken');
      started.push(open(shardId, current));
    }
    return started;
  }

  function schedule(): void {
    if (stopping) return;
    timer = setTimeout(() => {
      running = round()
        .then((started) => {
          for (const s of started) s.catch((error: unknown) => logger.error({ err: error }, 'opening a gateway shard failed'));
        })
        .catch((error: unknown) => logger.error({ err: error }, 'the shard round failed'))
        .finally(() => {
          running = null;
          schedule();
        });
    }, tickMs);
    timer.unref();
  }

  return {
    /**
     * Agrees on the plan, registers this instance and takes its first shards; resolves once they are
     * ready (none when other instances hold them all). A session that fails to open (a bad token,
     * a disallowed intent) fails the start.
     */
    async start(): Promise<void> {
      plan = await agreePlan();
      logger.info({ instance: me.id, ...plan }, 'gateway plan');
      const started = await round();
      await Promise.all(started);
      schedule();
    },

    /** Closes every session, then gives the leases and the instance row up for the others to take at once. */
    async stop(): Promise<void> {
      stopping = true;
      clearTimeout(timer);
      await running;
      await Promise.allSettled([...opening.values()]);
      await leases.heartbeat(me, held(), true).catch(() => undefined);
      await Promise.all([...sessions.keys()].map((id) => close(id, 'stopping')));
      owned = new Set();
      await leases
        .leave(me.id)
        .catch((error: unknown) => logger.warn({ err: error }, 'leaving the instance table failed; the leases expire'));
    },

    /** Shards whose sessions are ready on this instance. */
    shards: () => [...sessions.entries()].filter(([, s]) => s.isReady()).map(([id]) => id),
    shardCount: () => plan?.shardCount ?? null,
    sessions: () => [...sessions.values()],
    /** Ready when every shard this instance holds is connected (an instance holding none is ready too). */
    isReady: () => opening.size === 0 && [...sessions.values()].every((s) => s.isReady()),
  };
}

export type ShardCoordinator = ReturnType<typeof createShardCoordinator>;
