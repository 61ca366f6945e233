import path from 'node:path';
import type { Config } from '../../../../config';
import { DataDirLockedError } from '../data-dir-lock';
import { SECRET_KEY_FILE, readSecretKeyFile } from '../secret-key';
import { secretKeyId } from '../secret-box';
import type { SealedWith } from './backup-format';
import { removeSnapshot, snapshotStoppedDataDir } from './embedded-snapshot';
import { snapshotFromRunningService } from './running-service';
import { openPgliteSession, openPostgresSession } from './sql-session';
import { type BackupSummary, writeBackup } from './write-backup';

/** Which key sealed this install's secrets, as a backup records it (the key itself is never written). */
export function installKey(config: Pick<Config, 'secretKey' | 'databaseUrl' | 'dataDir'>): SealedWith | null {
  if (config.secretKey) return { keyId: secretKeyId(config.secretKey), source: 'SECRET_KEY' };
  if (config.databaseUrl) return null;
  const key = readSecretKeyFile(config.dataDir);
  return key ? { keyId: secretKeyId(key), source: 'DATA_DIR/secret.key', path: path.join(config.dataDir, SECRET_KEY_FILE) } : null;
}

export interface TakeBackupOptions {
  config: Pick<Config, 'secretKey' | 'databaseUrl' | 'dataDir'>;
  file: string;
  release: string;
  /** Told which way the backup went (`postgres`, `embedded, stopped`, `embedded, from the running service`). */
  onRoute?(route: 'postgres' | 'embedded-stopped' | 'embedded-running'): void;
}

/**
 * `npm run backup` of the configured database, whether Tierlink runs or not:
 * - PostgreSQL: read in one snapshot over a connection of its own (nothing waits for it);
 * - the embedded database of a stopped install: a copy of its folder taken under the data folder's
 *   lock (Tierlink cannot start during the copy, and may right after it);
 * - the embedded database of a running install: the running process copies its folder between two
 *   statements and hands the copy over (src/edges/inbound/local/snapshot-endpoint.ts).
 * The copy is read into the backup file and removed.
 */
export async function takeBackup(options: TakeBackupOptions): Promise<BackupSummary> {
  const { config, file, release } = options;
  const meta = { release, sealedWith: installKey(config) };
  if (config.databaseUrl) {
    options.onRoute?.('postgres');
    const session = await openPostgresSession(config.databaseUrl);
    try {
      return await writeBackup(session, file, meta);
    } finally {
      await session.close();
    }
  }
  let copy: string;
  try {
    copy = await snapshotStoppedDataDir(config.dataDir);
    options.onRoute?.('embedded-stopped');
  } catch (error) {
    if (!(error instanceof DataDirLockedError)) throw error;
    copy = await snapshotFromRunningService(config.dataDir, error.owner);
    options.onRoute?.('embedded-running');
  }
  try {
    const session = await openPgliteSession(copy);
    try {
      return await writeBackup(session, file, meta);
    } finally {
      await session.close();
    }
  } finally {
    removeSnapshot(copy);
  }
}
