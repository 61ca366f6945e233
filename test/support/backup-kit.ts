import { createHash } from 'node:crypto';
import { Blob } from 'node:buffer';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { MIGRATIONS_FOLDER, PGLITE_CONF } from '../../src/edges/outbound/store/database';
import { releaseFixtureSql } from './release-fixture';
import { createScratchPostgres } from '../../bench/scratch-database';
import { PROCESS_TABLES } from '../../src/edges/outbound/store/backup/backup-format';
import { ident, readTables } from '../../src/edges/outbound/store/backup/catalog';
import { type SqlSession, openPgliteSession, openPostgresSession } from '../../src/edges/outbound/store/backup/sql-session';

/**
 * An embedded database folder made once and kept as a tarball in the system's temporary folder
 * (named by what made it): an initdb on disk costs seconds, unpacking one about a second.
 */
async function pgliteTemplate(name: string, fill: (client: PGlite) => Promise<void>): Promise<Blob> {
  const hash = createHash('sha256').update(JSON.stringify(PGLITE_CONF)).update(name);
  if (name !== 'blank') hash.update(releaseFixtureSql());
  const file = path.join(os.tmpdir(), `tierlink-backup-template-${name}-${hash.digest('hex').slice(0, 12)}.tar`);
  if (!fs.existsSync(file)) {
    const client = new PGlite({ postgresqlconf: PGLITE_CONF });
    await client.waitReady;
    await fill(client);
    const dump = await client.dumpDataDir('none');
    await client.close();
    const partial = `${file}.${process.pid}.partial`;
    fs.writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    fs.renameSync(partial, file);
  }
  return new Blob([fs.readFileSync(file)]);
}

/** Writes a template into a new database folder. */
async function unpackPglite(dir: string, template: Blob): Promise<void> {
  const client = new PGlite({ dataDir: dir, loadDataDir: template, postgresqlconf: PGLITE_CONF });
  await client.waitReady;
  await client.close();
}

/** A database of its own for one test, opened as a backup or a restore opens one: PGlite in a temporary folder, or a new PostgreSQL database. */
export interface ScratchSession {
  session: SqlSession;
  /** PostgreSQL: its address. */
  url?: string;
  /** PGlite: the folder holding `pglite/` (a DATA_DIR). */
  dataDir?: string;
  close(): Promise<void>;
}

export async function scratchSession(engine: 'pglite' | 'postgres'): Promise<ScratchSession> {
  if (engine === 'postgres') {
    const scratch = await createScratchPostgres(process.env.DATABASE_URL!, 'tierlink_backup');
    const session = await openPostgresSession(scratch.url);
    return {
      session,
      url: scratch.url,
      close: async () => {
        await session.close().catch(() => undefined);
        await scratch.drop();
      },
    };
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-backup-'));
  await unpackPglite(path.join(dataDir, 'pglite'), await pgliteTemplate('blank', async () => undefined));
  const session = await openPgliteSession(path.join(dataDir, 'pglite'));
  return {
    session,
    dataDir,
    close: async () => {
      await session.close().catch(() => undefined);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Every row of every table a backup carries, as the database writes it, sorted: two databases hold the same data when these are equal. */
export async function contents(session: SqlSession): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of await readTables(session.query)) {
    if (PROCESS_TABLES.includes(table.name)) continue;
    const rows = await session.query<{ r: string }>(`select to_jsonb(t)::text as r from ${ident(table.name)} t`);
    out[table.name] = rows.map((r) => r.r).sort();
  }
  return out;
}

/** A backup file's lines, to alter one for a test. */
export function backupLines(file: string): string[] {
  return gunzipSync(fs.readFileSync(file)).toString('utf8').split('\n').filter(Boolean);
}

export function writeBackupLines(file: string, lines: string[]): void {
  fs.writeFileSync(file, gzipSync(`${lines.join('\n')}\n`));
}

/**
 * A database holding release 0.1.0's data (test/fixtures/release-0.1.0) migrated to this code's
 * head, opened as a backup opens one.
 */
export async function fixtureSession(engine: 'pglite' | 'postgres', options: { migrate?: boolean } = {}): Promise<ScratchSession> {
  const script = releaseFixtureSql();
  let scratch: ScratchSession;
  if (engine === 'postgres') {
    scratch = await scratchSession('postgres');
    await scratch.session.query(script);
    // pg_dump emptied search_path for its session: start a fresh one.
    await scratch.session.close();
    const reopened = await openPostgresSession(scratch.url!);
    scratch = { ...scratch, session: reopened };
  } else {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-backup-'));
    await unpackPglite(
      path.join(dataDir, 'pglite'),
      await pgliteTemplate('release-0.1.0', (loader) => loader.exec(script).then(() => undefined)),
    );
    const session = await openPgliteSession(path.join(dataDir, 'pglite'));
    scratch = {
      session,
      dataDir,
      close: async () => {
        await session.close().catch(() => undefined);
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  if (options.migrate !== false) await scratch.session.migrate(MIGRATIONS_FOLDER);
  return scratch;
}
