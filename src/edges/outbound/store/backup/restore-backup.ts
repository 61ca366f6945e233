import fs from 'node:fs';
import { advisoryKey } from '../database';
import {
  type CodeMigration,
  MIGRATIONS_FOLDER,
  type SchemaLevel,
  appliedLevel,
  codeLevel,
  codeMigrations,
  describeLevel,
  migrationsThrough,
  readAppliedMigrations,
  RELEASE_KEY,
  recordRelease,
} from '../schema-level';
import { createSecretBox, secretKeyId } from '../secret-box';
import type { BackupHeader, SealedWith, TableStart } from './backup-format';
import { ident, isJsonType, readTables } from './catalog';
import { type BackupInventory, inventoryBackup, readBackup } from './read-backup';
import type { SqlSession } from './sql-session';

export type RestoreRefusal = 'newer' | 'unknown-migrations' | 'not-empty' | 'no-key' | 'wrong-key' | 'shape';

/** The restore changed nothing: why, and what to do (the message says both). */
export class RestoreRefusedError extends Error {
  constructor(
    readonly reason: RestoreRefusal,
    message: string,
  ) {
    super(message);
  }

  override get name(): string {
    return 'RestoreRefusedError';
  }
}

/** The keys the restored database will be opened with. */
export interface RestoreKeys {
  /** SECRET_KEY, or the embedded database's key file; null when this install has none yet. */
  current: string | null;
  /** SECRET_KEY_PREVIOUS: values sealed with it open too (start-up seals them again with the current key). */
  previous: string | null;
  /** How to name the current key to the operator (`SECRET_KEY`, or the key file's path). */
  currentName: string;
}

export interface RestoreReport {
  header: BackupHeader;
  tables: number;
  rows: number;
  /** The backup's level, loaded first. */
  from: SchemaLevel;
  /** The level the database was migrated to afterwards: this code's newest. */
  to: SchemaLevel;
}

/** Rows per insert: one JSON parameter each, so the count is bound by size, not by PostgreSQL's parameter limit. */
const BATCH_ROWS = 1000;
const BATCH_BYTES = 4 * 1024 * 1024;

/** The backup's migrations must be this code's first ones, in order; returns how many. */
function checkLevel(header: BackupHeader, code: readonly CodeMigration[], release: string): number {
  const ours = codeLevel(code);
  const theirs = header.migrations;
  if (theirs.some((m) => m.createdAt > ours.when)) {
    throw new RestoreRefusedError(
      'newer',
      `This backup is at schema ${describeLevel(header.level)}, made by Tierlink ${header.release}; this is Tierlink ${release}, ` +
        `which knows schema levels up to ${describeLevel(ours)}. Restore it with Tierlink ${header.release} or later.`,
    );
  }
  const unknown = theirs.filter((m, i) => code[i]?.when !== m.createdAt);
  if (unknown.length > 0) {
    throw new RestoreRefusedError(
      'unknown-migrations',
      `This backup's database applied ${unknown.length} migration${unknown.length === 1 ? '' : 's'} that Tierlink ${release} does not have ` +
        `(made by Tierlink ${header.release}, a build with other migrations). Restore it with the Tierlink it was made by.`,
    );
  }
  return theirs.length;
}

/** How to get the backup's key, in the words of the install that made it. */
function whereTheKeyWas(sealedWith: SealedWith | null): string {
  if (!sealedWith) return 'the SECRET_KEY of the install that made the backup';
  if (sealedWith.source === 'SECRET_KEY') return `the SECRET_KEY of the install that made the backup (key id ${sealedWith.keyId})`;
  return (
    `the key of the install that made the backup, which kept it in its data folder: ${sealedWith.path ?? 'DATA_DIR/secret.key'} ` +
    `(key id ${sealedWith.keyId}); e.g. SECRET_KEY="$(cat ${sealedWith.path ?? 'DATA_DIR/secret.key'})"`
  );
}

