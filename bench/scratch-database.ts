import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { type Database, openDatabase } from '../src/edges/outbound/store/database';
import { silentLogger } from '../src/shared/logger';

/** A PostgreSQL database created for one run on a server whose user may create databases. */
export interface ScratchPostgres {
  url: string;
  drop(): Promise<void>;
}

export async function createScratchPostgres(adminUrl: string, prefix = 'tierlink_scratch'): Promise<ScratchPostgres> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export interface ScratchDatabase {
  database: Database;
  label: 'PGlite' | 'PostgreSQL';
  close(): Promise<void>;
}

/**
 * A fresh, migrated database for one benchmark: PGlite on disk in a temporary folder (the
 * production default), or with `postgresUrl` a database created on that server and dropped after.
 */
export async function openScratchDatabase(postgresUrl?: string): Promise<ScratchDatabase> {
  if (!postgresUrl) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-bench-'));
    const database = await openDatabase({ engine: 'pglite', dataDir: dir, logger: silentLogger });
    await database.migrate();
    return {
      database,
      label: 'PGlite',
      close: async () => {
        await database.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const scratch = await createScratchPostgres(postgresUrl, 'tierlink_bench');
  const database = await openDatabase({ engine: 'postgres', url: scratch.url, logger: silentLogger, poolSize: 10 });
  await database.migrate();
  return {
    database,
    label: 'PostgreSQL',
    close: async () => {
      await database.close();
      await scratch.drop();
    },
  };
}
