import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { Client, Pool } from 'pg';
import { createKeyedMutex } from '../../../shared/keyed-mutex';
import type { Logger } from '../../../shared/logger';
import { packageVersion } from './package-root';
import { type DataDirLock, acquireDataDirLock } from './data-dir-lock';
import { MIGRATIONS_FOLDER, type RawQuery, assertNotNewer, recordRelease } from './schema-level';
import { copyDatabaseFolder, newSnapshotDir } from './backup/embedded-snapshot';
import * as schema from './schema';
import { refreshPlannerStatistics } from './planner-statistics';

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
   * a connection of its own, outside the pool (a lock taken through the pool could land on another
   * connection and leak; one held for a whole sync would take a pool connection from the work).
   * PGlite: one process by construction, so an in-process set suffices.
   * With `shared`, any number of shared holders at once, none while an exclusive one holds it (and
   * the reverse).
   */
  tryWithLock<T>(
    name: string,
    fn: () => Promise<T>,
    options?: { shared?: boolean },
  ): Promise<{ acquired: true; value: T } | { acquired: false }>;
  /**
   * Runs `fn` while holding a lock named `name` across every process on this database, waiting
   * for it as long as another holds it (at most `waitMs`, then it throws). For short work that
   * must not run twice at once (refreshing a creator's tokens). PostgreSQL: a session advisory lock
   * on a connection of its own; PGlite: in-process, one process by construction.
   */
  withLock<T>(name: string, fn: () => Promise<T>, options?: { waitMs?: number }): Promise<T>;
  migrate(): Promise<void>;
  /**
   * Analyses the tables that grew since their last analysis, so that the query planner picks the
   * indexes a page of the full sync needs (src/edges/outbound/store/planner-statistics.ts); answers
   * their names. The full sync calls it after reading its campaigns.
   */
  refreshStatistics(): Promise<string[]>;
  /**
   * The embedded database of a data folder only: copies its files while no statement runs (a
   * moment: the time of a file copy) into `DATA_DIR/snapshots/…/pglite` and returns that path, for
   * a backup to read at leisure (src/edges/outbound/store/backup/embedded-snapshot.ts).
   */
  snapshot?(): Promise<string>;
  close(): Promise<void>;
}

/** How long {@link Database.withLock} waits for another holder by default. */
export const LOCK_WAIT_MS = 120_000;

/**
 * Called after each statement the database answered (or refused), with its text and the wall time
 * it took: the round-trip counter of the tests and the benchmark (a sync must send a statement per
 * page, never one per member).
 */
export type QueryObserver = (statement: string, ms: number) => void;

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

export type DatabaseOptions = (
  | { engine: 'postgres'; url: string; logger: Logger; poolSize?: number; timeouts?: Partial<PostgresTimeouts> }
  | { engine: 'pglite'; dataDir: string; logger: Logger }
  /**
   * In-memory PGlite: tests and throwaway databases. `from`: a data directory written by
   * {@link dumpEmbeddedDatabase} to start from (an initdb costs seconds; loading one, under one).
   */
  | { engine: 'pglite-memory'; logger: Logger; from?: Blob }
) & { onQuery?: QueryObserver };

/**
 * PGlite's defaults size its buffer cache for a server (128 MB of shared_buffers inside the WASM
 * heap, which never shrinks). One process serving one creator's campaign reads a small working
 * set; 16 MB holds it. Measured with `npm run bench` (a 100,000-member first sync, then an idle
 * one): peak RSS 249 MB instead of 396 MB, for about 2.7 s more CPU on the first sync (25.3 s
 * against 22.6 s) and 1.6 s more on the idle one (6.4 s against 4.8 s): the smaller cache reads
 * pages again (docs/benchmarks.md).
 */
export const PGLITE_CONF = ['shared_buffers = 16MB'];

export { MIGRATIONS_FOLDER } from './schema-level';

/** A raw query on a node-postgres client or a PGlite handle (both answer `{ rows }`). */
export function rawQuery(client: { query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }> }): RawQuery {
  return async <T>(text: string, params?: unknown[]) => (await client.query(text, params)).rows as T[];
}

