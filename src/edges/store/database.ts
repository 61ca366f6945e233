import { createHash } from 'node:crypto';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { Client, Pool } from 'pg';
import type { Logger } from '../../shared/logger';
import { packageRoot } from './package-root';
import { type DataDirLock, acquireDataDirLock } from './data-dir-lock';
import * as schema from './schema';

/** One typed handle for both engines (docs/tech-facts.md §5). */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export type Engine = 'pglite' | 'postgres';

export interface Database {
  readonly db: Db;
  readonly engine: Engine;
  /** Throws when the database does not answer. */
  ping(): Promise<void>;
  /**
   * Runs `fn` while holding a lock named `name` across every process on this database, or returns
   * `{ acquired: false }` at once when someone else holds it. PostgreSQL: a session advisory lock on
   * one checked-out connection (a lock taken through the pool could land on another connection
   * and leak). PGlite: one process by construction, so an in-process set suffices.
   */
  tryWithLock<T>(name: string, fn: () => Promise<T>): Promise<{ acquired: true; value: T } | { acquired: false }>;
  migrate(): Promise<void>;
  close(): Promise<void>;
}

/**
 * PostgreSQL's bounds on one connection: a database that stops answering fails a call in seconds
 * instead of holding a delivery, a request or the sync forever (docs/decisions.md §10).
 */
export interface PostgresTimeouts {
  /** Opening a connection. */
  connectMs: number;
  /** One statement, on the server (`statement_timeout`); migrations run without it. */
  statementMs: number;
  /** One query, on our side (also when the server no longer answers at all). */
  queryMs: number;
  /** A transaction left open and idle (`idle_in_transaction_session_timeout`). */
  idleInTransactionMs: number;
}

export const POSTGRES_TIMEOUTS: PostgresTimeouts = { connectMs: 10_000, statementMs: 30_000, queryMs: 45_000, idleInTransactionMs: 60_000 };

export type DatabaseOptions =
  | { engine: 'postgres'; url: string; logger: Logger; poolSize?: number; timeouts?: Partial<PostgresTimeouts> }
  | { engine: 'pglite'; dataDir: string; logger: Logger }
  /** In-memory PGlite: tests and the demo's throwaway databases. */
  | { engine: 'pglite-memory'; logger: Logger };

/**
 * PGlite's defaults size its buffer cache for a server (128 MB of shared_buffers inside the WASM
 * heap, which never shrinks). One process serving one creator's campaign reads a small working
 * set; 16 MB holds it and keeps the whole service near 300 MB at a 100,000-member sync
 * (measured with `npm run bench`).
 */
export const PGLITE_CONF = ['shared_buffers = 16MB'];

export const MIGRATIONS_FOLDER = path.join(packageRoot(), 'drizzle');

/** A stable 64-bit advisory lock key for a name (advisory locks take a bigint). */
export function advisoryKey(name: string): bigint {
  return createHash('sha256').update(`tierlink:${name}`).digest().readBigInt64BE(0);
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.engine === 'postgres') {
    return openPostgres(options.url, options.logger, options.poolSize ?? 10, { ...POSTGRES_TIMEOUTS, ...options.timeouts });
  }
  if (options.engine === 'pglite') return openPglite(options.dataDir, options.logger);
  return openPglite(undefined, options.logger);
}

async function openPostgres(url: string, logger: Logger, poolSize: number, timeouts: PostgresTimeouts): Promise<Database> {
  const pool = new Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: timeouts.connectMs,
    statement_timeout: timeouts.statementMs,
    query_timeout: timeouts.queryMs,
    idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
    keepAlive: true,
  });
  pool.on('error', (error) => logger.error({ err: error }, 'idle PostgreSQL connection failed'));
  const db = drizzleNodePg({ client: pool, schema }) as unknown as Db;

  async function withSessionLock<T>(name: string, wait: boolean, fn: () => Promise<T>) {
    const client = await pool.connect();
    const key = advisoryKey(name).toString();
    try {
      if (wait) {
        await client.query('select pg_advisory_lock($1::bigint)', [key]);
      } else {
        const res = await client.query<{ ok: boolean }>('select pg_try_advisory_lock($1::bigint) as ok', [key]);
        if (!res.rows[0]?.ok) return { acquired: false as const };
      }
      try {
        return { acquired: true as const, value: await fn() };
      } finally {
        await client.query('select pg_advisory_unlock($1::bigint)', [key]);
      }
    } finally {
      client.release();
    }
  }

  return {
    db,
    engine: 'postgres',
    ping: async () => {
      await pool.query('select 1');
    },
    tryWithLock: (name, fn) => withSessionLock(name, false, fn),
    migrate: async () => {
      // drizzle's migrate() takes no lock (drizzle-orm#874): instances starting together would race.
      // Its own connection, without the statement and query timeouts: waiting for another
      // instance's migration, and a migration itself, may take longer than a statement may.
      const client = new Client({ connectionString: url, connectionTimeoutMillis: timeouts.connectMs, keepAlive: true });
      client.on('error', (error) => logger.error({ err: error }, 'the migration connection to PostgreSQL failed'));
      await client.connect();
      const key = advisoryKey('migrate').toString();
      try {
        await client.query('select pg_advisory_lock($1::bigint)', [key]);
        try {
          await migrateNodePg(drizzleNodePg({ client, schema }), { migrationsFolder: MIGRATIONS_FOLDER });
        } finally {
          await client.query('select pg_advisory_unlock($1::bigint)', [key]);
        }
      } finally {
        await client.end();
      }
    },
    close: () => pool.end(),
  };
}

async function openPglite(dataDir: string | undefined, logger: Logger): Promise<Database> {
  let lock: DataDirLock | undefined;
  if (dataDir) lock = acquireDataDirLock(dataDir);
  let client: PGlite;
  try {
    client = new PGlite(dataDir ? path.join(dataDir, 'pglite') : undefined, { postgresqlconf: PGLITE_CONF });
    await client.waitReady;
  } catch (error) {
    lock?.release();
    throw error;
  }
  const db = drizzlePglite({ client, schema });
  const held = new Set<string>();
  logger.debug({ dataDir: dataDir ?? 'memory' }, 'embedded database open');
  return {
    db: db as unknown as Db,
    engine: 'pglite',
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    tryWithLock: async (name, fn) => {
      if (held.has(name)) return { acquired: false };
      held.add(name);
      try {
        return { acquired: true, value: await fn() };
      } finally {
        held.delete(name);
      }
    },
    migrate: () => migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER }),
    close: async () => {
      try {
        await client.close();
      } finally {
        lock?.release();
      }
    },
  };
}

/** Rows of a raw `db.execute(sql…)`: node-postgres and PGlite both answer `{ rows }`. */
export async function queryRows<T>(db: Db, query: ReturnType<typeof sql>): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}