/** Every sealed value of the backup opens with this install's keys, or the restore is refused before it starts. */
function checkKeys(inventory: BackupInventory, keys: RestoreKeys): void {
  const sealed = [...inventory.keyIds.values()].reduce((a, b) => a + b, 0) + inventory.unboundSealed.length;
  if (sealed === 0) return;
  const what = `${sealed} sealed value${sealed === 1 ? '' : 's'} (creator tokens, webhook secrets)`;
  if (!keys.current) {
    throw new RestoreRefusedError(
      'no-key',
      `The backup holds ${what}, and this install has no key to open them yet. Set SECRET_KEY to ${whereTheKeyWas(inventory.header.sealedWith)}, then run the restore again.`,
    );
  }
  const accepted = new Set([keys.current, keys.previous].flatMap((k) => (k ? [secretKeyId(k)] : [])));
  const foreign = [...inventory.keyIds.keys()].filter((id) => !accepted.has(id));
  let unboundFail = false;
  if (inventory.unboundSealed.length > 0) {
    const box = createSecretBox(keys.current, keys.previous ?? undefined);
    unboundFail = inventory.unboundSealed.some((value) => {
      try {
        box.decrypt(value, { table: '', column: '', row: '' });
        return false;
      } catch {
        return true;
      }
    });
  }
  if (foreign.length === 0 && !unboundFail) return;
  const needed = foreign.length > 0 ? ` with the key id ${foreign.join(', ')}` : '';
  throw new RestoreRefusedError(
    'wrong-key',
    `The backup holds ${what} sealed${needed}, which ${keys.currentName} (key id ${secretKeyId(keys.current)}) cannot open. ` +
      `Set SECRET_KEY to ${whereTheKeyWas(inventory.header.sealedWith)}, then run the restore again. ` +
      '(To change keys afterwards: that key as SECRET_KEY_PREVIOUS and a new SECRET_KEY; start-up seals everything again.)',
  );
}

/**
 * Refuses a database that holds any row, or that a release migrated past the backup's level. The
 * one row `npm run migrate` writes (app_state's record of the release) does not count.
 */
async function checkEmpty(session: SqlSession, backupLevel: number, code: readonly CodeMigration[]): Promise<void> {
  const occupied: string[] = [];
  for (const table of await readTables(session.query)) {
    const own = table.name === 'app_state' ? ` where key <> '${RELEASE_KEY}'` : '';
    const [row] = await session.query<{ n: number }>(
      `select count(*)::int as n from (select 1 from ${ident(table.name)}${own} limit 1000) x`,
    );
    if (row && row.n > 0)
      occupied.push(`${table.name} (${row.n === 1000 ? '1,000 or more rows' : `${row.n} row${row.n === 1 ? '' : 's'}`})`);
  }
  if (occupied.length > 0) {
    throw new RestoreRefusedError(
      'not-empty',
      `The database is not empty: ${occupied.slice(0, 8).join(', ')}${occupied.length > 8 ? `, and ${occupied.length - 8} more tables` : ''}. ` +
        'A restore loads only into an empty database, so that nothing is lost or mixed: create a new database and point DATABASE_URL at it, ' +
        'or (embedded) point DATA_DIR at a new, empty folder.',
    );
  }
  const applied = await readAppliedMigrations(session.query);
  if (applied.length > backupLevel || applied.some((m, i) => code[i]?.when !== m.createdAt)) {
    throw new RestoreRefusedError(
      'not-empty',
      `The database holds no rows, but it was already migrated to schema ${describeLevel(appliedLevel(applied, code))}, past the backup's level ${backupLevel}. ` +
        'Restore into a new, empty database (or, embedded, a new DATA_DIR): the restore migrates it itself.',
    );
  }
}

/** The insert of one batch of rows of `table`, given as one JSON array parameter. */
function insertStatement(table: TableStart, targetTypes: Map<string, string>): string {
  const names = table.columns.map((c) => ident(c.name));
  const definitions = table.columns.map((c) => {
    const type = targetTypes.get(c.name) ?? c.type;
    return `${ident(c.name)} ${isJsonType(type) ? 'text' : type}`;
  });
  const values = table.columns.map((c) => {
    const type = targetTypes.get(c.name) ?? c.type;
    return isJsonType(type) ? `x.${ident(c.name)}::${type}` : `x.${ident(c.name)}`;
  });
  return (
    `insert into ${ident(table.table)} (${names.join(', ')}) overriding system value ` +
    `select ${values.join(', ')} from jsonb_to_recordset($1::jsonb) as x(${definitions.join(', ')})`
  );
}

