import fs from 'node:fs';
import { once } from 'node:events';
import { createGzip } from 'node:zlib';
import { type SchemaLevel, appliedLevel, readAppliedMigrations } from '../schema-level';
import {
  BACKUP_FORMAT,
  BACKUP_FORMAT_VERSION,
  type BackupHeader,
  PROCESS_TABLES,
  ROW_PREFIX,
  ROW_SUFFIX,
  type SealedWith,
} from './backup-format';
import { type TableShape, ident, isJsonType, readTables } from './catalog';
import type { SqlSession } from './sql-session';

export interface BackupSummary {
  file: string;
  tables: number;
  rows: number;
  /** Size of the compressed file. */
  bytes: number;
  level: SchemaLevel;
  sealedWith: SealedWith | null;
}

/** Rows fetched from the cursor at a time: memory stays flat whatever a table's size. */
const FETCH_ROWS = 1000;

/** Each row of `table` as one JSON text (json and jsonb columns as their text), from a cursor. */
function rowsQuery(table: TableShape): string {
  const columns = table.columns.map((c) => (isJsonType(c.type) ? `${ident(c.name)}::text as ${ident(c.name)}` : ident(c.name)));
  return `select to_jsonb(x)::text as r from (select ${columns.join(', ')} from ${ident(table.name)}) x`;
}

/**
 * Writes a backup of `session`'s database to `file` (see backup-format.ts): every table in one
 * snapshot (a read-only REPEATABLE READ transaction: writers go on meanwhile and none of their
 * changes after its start is seen), read through a cursor. The file is written beside `file`
 * first and renamed when complete, readable by its owner only (it holds sealed secrets and
 * patrons' ids); a failed backup leaves no file behind.
 */
export async function writeBackup(
  session: SqlSession,
  file: string,
  meta: {
    release: string;
    sealedWith: SealedWith | null;
    now?: Date;
    /** Called as each table starts (progress; the tests write meanwhile, to see the snapshot hold). */
    onTable?(table: string): void | Promise<void>;
  },
): Promise<BackupSummary> {
  const partial = `${file}.partial`;
  const out = fs.createWriteStream(partial, { mode: 0o600 });
  const gzip = createGzip();
  gzip.pipe(out);
  const closed = once(out, 'close');
  const write = async (line: string) => {
    if (!gzip.write(`${line}\n`)) await once(gzip, 'drain');
  };
  let tables = 0;
  let rows = 0;
  let level: SchemaLevel;
  try {
    await session.query('begin isolation level repeatable read read only');
    try {
      const migrations = await readAppliedMigrations(session.query);
      level = appliedLevel(migrations);
      const header: BackupHeader = {
        format: BACKUP_FORMAT,
        formatVersion: BACKUP_FORMAT_VERSION,
        createdAt: (meta.now ?? new Date()).toISOString(),
        release: meta.release,
        engine: session.engine,
        migrations,
        level,
        sealedWith: meta.sealedWith,
      };
      await write(JSON.stringify(header));
      for (const table of await readTables(session.query)) {
        if (PROCESS_TABLES.includes(table.name)) continue;
        await meta.onTable?.(table.name);
        await write(JSON.stringify({ table: table.name, columns: table.columns }));
        await session.query(`declare backup_rows no scroll cursor for ${rowsQuery(table)}`);
        let count = 0;
        for (;;) {
          const batch = await session.query<{ r: string }>(`fetch ${FETCH_ROWS} from backup_rows`);
          for (const row of batch) await write(`${ROW_PREFIX}${row.r}${ROW_SUFFIX}`);
          count += batch.length;
          if (batch.length < FETCH_ROWS) break;
        }
        await session.query('close backup_rows');
        await write(JSON.stringify({ end: table.name, rows: count }));
        tables += 1;
        rows += count;
      }
      await write(JSON.stringify({ end: 'backup', tables, rows }));
    } finally {
      await session.query('rollback').catch(() => undefined);
    }
    gzip.end();
    await closed;
    const handle = await fs.promises.open(partial, 'r+');
    await handle.sync().finally(() => handle.close());
    await fs.promises.rename(partial, file);
  } catch (error) {
    gzip.destroy();
    out.destroy();
    await fs.promises.rm(partial, { force: true });
    throw error;
  }
  return { file, tables, rows, bytes: (await fs.promises.stat(file)).size, level, sealedWith: meta.sealedWith };
}
