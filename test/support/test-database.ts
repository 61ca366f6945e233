import { getTableName, sql } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { createScratchPostgres } from '../../bench/scratch-database';
import { type Database, openDatabase } from '../../src/edges/store/database';
import * as schema from '../../src/edges/store/schema';
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

const TABLES = Object.values(schema)
  .filter((t: unknown): t is PgTable => t instanceof PgTable)
  .map((t) => `"${getTableName(t)}"`);

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
    database = await openDatabase({ engine: 'pglite-memory', logger: silentLogger, onQuery });
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
