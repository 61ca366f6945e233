import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { Client } from 'pg';
import { type Engine, PGLITE_CONF, POSTGRES_TIMEOUTS, rawQuery } from '../database';
import type { RawQuery } from '../schema-level';

/**
 * One connection of its own to either engine, for the work of a backup or a restore: raw SQL
 * (every table, whatever the schema says today) and drizzle's migrator on the same connection.
 * Unlike the service's pool it has no statement timeout: reading or loading a large table is one
 * long statement, and it must not be cut off halfway.
 */
export interface SqlSession {
  readonly engine: Engine;
  query: RawQuery;
  /** drizzle's migrator with `folder` (all of drizzle/, or the first migrations of it). */
  migrate(folder: string): Promise<void>;
  close(): Promise<void>;
}

export async function openPostgresSession(url: string): Promise<SqlSession> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: POSTGRES_TIMEOUTS.connectMs, keepAlive: true });
  // A connection that fails between queries fails the next query; nothing else listens for it.
  client.on('error', () => undefined);
  await client.connect();
  return {
    engine: 'postgres',
    query: rawQuery(client),
    migrate: (folder) => migrateNodePg(drizzleNodePg({ client }), { migrationsFolder: folder }),
    close: () => client.end(),
  };
}

/** PGlite on `pgliteDir` (a `DATA_DIR/pglite`, or a copy of one). The caller holds whatever lock the folder needs. */
export async function openPgliteSession(pgliteDir: string): Promise<SqlSession> {
  const client = new PGlite({ dataDir: pgliteDir, postgresqlconf: PGLITE_CONF });
  await client.waitReady;
  return {
    engine: 'pglite',
    query: rawQuery(client),
    migrate: (folder) => migratePglite(drizzlePglite({ client }), { migrationsFolder: folder }),
    close: () => client.close(),
  };
}
