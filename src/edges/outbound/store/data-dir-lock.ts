import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * PGlite is one process's database: two processes opening the same directory both succeed and
 * corrupt it (docs/tech-facts.md §5). This lease file makes the second process refuse to start.
 *
 * The file holds the owner's host and pid and is touched every {@link HEARTBEAT_MS}. A lease is
 * stale when its owner is gone: same host and the pid is dead, or (another host, e.g. a replaced
 * container on a shared volume) no heartbeat for {@link STALE_MS}.
 */
export const LOCK_FILE = 'tierlink.lock';
const HEARTBEAT_MS = 10_000;
const STALE_MS = 30_000;

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly owner: { pid: number; host: string },
  ) {
    super(
      `DATA_DIR ${dataDir} is in use by another Tierlink process (pid ${owner.pid} on ${owner.host}). ` +
        'The embedded database allows one process at a time: stop the other process, ' +
        'or set DATABASE_URL to run several instances on PostgreSQL.',
    );
  }

  override get name(): string {
    return 'DataDirLockedError';
  }
}

export interface DataDirLock {
  release(): void;
}

interface LeaseOwner {
  pid: number;
  host: string;
}

function readOwner(file: string): { owner: LeaseOwner; ageMs: number } | null {
  try {
    const owner = JSON.parse(fs.readFileSync(file, 'utf8')) as LeaseOwner;
    const ageMs = Date.now() - fs.statSync(file).mtimeMs;
    if (typeof owner.pid !== 'number' || typeof owner.host !== 'string') return null;
    return { owner, ageMs };
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isHeld(lease: { owner: LeaseOwner; ageMs: number }): boolean {
  const host = os.hostname();
  if (lease.owner.host === host) return lease.owner.pid !== process.pid && isAlive(lease.owner.pid);
  return lease.ageMs < STALE_MS;
}

export function acquireDataDirLock(dataDir: string): DataDirLock {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE);
  const me: LeaseOwner = { pid: process.pid, host: os.hostname() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify(me), { flag: 'wx', mode: 0o600 });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const lease = readOwner(file);
      if (lease && isHeld(lease)) throw new DataDirLockedError(dataDir, lease.owner);
      fs.rmSync(file, { force: true });
      if (attempt === 1) throw new DataDirLockedError(dataDir, lease?.owner ?? { pid: -1, host: 'unknown' });
    }
  }
  const heartbeat = setInterval(() => {
    const now = new Date();
    try {
      fs.utimesSync(file, now, now);
    } catch {
      // The directory went away; nothing left to protect.
    }
  }, HEARTBEAT_MS);
  heartbeat.unref();
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      clearInterval(heartbeat);
      const lease = readOwner(file);
      if (lease && lease.owner.pid === me.pid && lease.owner.host === me.host) fs.rmSync(file, { force: true });
    },
  };
}
