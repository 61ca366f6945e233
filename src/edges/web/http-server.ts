import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';

export interface HttpServer {
  port: number;
  /** Stops taking connections; waits up to `graceMs` for requests in flight, then cuts what is left. */
  close(graceMs: number): Promise<void>;
}

/** Listens on `port` (0: a free one). */
export async function listen(app: RequestListener, port: number): Promise<HttpServer> {
  const server = http.createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    async close(graceMs) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await Promise.race([closed, new Promise((r) => setTimeout(r, graceMs).unref())]);
      server.closeAllConnections();
    },
  };
}