/** Serial and identity columns continue after the highest restored value. */
async function resetSequences(session: SqlSession, tables: readonly TableStart[]): Promise<void> {
  for (const table of tables) {
    for (const column of table.columns) {
      const [row] = await session.query<{ seq: string | null }>(`select pg_get_serial_sequence($1, $2) as seq`, [
        `public.${ident(table.table)}`,
        column.name,
      ]);
      if (!row?.seq) continue;
      await session.query(
        `select setval($1::regclass, coalesce(max(${ident(column.name)}), 1), max(${ident(column.name)}) is not null) from ${ident(table.table)}`,
        [row.seq],
      );
    }
  }
}

/**
 * Loads a backup (backup-format.ts) into the empty database of `session`, of either engine:
 *
 * 1. reads the whole file once: complete, a schema level this code knows (never newer), and every
 *    sealed value openable with this install's keys; otherwise refuses, naming the key it needs;
 * 2. refuses a database that holds any row (or was migrated past the backup's level);
 * 3. migrates the database to the backup's level, loads every table in one transaction, sets the
 *    sequences after the restored ids;
 * 4. runs the newer migrations: the data of an older release arrives in today's shape.
 *
 * On PostgreSQL it holds the migration lock throughout, so a Tierlink starting meanwhile waits and
 * then finds the restored database. Nothing is changed when it refuses; a failure while loading
 * rolls the rows back (the database stays empty, migrated to the backup's level, and a second
 * restore may load into it).
 */
export async function restoreBackup(options: {
  file: string;
  session: SqlSession;
  keys: RestoreKeys;
  release: string;
}): Promise<RestoreReport> {
  const { file, session, keys, release } = options;
  const code = codeMigrations();
  const inventory = await inventoryBackup(file);
  const level = checkLevel(inventory.header, code, release);
  checkKeys(inventory, keys);

  if (session.engine === 'postgres') await session.query('select pg_advisory_lock($1::bigint)', [advisoryKey('migrate').toString()]);
  try {
    await checkEmpty(session, level, code);
    if (level > 0) {
      const folder = migrationsThrough(level);
      try {
        await session.migrate(folder);
      } finally {
        fs.rmSync(folder, { recursive: true, force: true });
      }
    }
    const target = new Map((await readTables(session.query)).map((t) => [t.name, new Map(t.columns.map((c) => [c.name, c.type]))]));
    for (const { table } of inventory.tables) {
      const columns = target.get(table.table);
      const missing = columns ? table.columns.filter((c) => !columns.has(c.name)).map((c) => c.name) : null;
      if (!columns || missing!.length > 0) {
        throw new RestoreRefusedError(
          'shape',
          `The backup's table ${table.table} ${columns ? `has columns (${missing!.join(', ')}) that` : 'does not exist in'} a database at its schema level ${
            inventory.header.level.level
          }${columns ? ' does not have' : ''}: the file was altered, or made by a build with other migrations.`,
        );
      }
    }

    await session.query('begin');
    try {
      // The backup brings its own record of the release (checkEmpty let this one through).
      if (target.has('app_state')) await session.query(`delete from app_state where key = $1`, [RELEASE_KEY]);
      let current: TableStart | null = null;
      let statement = '';
      let batch: string[] = [];
      let bytes = 0;
      const flush = async () => {
        if (batch.length === 0) return;
        await session.query(statement, [`[${batch.join(',')}]`]);
        batch = [];
        bytes = 0;
      };
      for await (const line of readBackup(file)) {
        if (line.kind === 'table') {
          current = line.table;
          statement = insertStatement(current, target.get(current.table)!);
        } else if (line.kind === 'row') {
          batch.push(line.text);
          bytes += line.text.length;
          if (batch.length >= BATCH_ROWS || bytes >= BATCH_BYTES) await flush();
        } else if (line.kind === 'table-end') {
          await flush();
        }
      }
      await resetSequences(
        session,
        inventory.tables.map((t) => t.table),
      );
      await session.query('commit');
    } catch (error) {
      await session.query('rollback').catch(() => undefined);
      throw error;
    }

    await session.migrate(MIGRATIONS_FOLDER);
    await recordRelease(session.query, release);
    return {
      header: inventory.header,
      tables: inventory.tables.length,
      rows: inventory.rows,
      from: inventory.header.level,
      to: appliedLevel(await readAppliedMigrations(session.query), code),
    };
  } finally {
    if (session.engine === 'postgres') {
      await session.query('select pg_advisory_unlock($1::bigint)', [advisoryKey('migrate').toString()]).catch(() => undefined);
    }
  }
}
