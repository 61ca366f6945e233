import { sql } from 'drizzle-orm';
import { type Db, queryRows } from './database';

/** An instance as its row says (docs/decisions.md §17). */
export interface InstanceRow {
  id: string;
  host: string;
  pid: number;
  startedAt: Date;
  heartbeatAt: Date;
  stopping: boolean;
  shards: number[];
  /** Of `shards`, those with a connected gateway session. */
  connectedShards: number[];
}

/** A lease this instance holds, with the generation that fences its events and writes (docs/outages-and-fencing.md). */
export interface HeldLease {
  shardId: number;
  generation: number;
}

/** Who holds a gateway shard, and until when (the database's clock). */
export interface ShardLeaseRow {
  shardId: number;
  shardCount: number;
  holder: string;
  expiresAt: Date;
  /** Not expired when read. */
  live: boolean;
  generation: number;
}

/** How the gateway is cut: the shard count every instance uses and Discord's `max_concurrency`. */
export interface GatewayPlan {
  shardCount: number;
  maxConcurrency: number;
  /** Whether DISCORD_SHARD_COUNT set the count (then only another such setting changes it). */
  fixed: boolean;
}

/** Who holds each shard of the gateway and whether its session is connected, as every instance can read it (`/doctor`). */
export interface GatewayStanding {
  shardCount: number;
  shards: Array<{
    shardId: number;
    /** The live holder of the shard's lease (host and pid when its instance row is live), or null: nobody holds it. */
    holder: { id: string; host: string | null; pid: number | null } | null;
    /** The holder says its session of the shard is connected. */
    connected: boolean;
  }>;
}

const PLAN_KEY = 'gateway-plan';

/** Rows of an instance that stopped answering this long ago are deleted (their leases expired long before). */
const FORGET_DEAD_AFTER_MS = 24 * 60 * 60_000;

type Raw = Record<string, unknown>;
const date = (v: unknown) => (v instanceof Date ? v : new Date(String(v)));
const shardList = (v: unknown): number[] => (Array.isArray(v) ? v : typeof v === 'string' ? (JSON.parse(v) as unknown[]) : []).map(Number);