/** A stable 64-bit advisory lock key for a name (advisory locks take a bigint). */
export function advisoryKey(name: string): bigint {
  return createHash('sha256').update(`tierlink:${name}`).digest().readBigInt64BE(0);
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const { onQuery } = options;
  if (options.engine === 'postgres') {
    return openPostgres(options.url, options.logger, options.poolSize ?? 10, { ...POSTGRES_TIMEOUTS, ...options.timeouts }, onQuery);
  }
  if (options.engine === 'pglite') return openPglite(options.dataDir, options.logger, onQuery);
  return openPglite(undefined, options.logger, onQuery, options.from);
}

/** The data directory of an embedded database, uncompressed, to open copies of it with `from`. */
export async function dumpEmbeddedDatabase(database: Database): Promise<Blob> {
  const client = pgliteClients.get(database);
  if (!client) throw new Error('dumpEmbeddedDatabase: not an embedded (PGlite) database');
  return client.dumpDataDir('none');
}

const pgliteClients = new WeakMap<Database, PGlite>();

type Callback = (...args: unknown[]) => void;

/** Wraps `query` of a node-postgres client or a PGlite handle so that each statement reaches `onQuery`. */
function observeQueries<T extends { query: (...args: never[]) => unknown }>(target: T, onQuery: QueryObserver): T {
  const query = target.query.bind(target) as (...args: unknown[]) => unknown;
  (target as { query: unknown }).query = (...args: unknown[]) => {
    const first = args[0] as string | { text?: string } | undefined;
    const text = typeof first === 'string' ? first : (first?.text ?? '');
    const started = performance.now();
    const done = () => onQuery(text, performance.now() - started);
    const last = args.at(-1);
    if (typeof last === 'function') {
      // node-postgres' pool calls its client with a callback.
      args[args.length - 1] = (...results: unknown[]) => {
        done();
        (last as Callback)(...results);
      };
      return query(...args);
    }
    const result = query(...args);
    if (result instanceof Promise) result.then(done, done);
    return result;
  };
  return target;
}

