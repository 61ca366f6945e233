import fs from 'node:fs';
import path from 'node:path';
import { SNAPSHOT_ENDPOINT_FILE, type SnapshotEndpoint } from '../../../../shared/snapshot-endpoint-file';

/** The running service could not be asked for a copy of its database. */
export class RunningServiceError extends Error {
  override get name(): string {
    return 'RunningServiceError';
  }
}

/**
 * Asks the Tierlink process holding `dataDir` (pid `owner`) for a copy of its embedded database
 * (src/edges/inbound/local/snapshot-endpoint.ts); answers the copy's `pglite` folder, which the
 * caller reads and removes.
 */
export async function snapshotFromRunningService(dataDir: string, owner: { pid: number; host: string }): Promise<string> {
  const file = path.join(dataDir, SNAPSHOT_ENDPOINT_FILE);
  let endpoint: SnapshotEndpoint;
  try {
    endpoint = JSON.parse(fs.readFileSync(file, 'utf8')) as SnapshotEndpoint;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new RunningServiceError(
      code === 'EACCES'
        ? `Tierlink (pid ${owner.pid}) is running on DATA_DIR ${dataDir}, and ${file} is readable only by the user Tierlink runs as: run the backup as that user (e.g. sudo -u tierlink, or docker compose exec tierlink).`
        : `Tierlink (pid ${owner.pid} on ${owner.host}) holds DATA_DIR ${dataDir} but offers no backup endpoint (${file} is missing): it is still starting, or it is a release without online backups, or it runs on another machine. Try again in a moment, or stop it and run the backup again.`,
    );
  }
  if (endpoint.pid !== owner.pid) {
    throw new RunningServiceError(
      `Tierlink (pid ${owner.pid}) holds DATA_DIR ${dataDir}, but ${file} was left by another process (pid ${endpoint.pid}): the service is still starting; try again in a moment.`,
    );
  }
  let response: Response;
  try {
    response = await fetch(`http://127.0.0.1:${endpoint.port}/snapshot`, {
      method: 'POST',
      headers: { authorization: `Bearer ${endpoint.token}` },
      signal: AbortSignal.timeout(10 * 60_000),
    });
  } catch (error) {
    throw new RunningServiceError(
      `Tierlink (pid ${owner.pid}) did not answer on 127.0.0.1:${endpoint.port} (${((error as Error).cause as NodeJS.ErrnoException | undefined)?.code ?? (error as Error).message}): run the backup on the machine (or in the container) Tierlink runs in.`,
    );
  }
  const body = (await response.json().catch(() => ({}))) as { dir?: string; error?: string };
  if (!response.ok || typeof body.dir !== 'string') {
    throw new RunningServiceError(`Tierlink (pid ${owner.pid}) could not copy its database: ${body.error ?? `HTTP ${response.status}`}`);
  }
  return body.dir;
}
