import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Blob } from 'node:buffer';
import { getTableName, sql } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { createScratchPostgres } from '../../bench/scratch-database';
import { type Database, MIGRATIONS_FOLDER, PGLITE_CONF, dumpEmbeddedDatabase, openDatabase } from '../../src/edges/outbound/store/database';
import * as schema from '../../src/edges/outbound/store/schema';
import { silentLogger } from '../../src/shared/logger';

/**
 * A migrated database for one test file: in-process PGlite by default, or (when the suite runs
 * with DATABASE_URL, as CI's second pass does) a fresh PostgreSQL database created for this file
 * and dropped afterwards, so files running in parallel never see each other's rows.
 */
export interface TestDatabase {
  database: Database;
  /** The connection string of the per-file PostgreSQL database, when on PostgreSQL. */
  url: string | undefined;
  /** Empties every table (between tests of one file). */
  reset(): Promise<void>;
  /** Records the text of every statement sent through `database` from now until `stop()`: the round-trip counter. */
  recordStatements(): { statements: string[]; stop(): void };
  close(): Promise<void>;
}

export const onPostgres = (): boolean => Boolean(process.env.DATABASE_URL);

const TABLES = (Object.values(schema) as unknown[])
  .filter((t: unknown): t is PgTable => t instanceof PgTable)
  .map((t) => `"${getTableName(t)}"`);

/** What the test template is trimmed by before its dump (see {@link migratedTemplate}). */
const TEMPLATE_TRIM = [
  "update pg_database set datistemplate = false where datname in ('template0', 'template1')",
  'drop database template0',
  'drop database template1',
  'checkpoint',
];

/**
 * A migrated embedded database, dumped once per set of migrations and shared by every test file
 * (a file in the system's temporary folder, named by a hash of the migrations): an initdb and the
 * migrations cost seconds, loading the dump under one. The file is written under another name
 * and renamed, so workers that build it at the same time never read half of it.
 *
 * The dump holds the one database the product uses: PostgreSQL's template databases (`template0`,
 * `template1`), which nothing in a test copies, are dropped first. They were half of its files, and
 * every test file that opens a database unpacks the dump (about 0.3 s less CPU an open: 0.81 s with
 * them, 0.51 s without, docs/benchmarks.md).
 */
async function migratedTemplate(): Promise<Blob> {
  const hash = createHash('sha256');
  hash.update(JSON.stringify(PGLITE_CONF)).update(JSON.stringify(TEMPLATE_TRIM));
  for (const name of fs.readdirSync(MIGRATIONS_FOLDER, { recursive: true }).map(String).sort()) {
    const file = path.join(MIGRATIONS_FOLDER, name);
    if (fs.statSync(file).isFile()) hash.update(name).update(fs.readFileSync(file));
  }
  const file = path.join(os.tmpdir(), `tierlink-test-template-${hash.digest('hex').slice(0, 16)}.tar`);
  if (!fs.existsSync(file)) {
    const fresh = await openDatabase({ engine: 'pglite-memory', logger: silentLogger });
    try {
      await fresh.migrate();
      for (const statement of TEMPLATE_TRIM) await fresh.db.execute(sql.raw(statement));
      const dump = await dumpEmbeddedDatabase(fresh);
      const partial = `${file}.${process.pid}.partial`;
      fs.writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
      fs.renameSync(partial, file);
    } finally {
      await fresh.close();
    }
  }
  return new Blob([fs.readFileSync(file)]);
}

export async function createTestDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const adminUrl = process.env.DATABASE_URL;
  const listeners = new Set<(statement: string) => void>();
  const onQuery = (statement: string) => {
    for (const listener of listeners) listener(statement);
  };
  let url: string | undefined;
  let dropDatabase = async () => {};
  let database: Database;
  if (adminUrl) {
    const scratch = await createScratchPostgres(adminUrl, 'tierlink_test');
    url = scratch.url;
    database = await openDatabase({ engine: 'postgres', url, logger: silentLogger, poolSize: 5, onQuery });
    dropDatabase = scratch.drop;
  } else {
    const from = options.migrate === false ? undefined : await migratedTemplate();
    database = await openDatabase({ engine: 'pglite-memory', logger: silentLogger, onQuery, ...(from ? { from } : {}) });
  }
  if (options.migrate !== false) await database.migrate();
  return {
    database,
    url,
    reset: async () => {
      await database.db.execute(sql.raw(`truncate table ${TABLES.join(', ')} restart identity`));
    },
    recordStatements: () => {
      const statements: string[] = [];
      const listener = (statement: string) => void statements.push(statement.replace(/\s+/g, ' ').trim());
      listeners.add(listener);
      return { statements, stop: () => void listeners.delete(listener) };
    },
    close: async () => {
      await database.close();
      await dropDatabase();
    },
  };
}
