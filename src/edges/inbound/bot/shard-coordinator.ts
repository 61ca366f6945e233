import { performance } from 'node:perf_hooks';
import { type ShardPlan, assignShards, nextPlan } from '../../../core/shard-assignment';
import type { Logger } from '../../../shared/logger';
import { retryingResets } from '../../outbound/discord/bot-guilds';
import type { IdentifyThrottler, ShardClient } from './discord-bot';
import type { IdentifySlots } from './identify-gate';
import { within } from '../../../shared/within';

/** The instance table and the shard leases as the coordinator uses them (src/edges/outbound/store/instance-registry.ts). */
export interface GatewayLeases extends IdentifySlots {
  readonly leaseMs: number;
  /** Renews the leases this instance holds; answers them with their generations (the fencing tokens). */
  heartbeat(
    me: InstanceIdentity,
    gateway: { shards: readonly number[]; connected: readonly number[] },
    stopping: boolean,
  ): Promise<Array<{ shardId: number; generation: number }>>;
  live(): Promise<ReadonlyArray<{ id: string; stopping: boolean }>>;
  leases(): Promise<ReadonlyArray<{ shardId: number; shardCount: number; holder: string; live: boolean }>>;
  /** The new hold's generation, or null when someone else holds the shard. */
  claim(shardId: number, shardCount: number, holder: string): Promise<number | null>;
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
  /**
   * How long a shard this instance holds may stay without a connected session (opening, or
   * reconnecting after Discord dropped it) before the session is thrown away: the shard is then
   * handed to another instance, or, with none, opened anew. Default 20 s, so that a held shard has
   * a session again within 30 s (the new session's IDENTIFY may wait 5.5 s for its slot).
   */
  recoverMs?: number;
}

/** A held shard without a connected session, and for how long (`/healthz`). */
export interface SessionGap {
  shardId: number;
  forMs: number;
}

/** The fencing token of one held shard (docs/outages-and-fencing.md). */
export interface ShardFence {
  kind: 'shard';
  shardId: number;
  holder: string;
  generation: number;
}

