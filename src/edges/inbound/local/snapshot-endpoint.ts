import { randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Logger } from '../../../shared/logger';
import { SNAPSHOT_ENDPOINT_FILE, type SnapshotEndpoint } from '../../../shared/snapshot-endpoint-file';

export interface SnapshotEndpointDeps {
  dataDir: string;
  /** Copies the embedded database while no statement runs; answers the copy's path. */
  snapshot(): Promise<string>;
  logger: Logger;
}

export interface RunningSnapshotEndpoint {
  port: number;
  close(): Promise<void>;
}

/**
 * The embedded database's backup door (docs/operating.md, "Backups"): `npm run backup` cannot open
 * a database folder the service holds, so it asks the service for a copy. A server of its own on
 * 127.0.0.1 and a random port, never the public one (a reverse proxy on the same machine makes
 * every public request look local); `POST /snapshot` with the token of
 * {@link SNAPSHOT_ENDPOINT_FILE} answers `{"dir": "<copy>/pglite"}`. One copy at a time.
 */
export async function startSnapshotEndpoint(deps: SnapshotEndpointDeps): Promise<RunningSnapshotEndpoint> {
  const token = randomBytes(32).toString('base64url');
  const expected = Buffer.from(`Bearer ${token}`);
  let busy = false;
  const answer = (res: http.ServerResponse, status: number, body: Record<string, unknown>) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    req.resume();
    if (req.method !== 'POST' || req.url !== '/snapshot') return answer(res, 404, { error: 'not found' });
    const given = Buffer.from(req.headers.authorization ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return answer(res, 401, { error: 'wrong token' });
    if (busy) return answer(res, 409, { error: 'another backup is copying the database; try again in a moment' });
    busy = true;
    const started = Date.now();
    deps.snapshot().then(
      (dir) => {
        busy = false;
        deps.logger.info({ ms: Date.now() - started }, 'backup: the embedded database was copied for a backup');
        answer(res, 200, { dir });
      },
      (error: unknown) => {
        busy = false;
        deps.logger.error({ err: error }, 'backup: copying the embedded database failed');
        answer(res, 500, { error: `copying the database failed: ${(error as Error).message}` });
      },
    );
  });
  server.requestTimeout = 10 * 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const file = path.join(deps.dataDir, SNAPSHOT_ENDPOINT_FILE);
  const endpoint: SnapshotEndpoint = { pid: process.pid, port, token };
  const partial = `${file}.${process.pid}`;
  fs.writeFileSync(partial, JSON.stringify(endpoint), { mode: 0o600 });
  fs.renameSync(partial, file);
  return {
    port,
    async close() {
      try {
        const written = JSON.parse(fs.readFileSync(file, 'utf8')) as SnapshotEndpoint;
        if (written.pid === process.pid && written.token === token) fs.rmSync(file, { force: true });
      } catch {
        // Already gone.
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
