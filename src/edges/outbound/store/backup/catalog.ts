import type { RawQuery } from '../schema-level';

/**
 * The tables of a database as the database itself describes them (pg_catalog), not as today's
 * drizzle schema does: a backup carries every table the migrations made, including tables and
 * columns this code no longer or not yet names.
 */

export interface ColumnShape {
  name: string;
  /** `format_type`: the type as SQL spells it (`text`, `bigint`, `timestamp with time zone`, `jsonb`, `text[]`). */
  type: string;
}

export interface TableShape {
  name: string;
  /** In table order; generated columns are left out (the database computes them again). */
  columns: ColumnShape[];
}

/** `"name"`, quoted as an SQL identifier. */
export const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** json and jsonb travel as their text, so a JSON `null` stays distinct from SQL NULL. */
export const isJsonType = (type: string): boolean => type === 'json' || type === 'jsonb';

/**
 * Every ordinary and partitioned table of the `public` schema, parents before the tables whose
 * foreign keys point at them (a load in this order never breaks a foreign key).
 */
export async function readTables(query: RawQuery): Promise<TableShape[]> {
  const columns = await query<{ table_name: string; column_name: string; type: string }>(
    `select c.relname as table_name, a.attname as column_name, format_type(a.atttypid, a.atttypmod) as type
       from pg_class c
       join pg_namespace n on n.oid = c.relnamespace
       join pg_attribute a on a.attrelid = c.oid
      where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
        and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
      order by c.relname, a.attnum`,
  );
  const tables = new Map<string, TableShape>();
  for (const row of columns) {
    const table = tables.get(row.table_name) ?? { name: row.table_name, columns: [] };
    table.columns.push({ name: row.column_name, type: row.type });
    tables.set(row.table_name, table);
  }
  const references = await query<{ child: string; parent: string }>(
    `select child.relname as child, parent.relname as parent
       from pg_constraint k
       join pg_class child on child.oid = k.conrelid
       join pg_class parent on parent.oid = k.confrelid
       join pg_namespace n on n.oid = child.relnamespace
      where k.contype = 'f' and n.nspname = 'public' and child.relname <> parent.relname`,
  );
  return parentsFirst([...tables.values()], references);
}

/** Tables ordered so that every table comes after the tables it references; otherwise by name. */
export function parentsFirst(tables: TableShape[], references: ReadonlyArray<{ child: string; parent: string }>): TableShape[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const parents = new Map<string, Set<string>>();
  for (const { child, parent } of references) {
    if (!byName.has(child) || !byName.has(parent)) continue;
    parents.set(child, (parents.get(child) ?? new Set()).add(parent));
  }
  const ordered: TableShape[] = [];
  const placed = new Set<string>();
  const visiting = new Set<string>();
  const visit = (name: string) => {
    if (placed.has(name)) return;
    if (visiting.has(name)) throw new Error(`the foreign keys between tables form a cycle through ${name}`);
    visiting.add(name);
    for (const parent of [...(parents.get(name) ?? [])].sort()) visit(parent);
    visiting.delete(name);
    placed.add(name);
    ordered.push(byName.get(name)!);
  };
  for (const name of [...byName.keys()].sort()) visit(name);
  return ordered;
}
