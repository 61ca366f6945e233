import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from './package-root';

/**
 * The schema level of a database: which of drizzle's migrations (drizzle/, one SQL file each,
 * listed in drizzle/meta/_journal.json) it has applied. drizzle records each applied migration in
 * `drizzle.__drizzle_migrations` as the SHA-256 of its file and the journal's `when` (the moment it
 * was generated), and applies the migrations whose `when` is later than the last one recorded. So a
 * level is the count and the last `when`; two migrations are the same when their `when` is.
 *
 * drizzle's migrator never looks back: a database that a newer release migrated further is not an
 * error to it, and older code would then run against tables it does not know. Start-up refuses
 * that ({@link DatabaseNewerError}); backups carry their level, and a restore migrates forward from it.
 */

export const MIGRATIONS_FOLDER = path.join(packageRoot(), 'drizzle');

/** Where drizzle keeps its record (its defaults, which we never change). */
export const MIGRATIONS_TABLE = 'drizzle.__drizzle_migrations';

/** `app_state` key of the release that last migrated (or started on) the database. */
export const RELEASE_KEY = 'release';

export interface CodeMigration {
  /** 1-based: the level a database has once this migration is applied. */
  level: number;
  tag: string;
  when: number;
  hash: string;
}

export interface AppliedMigration {
  hash: string;
  createdAt: number;
}

/** A raw SQL call on either engine's own client (node-postgres `Client`, `PGlite`): `{ rows }`. */
export type RawQuery = <T>(text: string, params?: unknown[]) => Promise<T[]>;

export interface SchemaLevel {
  /** How many migrations are applied (0: none). */
  level: number;
  /** The last one's file name without `.sql`, when the code knows it. */
  tag: string | null;
  /** The last one's journal `when` (0: none). */
  when: number;
}

interface Journal {
  entries: Array<{ idx: number; when: number; tag: string }>;
}

function readJournal(folder: string): Journal {
  return JSON.parse(fs.readFileSync(path.join(folder, 'meta', '_journal.json'), 'utf8')) as Journal;
}

/** The migrations this code ships, in order, hashed as drizzle hashes them. */
export function codeMigrations(folder: string = MIGRATIONS_FOLDER): CodeMigration[] {
  return readJournal(folder).entries.map((entry, i) => ({
    level: i + 1,
    tag: entry.tag,
    when: entry.when,
    hash: createHash('sha256')
      .update(fs.readFileSync(path.join(folder, `${entry.tag}.sql`)))
      .digest('hex'),
  }));
}

/** The newest level this code can bring a database to. */
export function codeLevel(migrations: readonly CodeMigration[] = codeMigrations()): SchemaLevel {
  const last = migrations.at(-1);
  return { level: migrations.length, tag: last?.tag ?? null, when: last?.when ?? 0 };
}

/** The migrations a database has applied, oldest first; none when it has never been migrated. */
export async function readAppliedMigrations(query: RawQuery): Promise<AppliedMigration[]> {
  const [present] = await query<{ present: boolean }>(`select to_regclass('${MIGRATIONS_TABLE}') is not null as present`);
  if (!present?.present) return [];
  const rows = await query<{ hash: string; created_at: string | number | null }>(
    `select hash, created_at from ${MIGRATIONS_TABLE} order by created_at asc, id asc`,
  );
  return rows.map((r) => ({ hash: r.hash, createdAt: Number(r.created_at ?? 0) }));
}

/** The level of applied migrations, named with the code's tag when the code knows the last one. */
export function appliedLevel(applied: readonly AppliedMigration[], code: readonly CodeMigration[] = codeMigrations()): SchemaLevel {
  const last = applied.at(-1);
  if (!last) return { level: 0, tag: null, when: 0 };
  return { level: applied.length, tag: code.find((m) => m.when === last.createdAt)?.tag ?? null, when: last.createdAt };
}

/** "level 11 (0010_free-tier-roles)". */
export function describeLevel(level: SchemaLevel): string {
  if (level.level === 0) return 'level 0 (no migrations)';
  return `level ${level.level}${level.tag ? ` (${level.tag})` : ''}`;
}

/** The release recorded by the last start or migration, when the database has one. */
export async function readRecordedRelease(query: RawQuery): Promise<string | null> {
  const [present] = await query<{ present: boolean }>(`select to_regclass('public.app_state') is not null as present`);
  if (!present?.present) return null;
  const [row] = await query<{ version: string | null }>(`select value->>'version' as version from app_state where key = $1`, [RELEASE_KEY]);
  return row?.version ?? null;
}

/** Records `version` as the release that last migrated the database (after the migrations ran). */
export async function recordRelease(query: RawQuery, version: string): Promise<void> {
  await query(
    `insert into app_state (key, value, updated_at) values ($1, $2::jsonb, now())
       on conflict (key) do update set value = excluded.value, updated_at = excluded.updated_at`,
    [RELEASE_KEY, JSON.stringify({ version })],
  );
}

/**
 * The database was migrated by a newer Tierlink than this one: its tables may have columns and
 * meanings this code does not know. Nothing is changed; the operator runs the newer release or
 * restores the backup taken before the upgrade.
 */
export class DatabaseNewerError extends Error {
  constructor(
    readonly database: SchemaLevel & { release: string | null },
    readonly code: SchemaLevel & { release: string },
  ) {
    super(
      `The database is newer than this Tierlink: it is at schema ${describeLevel(database)}` +
        `${database.release ? `, migrated by Tierlink ${database.release}` : ''}, and Tierlink ${code.release} knows schema levels up to ` +
        `${describeLevel(code)}. Start Tierlink ${database.release ?? 'of the newer release'} (or later) again, or roll back: ` +
        'restore the backup taken before the upgrade into an empty database with this release (docs/operating.md, "Roll back").',
    );
  }

  override get name(): string {
    return 'DatabaseNewerError';
  }
}

/** Throws {@link DatabaseNewerError} when the database has a migration later than this code's last. */
export async function assertNotNewer(query: RawQuery, release: string, code: readonly CodeMigration[] = codeMigrations()): Promise<void> {
  const applied = await readAppliedMigrations(query);
  const ours = codeLevel(code);
  if (!applied.some((m) => m.createdAt > ours.when)) return;
  const theirs = appliedLevel(applied, code);
  throw new DatabaseNewerError({ ...theirs, release: await readRecordedRelease(query) }, { ...ours, release });
}

/**
 * A migrations folder holding this code's migrations up to `level` only: drizzle's migrator then
 * brings an empty database to exactly that level (a restore loads a backup at its own level, then
 * migrates forward). The caller removes the folder.
 */
export function migrationsThrough(level: number, folder: string = MIGRATIONS_FOLDER): string {
  const journal = readJournal(folder);
  if (level > journal.entries.length) throw new Error(`this code has ${journal.entries.length} migrations, not ${level}`);
  const entries = journal.entries.slice(0, level);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-migrations-'));
  fs.mkdirSync(path.join(dir, 'meta'));
  fs.writeFileSync(path.join(dir, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries }));
  for (const entry of entries) fs.copyFileSync(path.join(folder, `${entry.tag}.sql`), path.join(dir, `${entry.tag}.sql`));
  return dir;
}
