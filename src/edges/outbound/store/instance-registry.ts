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
}

/** Who holds a gateway shard, and until when (the database's clock). */
export interface ShardLeaseRow {
  shardId: number;
  shardCount: number;
  holder: string;
  expiresAt: Date;
  /** Not expired when read. */
  live: boolean;
}

/** How the gateway is cut: the shard count every instance uses and Discord's `max_concurrency`. */
export interface GatewayPlan {
  shardCount: number;
  maxConcurrency: number;
  /** Whether DISCORD_SHARD_COUNT set the count (then only another such setting changes it). */
  fixed: boolean;
}

const PLAN_KEY = 'gateway-plan';

/** Rows of an instance that stopped answering this long ago are deleted (their leases expired long before). */
const FORGET_DEAD_AFTER_MS = 24 * 60 * 60_000;

type Raw = Record<string, unknown>;
const date = (v: unknown) => (v instanceof Date ? v : new Date(String(v)));
const shardList = (v: unknown): number[] => (Array.isArray(v) ? v : typeof v === 'string' ? (JSON.parse(v) as unknown[]) : []).map(Number);

/**
 * The instance table, the shard leases and the IDENTIFY slots, on PostgreSQL or PGlite. Every time
 * is the database's (`now()`), so instances whose clocks disagree still agree on who holds what.
 * `leaseMs` is how long a heartbeat keeps an instance alive and its leases held.
 */
export function createInstanceRegistry(db: Db, options: { leaseMs: number }) {
  const lease = sql`(interval '1 millisecond' * ${options.leaseMs})`;

  return {
    leaseMs: options.leaseMs,

    /**
     * Writes the instance's row (inserted on the first call) with a fresh heartbeat and the shards
     * it holds, and renews its leases. Answers the shards whose leases it still holds: one another
     * instance took after they expired is no longer among them.
     */
    async heartbeat(me: { id: string; host: string; pid: number }, shards: readonly number[], stopping: boolean): Promise<number[]> {
      const held = JSON.stringify([...shards].sort((a, b) => a - b));
      await db.execute(sql`
        insert into instances (id, host, pid, started_at, heartbeat_at, stopping, shards)
        values (${me.id}, ${me.host}, ${me.pid}, now(), now(), ${stopping}, ${held}::jsonb)
        on conflict (id) do update set heartbeat_at = now(), stopping = excluded.stopping, shards = excluded.shards`);
      const rows = await queryRows<Raw>(
        db,
        sql`update shard_leases set expires_at = now() + ${lease} where holder = ${me.id} and expires_at > now() returning shard_id`,
      );
      return rows.map((r) => Number(r.shard_id)).sort((a, b) => a - b);
    },

    /** Instances whose heartbeat is younger than the lease time, oldest first (then by id). */
    async live(): Promise<InstanceRow[]> {
      const rows = await queryRows<Raw>(
        db,
        sql`select id, host, pid, started_at, heartbeat_at, stopping, shards from instances
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
      }));
    },

    async leases(): Promise<ShardLeaseRow[]> {
      const rows = await queryRows<Raw>(
        db,
        sql`select shard_id, shard_count, holder, expires_at, expires_at > now() as live from shard_leases order by shard_id`,
      );
      return rows.map((r) => ({
        shardId: Number(r.shard_id),
        shardCount: Number(r.shard_count),
        holder: String(r.holder),
        expiresAt: date(r.expires_at),
        live: Boolean(r.live),
      }));
    },

    /**
     * Takes shard `shardId` of `shardCount` for `holder` when nobody holds it: no row, an expired
     * row, or a row of another shard count (the gateway was cut anew). True when taken.
     */
    async claim(shardId: number, shardCount: number, holder: string): Promise<boolean> {
      const rows = await queryRows<Raw>(
        db,
        sql`insert into shard_leases (shard_id, shard_count, holder, acquired_at, expires_at)
            values (${shardId}, ${shardCount}, ${holder}, now(), now() + ${lease})
            on conflict (shard_id) do update
              set shard_count = excluded.shard_count, holder = excluded.holder, acquired_at = now(), expires_at = excluded.expires_at
              where shard_leases.expires_at <= now() or shard_leases.shard_count <> excluded.shard_count
            returning shard_id`,
      );
      return rows.length > 0;
    },

    /** Gives shards up (their sessions are closed already): free for another instance at once. */
    async release(holder: string, shardIds: readonly number[]): Promise<void> {
      if (shardIds.length === 0) return;
      await db.execute(
        sql`delete from shard_leases where holder = ${holder} and shard_id in (${sql.join(
          shardIds.map((id) => sql`${id}`),
          sql`, `,
        )})`,
      );
    },

    /** A graceful stop: every lease and the row go, so the others need not wait for them to expire. */
    async leave(id: string): Promise<void> {
      await db.execute(sql`delete from shard_leases where holder = ${id}`);
      await db.execute(sql`delete from instances where id = ${id}`);
    },

    /** The embedded database has one process by construction: whatever an earlier one left is void. */
    async reset(): Promise<void> {
      await db.execute(sql`delete from shard_leases`);
      await db.execute(sql`delete from instances`);
    },

    /** Deletes the rows of instances that died long ago. */
    async forgetDead(): Promise<void> {
      await db.execute(sql`delete from instances where heartbeat_at < now() - (interval '1 millisecond' * ${FORGET_DEAD_AFTER_MS})`);
    },

    /**
     * One IDENTIFY of `rate_limit_key` `key` per `intervalMs` across every instance: answers 0 when
     * this caller may identify now (the slot is taken), otherwise how many ms to wait before asking again.
     */
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

    /**
     * Stores `next` in place of `previous` (null: none stored yet) unless another instance changed
     * the plan meanwhile; answers the plan stored afterwards, which every instance then uses.
     */
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

export type InstanceRegistry = ReturnType<typeof createInstanceRegistry>;
