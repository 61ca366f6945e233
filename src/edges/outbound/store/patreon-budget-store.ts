import { sql } from 'drizzle-orm';
import { IN_FLIGHT_MS, type PatreonBudgetStore, takeFromLogs } from '../patreon/request-budget';
import { type Db, queryRows, textArray } from './database';

type Raw = Record<string, unknown>;

/** Rows whose last request is older than this are deleted by `prune`. */
const IDLE_MS = 60 * 60_000;

/**
 * Patreon's request budget in PostgreSQL, shared by every instance of the installation
 * (docs/decisions.md §19): each take locks the rows of the limits it counts against (the OAuth
 * client's, the creator grant's), applies the rule of src/edges/outbound/patreon/request-budget.ts
 * with the database's clock and writes the logs back, in one transaction. Instances whose clocks
 * disagree still agree on when a request leaves its window. A refused take writes only the trim.
 */
export function createPostgresPatreonBudgetStore(db: Db): PatreonBudgetStore {
  return {
    async take(windows, priority) {
      if (windows.length === 0) return { waitMs: 0, at: 0 };
      const keys = [...new Set(windows.map((w) => w.key))].sort();
      return db.transaction(async (tx) => {
        const t = tx as unknown as Db;
        await t.execute(
          sql`insert into patreon_budget (key, times) select k, '{}'::bigint[] from unnest(${textArray(keys)}::text[]) as k
              on conflict (key) do nothing`,
        );
        const rows = await queryRows<Raw>(
          t,
          sql`select key, times, (extract(epoch from clock_timestamp()) * 1000)::bigint as now_ms
              from patreon_budget where key = any(${textArray(keys)}::text[]) order by key for update`,
        );
        const now = Number(rows[0]?.now_ms ?? Date.now());
        const logs = new Map(rows.map((r) => [String(r.key), ((r.times as Array<string | number> | null) ?? []).map(Number)]));
        const { logs: next, waitMs } = takeFromLogs(logs, windows, priority, now);
        for (const [key, times] of next) {
          const before = logs.get(key) ?? [];
          if (times.length === before.length && times.every((x, i) => x === before[i])) continue;
          await t.execute(sql`update patreon_budget set times = ${`{${times.join(',')}}`}::bigint[] where key = ${key}`);
        }
        return { waitMs, at: now + IN_FLIGHT_MS };
      });
    },
    async answered(keys, at) {
      if (keys.length === 0) return;
      // One request counted at that time moves back to now, its answer's time (others counted in the same ms stay on their way).
      const now = sql`(extract(epoch from clock_timestamp()) * 1000)::bigint`;
      await db.execute(
        sql`update patreon_budget
            set times = (select coalesce(array_agg(x order by x), '{}'::bigint[])
                         from unnest(times[1:array_position(times, ${at}::bigint) - 1]
                                     || least(${at}::bigint, ${now})
                                     || times[array_position(times, ${at}::bigint) + 1:]) as x)
            where key = any(${textArray([...keys])}::text[]) and array_position(times, ${at}::bigint) is not null`,
      );
    },
    async prune() {
      await db.execute(
        sql`delete from patreon_budget
            where coalesce(times[array_upper(times, 1)], 0) < (extract(epoch from now()) * 1000)::bigint - ${IDLE_MS}`,
      );
    },
  };
}