export function createInstanceRegistry(db: Db, options: { leaseMs: number }): InstanceRegistry {
  const lease = sql`(interval '1 millisecond' * ${options.leaseMs})`;

  return {
    leaseMs: options.leaseMs,

    async heartbeat(
      me: { id: string; host: string; pid: number },
      gateway: { shards: readonly number[]; connected: readonly number[] },
      stopping: boolean,
    ): Promise<HeldLease[]> {
      const list = (ids: readonly number[]) => JSON.stringify([...ids].sort((a, b) => a - b));
      await db.execute(sql`
        insert into instances (id, host, pid, started_at, heartbeat_at, stopping, shards, connected_shards)
        values (${me.id}, ${me.host}, ${me.pid}, now(), now(), ${stopping}, ${list(gateway.shards)}::jsonb, ${list(gateway.connected)}::jsonb)
        on conflict (id) do update set heartbeat_at = now(), stopping = excluded.stopping, shards = excluded.shards,
          connected_shards = excluded.connected_shards`);
      const rows = await queryRows<Raw>(
        db,
        sql`update shard_leases set expires_at = now() + ${lease} where holder = ${me.id} and expires_at > now()
            returning shard_id, generation`,
      );
      return rows.map((r) => ({ shardId: Number(r.shard_id), generation: Number(r.generation) })).sort((a, b) => a.shardId - b.shardId);
    },

    async live(): Promise<InstanceRow[]> {
      const rows = await queryRows<Raw>(
        db,
        sql`select id, host, pid, started_at, heartbeat_at, stopping, shards, connected_shards from instances
            where heartbeat_at > now() - ${lease} order by started_at, id`,
      );
      return rows.map((r) => ({
        id: String(r.id),
        host: String(r.host),
        pid: Number(r.pid),
        startedAt: date(r.started_at),
        heartbeatAt: date(r.heartbeat_at),
        stopping: Boolean(r.stopping),
        shards: shardList(r.shards),
        connectedShards: shardList(r.connected_shards),
      }));
    },

    async leases(): Promise<ShardLeaseRow[]> {
      const rows = await queryRows<Raw>(
        db,
        sql`select shard_id, shard_count, holder, expires_at, expires_at > now() as live, generation from shard_leases order by shard_id`,
      );
      return rows.map((r) => ({
        shardId: Number(r.shard_id),
        shardCount: Number(r.shard_count),
        holder: String(r.holder),
        expiresAt: date(r.expires_at),
        live: Boolean(r.live),
        generation: Number(r.generation),
      }));
    },

    async claim(shardId: number, shardCount: number, holder: string): Promise<number | null> {
      const rows = await queryRows<Raw>(
        db,
        sql`insert into shard_leases (shard_id, shard_count, holder, acquired_at, expires_at)
            values (${shardId}, ${shardCount}, ${holder}, now(), now() + ${lease})
            on conflict (shard_id) do update
              set shard_count = excluded.shard_count, holder = excluded.holder, acquired_at = now(), expires_at = excluded.expires_at,
                  generation = nextval('shard_lease_generation')
              where shard_leases.expires_at <= now() or shard_leases.shard_count <> excluded.shard_count
            returning generation`,
      );
      return rows.length > 0 ? Number(rows[0]!.generation) : null;
    },

    async release(holder: string, shardIds: readonly number[]): Promise<void> {
      if (shardIds.length === 0) return;
      await db.execute(
        sql`delete from shard_leases where holder = ${holder} and shard_id in (${sql.join(
          shardIds.map((id) => sql`${id}`),
          sql`, `,
        )})`,
      );
    },

    async leave(id: string): Promise<void> {
      await db.execute(sql`delete from shard_leases where holder = ${id}`);
      await db.execute(sql`delete from instances where id = ${id}`);
    },

    async reset(): Promise<void> {
      await db.execute(sql`delete from shard_leases`);
      await db.execute(sql`delete from instances`);
    },

    async standing(): Promise<GatewayStanding | null> {
      const plan = await this.plan();
      if (!plan) return null;
      const [held, live] = [await this.leases(), await this.live()];
      return {
        shardCount: plan.shardCount,
        shards: Array.from({ length: plan.shardCount }, (_, shardId) => {
          const lease = held.find((l) => l.shardId === shardId && l.live && l.shardCount === plan.shardCount);
          if (!lease) return { shardId, holder: null, connected: false };
          const row = live.find((i) => i.id === lease.holder);
          return {
            shardId,
            holder: { id: lease.holder, host: row?.host ?? null, pid: row?.pid ?? null },
            connected: row?.connectedShards.includes(shardId) ?? false,
          };
        }),
      };
    },

    async forgetDead(): Promise<void> {
      await db.execute(sql`delete from instances where heartbeat_at < now() - (interval '1 millisecond' * ${FORGET_DEAD_AFTER_MS})`);
    },

    async takeIdentifySlot(key: number, intervalMs: number): Promise<number> {
      const interval = sql`(interval '1 millisecond' * ${intervalMs})`;
      const taken = await queryRows<Raw>(
        db,
        sql`insert into identify_slots (rate_limit_key, identified_at) values (${key}, now())
            on conflict (rate_limit_key) do update set identified_at = now()
              where identify_slots.identified_at <= now() - ${interval}
            returning rate_limit_key`,
      );
      if (taken.length > 0) return 0;
      const [row] = await queryRows<Raw>(
        db,
        sql`select greatest(0, extract(epoch from (identified_at + ${interval} - now())) * 1000) as wait
            from identify_slots where rate_limit_key = ${key}`,
      );
      return Math.max(1, Math.ceil(Number(row?.wait ?? 1)));
    },

    async plan(): Promise<GatewayPlan | null> {
      const [row] = await queryRows<Raw>(db, sql`select value from app_state where key = ${PLAN_KEY}`);
      if (!row) return null;
      const value = (typeof row.value === 'string' ? JSON.parse(row.value) : row.value) as Partial<GatewayPlan>;
      if (typeof value.shardCount !== 'number' || typeof value.maxConcurrency !== 'number') return null;
      return { shardCount: value.shardCount, maxConcurrency: value.maxConcurrency, fixed: value.fixed === true };
    },

    async replacePlan(previous: GatewayPlan | null, next: GatewayPlan): Promise<GatewayPlan> {
      const value = JSON.stringify(next);
      if (previous === null) {
        await db.execute(
          sql`insert into app_state (key, value, updated_at) values (${PLAN_KEY}, ${value}::jsonb, now()) on conflict (key) do nothing`,
        );
      } else {
        await db.execute(
          sql`update app_state set value = ${value}::jsonb, updated_at = now()
              where key = ${PLAN_KEY} and value = ${JSON.stringify(previous)}::jsonb`,
        );
      }
      return (await this.plan()) ?? next;
    },
  };
}