export function createShardCoordinator(deps: ShardCoordinatorDeps): ShardCoordinator {
  const { leases, logger, me } = deps;
  const leaseMs = leases.leaseMs;
  // Every second: a shard given up by a stopping instance is taken within about a second.
  const tickMs = deps.tickMs ?? Math.min(1000, Math.floor(leaseMs / 5));
  const recoverMs = deps.recoverMs ?? 20_000;
  // Shards move only after the instance list stayed the same for five rounds.
  const settleTicks = 5;
  // A shard whose session failed here is left alone (to the others, when there are any) for this many rounds.
  const avoidTicks = Math.max(10, Math.ceil(recoverMs / tickMs));
  const sessions = new Map<number, ShardClient>();
  const opening = new Map<number, { session: ShardClient; since: number; started: Promise<void> }>();
  /** Opening shards still waiting for their IDENTIFY slot (their turn, not a fault), or since when they have it. */
  const identifyState = new Map<number, 'waiting' | number>();
  /** Held shards without a connected session, and since when (performance.now()): what `/healthz` reports. */
  const gapSince = new Map<number, number>();
  /** The current session attempt of each held shard that is not connected, and since when: what the watchdog judges. */
  const attemptSince = new Map<number, number>();
  /** The generation of each lease this instance holds. */
  const generations = new Map<number, number>();
  /** Shards whose session failed here, and until which round they are left alone. */
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
  let owned = new Set<number>();
  const isMine = (shardId: number) => owned.has(shardId);

  const held = () => [...new Set([...sessions.keys(), ...opening.keys()])].sort((a, b) => a - b);
  const connected = () => [...sessions.entries()].filter(([, s]) => s.isReady()).map(([id]) => id);
  /** Whether an instance other than this one is live and takes shards (then a failing shard is handed over). */
  const othersLive = () => members.some((id) => id !== me.id);

  /** Brings {@link gapSince} and {@link attemptSince} up to date with the sessions as they are now. */
  function observe(): void {
    const now = performance.now();
    const holding = new Set([...owned, ...held()]);
    for (const shardId of [...gapSince.keys()]) if (!holding.has(shardId)) gapSince.delete(shardId);
    for (const shardId of [...attemptSince.keys()]) if (!holding.has(shardId)) attemptSince.delete(shardId);
    for (const shardId of holding) {
      const ready = sessions.get(shardId)?.isReady() === true;
      if (ready) {
        gapSince.delete(shardId);
        attemptSince.delete(shardId);
        continue;
      }
      const pending = opening.get(shardId);
      const identify = identifyState.get(shardId);
      if (pending && identify === 'waiting') {
        // Waiting its turn to IDENTIFY (several shards on one key go 5.5 s apart): not a fault.
        attemptSince.delete(shardId);
        continue;
      }
      if (!gapSince.has(shardId)) gapSince.set(shardId, now);
      if (pending) attemptSince.set(shardId, Math.max(pending.since, typeof identify === 'number' ? identify : 0));
      else if (!attemptSince.has(shardId)) attemptSince.set(shardId, now);
    }
  }

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

  /** Closes the shard's session (or the one being opened); its lease is the caller's business. */
  async function close(shardId: number, why: string): Promise<void> {
    const session = sessions.get(shardId);
    sessions.delete(shardId);
    const pending = opening.get(shardId);
    opening.delete(shardId);
    identifyState.delete(shardId);
    attemptSince.delete(shardId);
    for (const s of [session, pending?.session]) {
      if (!s) continue;
      logger.info({ shard: shardId, why }, 'gateway shard given up');
      await s.stop().catch((error: unknown) => logger.warn({ err: error, shard: shardId }, 'closing a shard failed'));
    }
  }

  /** Gives the shard's lease back (its session is closed): free for any instance at once. */
  async function release(shardId: number): Promise<void> {
    owned.delete(shardId);
    generations.delete(shardId);
    gapSince.delete(shardId);
    await leases.release(me.id, [shardId]).catch(() => undefined);
  }

  /**
   * The shard's session failed here (a close code Discord says not to come back after, an opening
   * that failed, no session for too long): it is closed and the shard left alone for a while. With
   * other instances live, the lease goes too and one of them takes the shard; alone, this instance
   * keeps the lease (nobody else would take it) and opens the shard again once the while is over.
   */
  async function fail(shardId: number, why: string): Promise<void> {
    avoided.set(shardId, tick + avoidTicks);
    await close(shardId, why);
    if (othersLive()) await release(shardId);
  }

  /** discord.js's identify throttler, noting while an opening shard waits its turn (not a fault for the watchdog). */
  function watchedThrottler(inner: IdentifyThrottler): IdentifyThrottler {
    return {
      async waitForIdentify(shardId, signal) {
        const first = opening.has(shardId) && !identifyState.has(shardId);
        if (first) identifyState.set(shardId, 'waiting');
        try {
          await inner.waitForIdentify(shardId, signal);
        } finally {
          if (first && opening.has(shardId)) identifyState.set(shardId, performance.now());
        }
      },
    };
  }

  function open(shardId: number, current: ShardPlan): Promise<void> {
    throttler ??= watchedThrottler(deps.createThrottler(current.maxConcurrency));
    // Discord closed the session for good (a bad token, a disallowed intent): its failure to open is
    // passed on even though the close already let the shard go, so that the start fails with it.
    let closedForGood = false;
    const session = deps.openShard(shardId, current.shardCount, throttler, (code) => {
      closedForGood = true;
      logger.error({ shard: shardId, code }, 'gateway shard closed for good');
      if (code === SHARDING_REQUIRED) replanWanted = true;
      if (sessions.get(shardId) === session || opening.get(shardId)?.session === session) void fail(shardId, `close code ${code}`);
    });
    // Still this shard's opening (not thrown away by the watchdog or closed meanwhile)?
    const stillOpening = () => opening.get(shardId)?.session === session;
    const started = session.start().then(
      () => {
        if (!stillOpening()) {
          void session.stop();
          return;
        }
        opening.delete(shardId);
        identifyState.delete(shardId);
        if (stopping || !isMine(shardId)) {
          void session.stop();
          return;
        }
        sessions.set(shardId, session);
        observe();
      },
      async (error: unknown) => {
        await session.stop().catch(() => undefined);
        if (!stillOpening()) {
          if (closedForGood) throw error;
          return;
        }
        await fail(shardId, 'the session failed to open');
        throw error;
      },
    );
    opening.set(shardId, { session, since: performance.now(), started });
    return started;
  }

  /**
   * Held shards whose session attempt stayed disconnected past {@link recoverMs} (a reconnection
   * that never succeeds, an opening that never ends): the session is thrown away (see {@link fail}).
   */
  async function recoverStuck(): Promise<void> {
    observe();
    const now = performance.now();
    for (const [shardId, since] of [...attemptSince]) {
      if (now - since < recoverMs || !(sessions.has(shardId) || opening.has(shardId))) continue;
      logger.error(
        { shard: shardId, seconds: Math.round((now - since) / 1000), handedOver: othersLive() },
        'gateway shard without a session for too long: its session is thrown away',
      );
      await fail(shardId, 'no session');
    }
  }

  /** One round: heartbeat and renewals, then the shards to take and to give up. Answers the openings it began. */
  async function round(): Promise<Array<Promise<void>>> {
    tick += 1;
    observe();
    let renewed: Array<{ shardId: number; generation: number }>;
    try {
      renewed = await leases.heartbeat(me, { shards: held(), connected: connected() }, stopping);
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
    owned = new Set(renewed.map((l) => l.shardId));
    generations.clear();
    for (const l of renewed) generations.set(l.shardId, l.generation);
    for (const shardId of held()) if (!owned.has(shardId)) await close(shardId, 'lease lost');
    if (stopping) return [];

    const stored = await leases.plan();
    if (replanWanted || plan === null || (stored !== null && stored.shardCount !== plan.shardCount)) {
      replanWanted = false;
      const next = stored !== null && plan !== null && stored.shardCount !== plan.shardCount ? stored : await agreePlan();
      if (plan !== null && next.shardCount !== plan.shardCount) {
        logger.warn({ from: plan.shardCount, to: next.shardCount }, 'the gateway is cut anew: every shard is opened again');
        const mine = [...new Set([...held(), ...owned])];
        await Promise.all(mine.map((id) => close(id, 'new shard count')));
        await leases.release(me.id, mine);
        owned = new Set();
        generations.clear();
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

    await recoverStuck();
    const started: Array<Promise<void>> = [];
    // A lease held here without a session (closed while the database was away and renewed again
    // before it expired, or failed here while no other instance was live): nobody else may take
    // it, so it gets its session back, once any wait after a failure is over; with other instances
    // live by then, a shard that failed here goes to them instead.
    for (const shardId of owned) {
      if (sessions.has(shardId) || opening.has(shardId)) continue;
      const waiting = (avoided.get(shardId) ?? 0) > tick;
      if (holders.get(shardId) !== me.id || (waiting && othersLive())) {
        await release(shardId);
        continue;
      }
      if (waiting) continue;
      logger.warn({ shard: shardId }, 'gateway shard held without a session: opening it again');
      started.push(open(shardId, current));
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
      await close(shardId, 'another instance is short of its share');
      owned.delete(shardId);
      generations.delete(shardId);
      await leases.release(me.id, [shardId]);
    }
    for (const shardId of decision.claim) {
      if (opening.has(shardId) || sessions.has(shardId)) continue;
      const generation = await leases.claim(shardId, current.shardCount, me.id);
      if (generation === null) continue;
      owned.add(shardId);
      generations.set(shardId, generation);
      logger.info({ shard: shardId, shardCount: current.shardCount, generation }, 'gateway shard taken');
      started.push(open(shardId, current));
    }
    observe();
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
    async start(): Promise<void> {
      plan = await agreePlan();
      logger.info({ instance: me.id, ...plan }, 'gateway plan');
      const started = await round();
      const all = Promise.all(started);
      const opened = await within(all, recoverMs, () => 'late' as const);
      if (opened === 'late') {
        logger.warn({ shards: held() }, 'the gateway did not open within the start-up wait; going on, and trying again');
        all.catch((error: unknown) => logger.error({ err: error }, 'opening a gateway shard failed'));
      }
      // Say at once which sessions are connected: every instance's /doctor reads it from the instance table.
      await leases.heartbeat(me, { shards: held(), connected: connected() }, false).catch(() => undefined);
      schedule();
    },

    async stop(): Promise<void> {
      stopping = true;
      clearTimeout(timer);
      await running;
      await Promise.allSettled([...opening.values()].map((o) => o.started));
      await leases.heartbeat(me, { shards: held(), connected: [] }, true).catch(() => undefined);
      await Promise.all(held().map((id) => close(id, 'stopping')));
      owned = new Set();
      generations.clear();
      gapSince.clear();
      await leases
        .leave(me.id)
        .catch((error: unknown) => logger.warn({ err: error }, 'leaving the instance table failed; the leases expire'));
    },

    shards: () => connected(),
    shardCount: () => plan?.shardCount ?? null,
    sessions: () => [...sessions.values()],
    isReady: () => opening.size === 0 && [...sessions.values()].every((s) => s.isReady()),
    gaps(): SessionGap[] {
      observe();
      const now = performance.now();
      return [...gapSince].map(([shardId, since]) => ({ shardId, forMs: Math.round(now - since) })).sort((a, b) => a.shardId - b.shardId);
    },
    fenceFor(shardId: number): ShardFence | null {
      const generation = generations.get(shardId);
      return generation === undefined || !owned.has(shardId) ? null : { kind: 'shard', shardId, holder: me.id, generation };
    },
  };
}

/**
 * Holds this instance's gateway shards (docs/decisions.md §17, docs/outages-and-fencing.md): every tick it renews its
 * heartbeat and leases in one go, then takes free shards up to its fair share and, once the instance
 * list has stayed the same for five rounds, gives one shard away when another instance is short. A
 * shard's session is opened only after its lease is taken and closed before the lease is given back,
 * so at most one instance holds a session of each shard. An instance that cannot renew closes its
 * sessions before its leases can expire (another instance is then free to take them).
 *
 * Held means connected: a lease this instance still holds without a session (closed during a
 * database outage that ended before the lease expired) gets its session back at the next round,
 * and a session that stays disconnected for {@link ShardCoordinatorDeps.recoverMs} is thrown away,
 * its shard handed to another instance or, with none, opened anew. Each hold carries the lease's
 * generation, the fencing token of the shard's events ({@link ShardCoordinator.fenceFor}).
 */
export interface ShardCoordinator {
  /**
   * Agrees on the plan, registers this instance and takes its first shards; resolves once they are
   * ready (none when other instances hold them all), or after {@link recoverMs} when Discord's
   * gateway does not answer (the rounds then go on trying, and `/healthz` says so). A session that
   * fails to open (a bad token, a disallowed intent) fails the start.
   */
  start(): Promise<void>;
  /** Closes every session, then gives the leases and the instance row up for the others to take at once. */
  stop(): Promise<void>;
  /** Shards whose sessions are ready on this instance. */
  shards(): number[];
  shardCount(): number | null;
  sessions(): ShardClient[];
  /** Ready when every shard this instance holds is connected (an instance holding none is ready too). */
  isReady(): boolean;
  /**
   * Shards this instance holds (by lease or by a session) without a connected session, and for how
   * long: `/healthz` is not ok while one lasts longer than a reconnection does.
   */
  gaps(): SessionGap[];
  /** The fencing token of a shard this instance holds, or null when it holds none for that shard. */
  fenceFor(shardId: number): ShardFence | null;
}
