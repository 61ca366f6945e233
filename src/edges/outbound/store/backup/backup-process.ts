import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../../../config';
import { packageRoot } from '../package-root';

/**
 * A scheduled backup, run as `npm run backup` in a process of its own: the backup of the embedded
 * database opens a copy of it with a second PGlite, whose memory (the size of the database) and
 * CPU then stay out of the service; the child asks this process for the copy like any backup
 * would (src/edges/inbound/local/snapshot-endpoint.ts). The child gets the database settings of
 * this process's configuration. Rejects with the child's own failure line.
 */
export function runBackupProcess(config: Pick<Config, 'databaseUrl' | 'dataDir' | 'secretKey'>, options: { timeoutMs?: number } = {}) {
  return (file: string, signal?: AbortSignal): Promise<{ bytes: number }> =>
    new Promise((resolve, reject) => {
      const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: config.dataDir, LOG_LEVEL: 'warn' };
      if (config.databaseUrl) env.DATABASE_URL = config.databaseUrl;
      if (config.secretKey) env.SECRET_KEY = config.secretKey;
      const child = spawn(process.execPath, [path.join(packageRoot(), 'dist/src/cli/backup.js'), '--out', file], {
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
        timeout: options.timeoutMs ?? 30 * 60_000,
        ...(signal ? { signal } : {}),
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        if (stderr.length < 16_384) stderr += chunk.toString('utf8');
      });
      child.on('error', (error) => {
        // Aborted (the service stops): settled when the child has exited ('close'), so its half-written file goes.
        if (signal?.aborted) return;
        reject(error);
      });
      child.on('close', (code, exitSignal) => {
        // A finished backup counts even when the service is stopping; one that did not finish leaves no file behind.
        if (code === 0) {
          fs.promises.stat(file).then((s) => resolve({ bytes: s.size }), reject);
          return;
        }
        fs.rmSync(`${file}.partial`, { force: true });
        if (signal?.aborted) {
          reject(new Error('the backup was stopped with the service'));
          return;
        }
        const last = stderr.trim().split('\n').at(-1) ?? '';
        let message = last;
        try {
          message = String((JSON.parse(last) as { msg?: unknown }).msg ?? last);
        } catch {
          // Not a log line: the text as it is.
        }
        reject(new Error(message || `npm run backup ended with ${exitSignal ?? `exit code ${code}`}`));
      });
    });
}

/** The files of a backups folder (created with its parents when missing, readable by its owner only). */
export function backupFolder(dir: string) {
  return {
    async list(): Promise<string[]> {
      await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
      return fs.promises.readdir(dir);
    },
    remove: (name: string) => fs.promises.rm(path.join(dir, name), { force: true }),
    path: (name: string) => path.join(dir, name),
  };
}
