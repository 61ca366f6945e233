import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { acquireDataDirLock } from '../data-dir-lock';

/**
 * A point-in-time copy of the embedded database's folder (`DATA_DIR/pglite`), for a backup to read
 * at leisure: the running service copies it while no statement runs (src/edges/outbound/store/database.ts,
 * `snapshot`), a stopped install while holding the data folder's lock. The copy is what a crash at
 * that moment would have left on disk; PGlite opens it as PostgreSQL recovers from a crash (every
 * committed transaction is in its write-ahead log, an unfinished one is rolled back). Copies live
 * in `DATA_DIR/snapshots/` (same disk, same owner) and are removed by whoever reads them; one left
 * by a backup that died is removed an hour later.
 */

export const SNAPSHOTS_DIR = 'snapshots';
const STALE_MS = 60 * 60_000;

/** A new folder for one copy, after removing copies an interrupted backup left behind. */
export function newSnapshotDir(dataDir: string, now: number = Date.now()): string {
  const root = path.join(dataDir, SNAPSHOTS_DIR);
  fs.mkdirSync(root, { recursive: true, mode: 0o700 });
  for (const name of fs.readdirSync(root)) {
    const dir = path.join(root, name);
    try {
      if (now - fs.statSync(dir).mtimeMs > STALE_MS) fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // Another backup removed it first.
    }
  }
  const dir = path.join(root, `${new Date(now).toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}`);
  fs.mkdirSync(dir, { mode: 0o700 });
  return dir;
}

/** Copies the database folder `from` into `into` (the caller keeps every writer out meanwhile). */
export async function copyDatabaseFolder(from: string, into: string): Promise<void> {
  await fs.promises.cp(from, into, { recursive: true, errorOnExist: true, force: false });
}

/**
 * A copy of a stopped install's embedded database, taken under the data folder's lock (so the
 * service cannot start halfway through it); the lock is released as soon as the copy is made.
 * Throws DataDirLockedError when a Tierlink process holds the folder: ask that process instead.
 */
export async function snapshotStoppedDataDir(dataDir: string): Promise<string> {
  const lock = acquireDataDirLock(dataDir);
  try {
    const source = path.join(dataDir, 'pglite');
    if (!fs.existsSync(source)) throw new Error(`there is no embedded database in DATA_DIR ${dataDir} (no pglite folder)`);
    const into = path.join(newSnapshotDir(dataDir), 'pglite');
    await copyDatabaseFolder(source, into);
    return into;
  } finally {
    lock.release();
  }
}

/** Removes a copy made by {@link snapshotStoppedDataDir} or the running service's `snapshot`. */
export function removeSnapshot(pgliteCopy: string): void {
  fs.rmSync(path.dirname(pgliteCopy), { recursive: true, force: true });
}
