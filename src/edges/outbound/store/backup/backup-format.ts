import type { AppliedMigration, SchemaLevel } from '../schema-level';
import type { ColumnShape } from './catalog';

/**
 * A Tierlink backup: gzip-compressed JSON lines, one engine's database in a form the other loads.
 *
 *     {"format":"tierlink-backup","formatVersion":1,…}     the header (BackupHeader)
 *     {"table":"links","columns":[{"name":…,"type":…},…]}  a table starts
 *     {"r":{"discord_user_id":"…",…}}                      one row each: the row as PostgreSQL's to_jsonb writes it
 *     {"end":"links","rows":3}                              the table ends, with its row count
 *     …
 *     {"end":"backup","tables":23,"rows":1234}              the last line: a file without it is cut short
 *
 * Rows are written and loaded as the database's own JSON text, never parsed into JavaScript
 * values on the way: a 64-bit id or a timestamp's microseconds survive exactly. json and jsonb
 * columns are carried as their text. The header records the migrations the database had applied
 * (its schema level): a restore brings an empty database to that level, loads the rows, then runs
 * the newer migrations, so a backup from an older release loads into a newer one.
 */

export const BACKUP_FORMAT = 'tierlink-backup';
export const BACKUP_FORMAT_VERSION = 1;

/**
 * Tables that say which processes are running now (their heartbeats, gateway shard leases,
 * IDENTIFY slots, Discord's and Patreon's request windows, the interactions being answered this
 * quarter hour), not what Tierlink knows: a backup leaves them out, so a restored database starts
 * with no process holding anything. Every other table is carried.
 */
export const PROCESS_TABLES: readonly string[] = [
  'instances',
  'shard_leases',
  'identify_slots',
  'discord_budget',
  'discord_global_holder',
  'patreon_budget',
  'interaction_claims',
];

/** Which key sealed the stored secrets of the install that made the backup. */
export interface SealedWith {
  /** The key's id as sealed values carry it (src/edges/outbound/store/secret-box.ts, `secretKeyId`). */
  keyId: string;
  /** Where that install read its key: `SECRET_KEY`, or the generated key file of the embedded database. */
  source: 'SECRET_KEY' | 'DATA_DIR/secret.key';
  /** The key file's path on the machine that made the backup, for `DATA_DIR/secret.key`. */
  path?: string;
}

export interface BackupHeader {
  format: typeof BACKUP_FORMAT;
  formatVersion: number;
  createdAt: string;
  /** The Tierlink release that wrote the backup. */
  release: string;
  engine: 'pglite' | 'postgres';
  /** The database's applied migrations, oldest first (drizzle.__drizzle_migrations). */
  migrations: AppliedMigration[];
  level: SchemaLevel;
  /** Null when no key was found (a database that never stored a secret). */
  sealedWith: SealedWith | null;
}

export interface TableStart {
  table: string;
  columns: ColumnShape[];
}

/** A row line is `{"r":<row>}`: the row's text sits between these. */
export const ROW_PREFIX = '{"r":';
export const ROW_SUFFIX = '}';
