import fs from 'node:fs';
import readline from 'node:readline';
import { createGunzip } from 'node:zlib';
import { sealedKeyId } from '../secret-box';
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, type BackupHeader, ROW_PREFIX, ROW_SUFFIX, type TableStart } from './backup-format';

export type BackupLine =
  | { kind: 'header'; header: BackupHeader }
  | { kind: 'table'; table: TableStart }
  | { kind: 'row'; table: string; text: string }
  | { kind: 'table-end'; table: string; rows: number }
  | { kind: 'end'; tables: number; rows: number };

/** A file that is not a Tierlink backup, or one that was cut short or altered. */
export class BackupFileError extends Error {
  override get name(): string {
    return 'BackupFileError';
  }
}

/**
 * The lines of a backup file, checked as they come: the header first, rows only inside a table,
 * each table's count as announced, the closing line last. Throws {@link BackupFileError} on the
 * first thing out of place.
 */
export async function* readBackup(file: string): AsyncGenerator<BackupLine> {
  const input = fs.createReadStream(file);
  const gunzip = createGunzip();
  const lines = readline.createInterface({ input: input.pipe(gunzip), crlfDelay: Infinity });
  const fail = (what: string): never => {
    throw new BackupFileError(`${file} is not a complete Tierlink backup: ${what}`);
  };
  input.on('error', (error) => gunzip.destroy(error));
  let seenHeader = false;
  let table: string | null = null;
  let count = 0;
  let tables = 0;
  let rows = 0;
  let ended = false;
  try {
    for await (const line of lines) {
      if (ended) fail('there is more after its last line');
      if (!seenHeader) {
        let header: BackupHeader;
        try {
          header = JSON.parse(line) as BackupHeader;
        } catch {
          return fail('its first line is not a backup header');
        }
        if (header?.format !== BACKUP_FORMAT) fail('its first line is not a backup header');
        if (header.formatVersion > BACKUP_FORMAT_VERSION) {
          throw new BackupFileError(
            `${file} was written by Tierlink ${header.release} in backup format ${header.formatVersion}; this Tierlink reads format ${BACKUP_FORMAT_VERSION}. Restore it with Tierlink ${header.release} or later.`,
          );
        }
        seenHeader = true;
        yield { kind: 'header', header };
        continue;
      }
      if (line.startsWith(ROW_PREFIX) && line.endsWith(ROW_SUFFIX)) {
        if (table === null) fail('a row outside any table');
        count += 1;
        yield { kind: 'row', table: table!, text: line.slice(ROW_PREFIX.length, line.length - ROW_SUFFIX.length) };
        continue;
      }
      let entry: { table?: string; columns?: TableStart['columns']; end?: string; rows?: number; tables?: number };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        return fail(`an unreadable line after ${table ?? 'the header'}`);
      }
      if (typeof entry.table === 'string' && Array.isArray(entry.columns)) {
        if (table !== null) fail(`table ${entry.table} starts inside table ${table}`);
        table = entry.table;
        count = 0;
        yield { kind: 'table', table: { table: entry.table, columns: entry.columns } };
      } else if (entry.end === 'backup' && table === null) {
        if (entry.tables !== tables || entry.rows !== rows)
          fail(`it announces ${entry.tables} tables and ${entry.rows} rows, and holds ${tables} and ${rows}`);
        ended = true;
        yield { kind: 'end', tables, rows };
      } else if (typeof entry.end === 'string' && entry.end === table) {
        if (entry.rows !== count) fail(`table ${table} announces ${entry.rows} rows and holds ${count}`);
        tables += 1;
        rows += count;
        yield { kind: 'table-end', table, rows: count };
        table = null;
      } else {
        fail(`an unexpected line in ${table ?? 'the file'}`);
      }
    }
  } catch (error) {
    if (error instanceof BackupFileError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') throw error;
    throw new BackupFileError(`${file} is not a complete Tierlink backup: ${(error as Error).message}`);
  } finally {
    lines.close();
    input.destroy();
  }
  if (!seenHeader) fail('it is empty');
  if (!ended) fail('it was cut short (its last line is missing)');
}

/** A sealed value in a row's JSON text: `"v2.<key id>.<iv>.<tag>.<body>"` or the older `"v1.<iv>.<tag>.<body>"`. */
const SEALED =
  /"(v2\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]*|v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]*)"/g;

export interface BackupInventory {
  header: BackupHeader;
  tables: Array<{ table: TableStart; rows: number }>;
  rows: number;
  /** The key ids the bound sealed values name, with how many values each. */
  keyIds: Map<string, number>;
  /** Sealed values of the older, unbound form (they name no key; a key is tried on them). */
  unboundSealed: string[];
}

/** Reads a whole backup once without loading it anywhere: its shape, and the keys its sealed values need. */
export async function inventoryBackup(file: string): Promise<BackupInventory> {
  let header: BackupHeader | null = null;
  const tables: BackupInventory['tables'] = [];
  const keyIds = new Map<string, number>();
  const unboundSealed: string[] = [];
  let total = 0;
  let current: TableStart | null = null;
  for await (const line of readBackup(file)) {
    if (line.kind === 'header') header = line.header;
    else if (line.kind === 'table') current = line.table;
    else if (line.kind === 'table-end') tables.push({ table: current!, rows: line.rows });
    else if (line.kind === 'end') total = line.rows;
    else {
      for (const [, value] of line.text.matchAll(SEALED)) {
        const id = sealedKeyId(value!);
        if (id) keyIds.set(id, (keyIds.get(id) ?? 0) + 1);
        else if (unboundSealed.length < 100) unboundSealed.push(value!);
      }
    }
  }
  return { header: header!, tables, rows: total, keyIds, unboundSealed };
}