/**
 * The instance table, the shard leases and the IDENTIFY slots, on PostgreSQL or PGlite. Every time
 * is the database's (`now()`), so instances whose clocks disagree still agree on who holds what.
 * `leaseMs` is how long a heartbeat keeps an instance alive and its leases held.
 */
export interface InstanceRegistry {
  leaseMs: number;
  /**
   * Writes the instance's row (inserted on the first call) with a fresh heartbeat, the shards it
   * holds and those of them with a connected session, and renews its leases. Answers the leases it
   * still holds, with their generations: one another instance took after it expired is no longer
   * among them, and one it holds without a session is (the caller opens a session or gives it up).
   */
  heartbeat(
    me: { id: string; host: string; pid: number },
    gateway: { shards: readonly number[]; connected: readonly number[] },
    stopping: boolean,
  ): Promise<HeldLease[]>;
  /** Instances whose heartbeat is younger than the lease time, oldest first (then by id). */
  live(): Promise<InstanceRow[]>;
  leases(): Promise<ShardLeaseRow[]>;
  /**
   * Takes shard `shardId` of `shardCount` for `holder` when nobody holds it: no row, an expired
   * row, or a row of another shard count (the gateway was cut anew). Answers the new hold's
   * generation (a number no hold of any shard had before), or null when someone else holds it.
   */
  claim(shardId: number, shardCount: number, holder: string): Promise<number | null>;
  /** Gives shards up (their sessions are closed already): free for another instance at once. */
  release(holder: string, shardIds: readonly number[]): Promise<void>;
  /** A graceful stop: every lease and the row go, so the others need not wait for them to expire. */
  leave(id: string): Promise<void>;
  /** The embedded database has one process by construction: whatever an earlier one left is void. */
  reset(): Promise<void>;
  /** Every shard of the current plan, its holder and whether that holder has it connected; null before any plan. */
  standing(): Promise<GatewayStanding | null>;
  /** Deletes the rows of instances that died long ago. */
  forgetDead(): Promise<void>;
  /**
   * One IDENTIFY of `rate_limit_key` `key` per `intervalMs` across every instance: answers 0 when
   * this caller may identify now (the slot is taken), otherwise how many ms to wait before asking again.
   */
  takeIdentifySlot(key: number, intervalMs: number): Promise<number>;
  plan(): Promise<GatewayPlan | null>;
  /**
   * Stores `next` in place of `previous` (null: none stored yet) unless another instance changed
   * the plan meanwhile; answers the plan stored afterwards, which every instance then uses.
   */
  replacePlan(previous: GatewayPlan | null, next: GatewayPlan): Promise<GatewayPlan>;
}