async function openPostgres(
  url: string,
  logger: Logger,
  poolSize: number,
  timeouts: PostgresTimeouts,
  onQuery?: QueryObserver,
): Promise<Database> {
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
  if (onQuery) pool.on('connect', (client) => void observeQueries(client, onQuery));
  const db = drizzleNodePg({ client: pool, schema }) as unknown as Db;

  /**
   * The lock's session is a connection of its own, outside the pool: a full sync holds its lock for
   * hours, and the pool's connections stay for the work (a `/link` never waits for one the sync
   * only holds a lock on).
   */
  async function withSessionLock<T>(name: string, shared: boolean, fn: () => Promise<T>) {
    const client = new Client({ connectionString: url, connectionTimeoutMillis: timeouts.connectMs, keepAlive: true });
    client.on('error', (error) => logger.error({ err: error, lock: name }, 'the PostgreSQL connection holding a lock failed'));
    await client.connect();
    const key = advisoryKey(name).toString();
    const mode = shared ? '_shared' : '';
    try {
      const res = await client.query<{ ok: boolean }>(`select pg_try_advisory_lock${mode}($1::bigint) as ok`, [key]);
      if (!res.rows[0]?.ok) return { acquired: false as const };
      try {
        return { acquired: true as const, value: await fn() };
      } finally {
        await client.query(`select pg_advisory_unlock${mode}($1::bigint)`, [key]);
      }
    } finally {
      await client.end();
    }
  }

  return {
    db,
    engine: 'postgres',
    ping: async () => {
      await pool.query('select 1');
    },
    tryWithLock: (name, fn, options) => withSessionLock(name, options?.shared === true, fn),
    refreshStatistics: () => refreshPlannerStatistics(db),
    withLock: async (name, fn, options) => {
      const client = new Client({ connectionString: url, connectionTimeoutMillis: timeouts.connectMs, keepAlive: true });
      client.on('error', (error) => logger.error({ err: error, lock: name }, 'the PostgreSQL connection holding a lock failed'));
      await client.connect();
      const key = advisoryKey(name).toString();
      try {
        await client.query(`set lock_timeout = ${Math.max(1, Math.round(options?.waitMs ?? LOCK_WAIT_MS))}`);
        await client.query('select pg_advisory_lock($1::bigint)', [key]);
        try {
          return await fn();
        } finally {
          await client.query('select pg_advisory_unlock($1::bigint)', [key]);
        }
      } finally {
        await client.end();
      }
    },
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
          const release = packageVersion();
          await assertNotNewer(rawQuery(client), release);
          await migrateNodePg(drizzleNodePg({ client, schema }), { migrationsFolder: MIGRATIONS_FOLDER });
          await recordRelease(rawQuery(client), release);
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

async function openPglite(dataDir: string | undefined, logger: Logger, onQuery?: QueryObserver, from?: Blob): Promise<Database> {
  let lock: DataDirLock | undefined;
  if (dataDir) lock = acquireDataDirLock(dataDir);
  let client: PGlite;
  try {
    // One options object: PGlite reads its second argument only when the first is a path, so an
    // in-memory database given (undefined, options) would silently drop them.
    client = new PGlite({
      ...(dataDir ? { dataDir: path.join(dataDir, 'pglite') } : {}),
      postgresqlconf: PGLITE_CONF,
      ...(from ? { loadDataDir: from } : {}),
    });
    await client.waitReady;
  } catch (error) {
    lock?.release();
    throw error;
  }
  if (onQuery) {
    observeQueries(client, onQuery);
    const transaction = client.transaction.bind(client);
    client.transaction = (fn) => transaction((tx) => fn(observeQueries(tx, onQuery)));
  }
  const db = drizzlePglite({ client, schema });
  /** Lock name → how many hold it shared, or -1 while one holds it exclusively. */
  const held = new Map<string, number>();
  const waited = createKeyedMutex();
  logger.debug({ dataDir: dataDir ?? 'memory' }, 'embedded database open');
  const database: Database = {
    db: db as unknown as Db,
    engine: 'pglite',
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    tryWithLock: async (name, fn, options) => {
      const holders = held.get(name) ?? 0;
      const shared = options?.shared === true;
      if (holders === -1 || (holders > 0 && !shared)) return { acquired: false };
      held.set(name, shared ? holders + 1 : -1);
      try {
        return { acquired: true, value: await fn() };
      } finally {
        const left = shared ? (held.get(name) ?? 1) - 1 : 0;
        if (left > 0) held.set(name, left);
        else held.delete(name);
      }
    },
    withLock: (name, fn) => waited.run(name, fn),
    refreshStatistics: () => refreshPlannerStatistics(db as unknown as Db),
    migrate: async () => {
      const release = packageVersion();
      await assertNotNewer(rawQuery(client), release);
      await migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER });
      await recordRelease(rawQuery(client), release);
    },
    ...(dataDir
      ? {
          snapshot: async () => {
            const into = path.join(newSnapshotDir(dataDir), 'pglite');
            // PGlite's own exclusion of statements (what its dumpDataDir holds): nothing writes meanwhile.
            await client._runExclusiveQuery(() => copyDatabaseFolder(path.join(dataDir, 'pglite'), into));
            return into;
          },
        }
      : {}),
    close: async () => {
      try {
        await client.close();
      } finally {
        lock?.release();
      }
    },
  };
  pgliteClients.set(database, client);
  return database;
}

/** Rows of a raw `db.execute(sql…)`: node-postgres and PGlite both answer `{ rows }`. */
export async function queryRows<T>(db: Db, query: ReturnType<typeof sql>): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

/**
 * A PostgreSQL array literal of text (`{"a","b"}`) for one `$1::text[]` parameter: a page of ids as
 * a single parameter, which PGlite binds far cheaper than a thousand (`= any($1::text[])`).
 */
export function textArray(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`;
}
