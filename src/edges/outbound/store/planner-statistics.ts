import { sql } from 'drizzle-orm';
import type { Db } from './database';

/**
 * A table is analysed again once it holds this share more pages than at its last analysis (the
 * spirit of PostgreSQL's autovacuum, whose analyse threshold is 10 % of the rows changed).
 */
export const GROWTH_FACTOR = 1.2;
/** Tables of fewer pages (8 KB each) are left alone: any plan reads them at once. */
export const MIN_PAGES = 8;
/**
 * The sample an analysis takes: 300 × this many rows (PostgreSQL's default, 100, samples 30,000).
 * Enough to tell a condition that names one person from one that names a whole source, at less
 * than half the CPU and without growing PGlite's memory, which never shrinks; autovacuum, where
 * there is one, analyses again with the server's own setting.
 */
export const STATISTICS_TARGET = 10;

/**
 * Runs `ANALYZE` on every table of the schema that has grown past {@link GROWTH_FACTOR} of the size
 * its last analysis saw (or was never analysed and holds {@link MIN_PAGES} pages or more), and
 * answers their names.
 *
 * Why: the embedded database (PGlite) runs PostgreSQL in single-user mode, with no autovacuum, so
 * no table is ever analysed by itself. Without column statistics the planner takes `source =
 * 'patreon'` for a selective condition and answers a page of the full sync (`external_user_id =
 * any($1)` over 1,000 ids) by reading every snapshot of the source: about 44 ms a page at 100,000
 * snapshots, against 10 ms through the index on `external_user_id` once analysed (the ledger's,
 * the links' and the presence's page statements likewise). On PostgreSQL autovacuum analyses on
 * its own, but only about a minute after a first sync has written 100,000 snapshots; analysing
 * does not block readers or writers there.
 *
 * Only the columns some index holds are analysed (a table without an index whole): those are
 * what the planner weighs when it chooses an index; the others (names, JSON lists of tiers) would
 * only cost the analysis time and PGlite memory, which never shrinks.
 *
 * Cost: one catalogue read when nothing grew; an analysis samples at most 3,000 rows of a table
 * ({@link STATISTICS_TARGET}), in one transaction.
 */
export async function refreshPlannerStatistics(db: Db): Promise<string[]> {
  const { rows: grown } = (await db.execute(
    sql`select c.relname as name,
          array_to_string(array(select distinct a.attname::text from pg_index i
                  join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey::int2[])
                where i.indrelid = c.oid and a.attnum > 0 and not a.attisdropped order by 1), ',') as columns
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = current_schema() and c.relkind = 'r'
          and pg_relation_size(c.oid) / current_setting('block_size')::int >= greatest(${MIN_PAGES}::float8, c.relpages * ${GROWTH_FACTOR}::float8)
        order by c.relname`,
  )) as unknown as { rows: Array<{ name: string; columns: string }> };
  if (grown.length === 0) return [];
  await db.transaction(async (tx) => {
    await tx.execute(sql.raw(`set local default_statistics_target = ${STATISTICS_TARGET}`));
    for (const { name, columns } of grown) {
      const list = columns === '' ? [] : columns.split(',');
      const target =
        list.length > 0
          ? sql.join(
              list.map((c) => sql.identifier(c)),
              sql`, `,
            )
          : null;
      await tx.execute(target ? sql`analyze ${sql.identifier(name)} (${target})` : sql`analyze ${sql.identifier(name)}`);
    }
  });
  return grown.map((g) => g.name);
}
