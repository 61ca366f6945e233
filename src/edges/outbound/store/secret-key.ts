import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const SECRET_KEY_FILE = 'secret.key';

/**
 * SECRET_KEY when configured; otherwise (embedded database only, see docs/contract.md) the key in
 * `DATA_DIR/secret.key`, generated on first start with mode 0600. Losing the file makes the stored
 * creator tokens and webhook secrets unreadable: back it up with the database.
 */
export function loadOrCreateSecretKey(configured: string | undefined, dataDir: string): string {
  if (configured) return configured;
  const file = path.join(dataDir, SECRET_KEY_FILE);
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = randomBytes(32).toString('base64url');
  try {
    fs.writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (error) {
    // Another start won the race to create it: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return fs.readFileSync(file, 'utf8').trim();
    throw error;
  }
}

/** The key file of an embedded install (DATA_DIR/secret.key), when there is one; never creates it. */
export function readSecretKeyFile(dataDir: string): string | null {
  try {
    return fs.readFileSync(path.join(dataDir, SECRET_KEY_FILE), 'utf8').trim() || null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
