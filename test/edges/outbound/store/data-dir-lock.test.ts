import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataDirLockedError, LOCK_FILE, acquireDataDirLock } from '../../../../src/edges/outbound/store/data-dir-lock';
import { openDatabase } from '../../../../src/edges/outbound/store/database';
import { silentLogger } from '../../../../src/shared/logger';

let dir: string;
let other: ChildProcess | undefined;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-lock-'));
});
afterEach(() => {
  other?.kill();
  other = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Another live process on this host, owning the lease as a running Tierlink would. */
function leaseHeldByAnotherProcess(): number {
  other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  fs.writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify({ pid: other.pid, host: os.hostname() }));
  return other.pid!;
}

test('a second process on the same DATA_DIR refuses to open the embedded database, saying why', async () => {
  const pid = leaseHeldByAnotherProcess();
  const opening = openDatabase({ engine: 'pglite', dataDir: dir, logger: silentLogger });
  await expect(opening).rejects.toBeInstanceOf(DataDirLockedError);
  await expect(opening).rejects.toThrow(`in use by another Tierlink process (pid ${pid}`);
  await expect(opening).rejects.toThrow('set DATABASE_URL');
});

test('a lease left by a process that died is taken over', () => {
  const dead = spawn(process.execPath, ['-e', '0']);
  fs.writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify({ pid: dead.pid, host: os.hostname() }));
  return new Promise<void>((resolve) => dead.on('exit', () => resolve())).then(() => {
    const lock = acquireDataDirLock(dir);
    lock.release();
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
  });
});

test('a lease from another host is respected while its heartbeat is fresh', () => {
  fs.writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify({ pid: 1, host: 'other-host' }));
  expect(() => acquireDataDirLock(dir)).toThrow(DataDirLockedError);
  const old = new Date(Date.now() - 60_000);
  fs.utimesSync(path.join(dir, LOCK_FILE), old, old);
  acquireDataDirLock(dir).release();
});

test('the embedded database persists in DATA_DIR and releases the lease on close', async () => {
  const first = await openDatabase({ engine: 'pglite', dataDir: dir, logger: silentLogger });
  await first.migrate();
  expect(JSON.parse(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid });
  await first.close();
  expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
  const second = await openDatabase({ engine: 'pglite', dataDir: dir, logger: silentLogger });
  await second.ping();
  await second.close();
  // An initdb, the migrations and a second open: about 7 s alone, five times that beside a loaded pass's other files.
}, 120_000);
