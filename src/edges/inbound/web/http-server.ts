import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';
import { within } from '../../../shared/within';

export interface HttpServer {
  port: number;
  /** Stops taking connections; waits up to `graceMs` for requests in flight, then cuts what is left. */
  close(graceMs: number): Promise<void>;
}

/**
 * What one client may hold of the server: a slow or idle client cannot keep sockets and memory
 * (slowloris), and a flood of connections cannot exhaust file descriptors.
 */
export interface HttpLimits {
  /** Time to receive a request's headers. */
  headersTimeoutMs: number;
  /** Time to receive a whole request, body included (the largest is a 1 MiB webhook delivery). */
  requestTimeoutMs: number;
  /** How long an idle kept-alive connection stays open. */
  keepAliveTimeoutMs: number;
  /** A socket with no activity for this long is closed. */
  socketIdleTimeoutMs: number;
  /** Connections open at once; more are refused by the kernel backlog and then dropped. */
  maxConnections: number;
  /** Headers per request. */
  maxHeadersCount: number;
  /** Requests served on one kept-alive connection before it is closed. */
  maxRequestsPerSocket: number;
  /** How often the two request timeouts are checked (Node's default, 30 s, would let them run late). */
  checkIntervalMs: number;
}

export const HTTP_LIMITS: HttpLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  socketIdleTimeoutMs: 60_000,
  maxConnections: 1_024,
  maxHeadersCount: 100,
  maxRequestsPerSocket: 1_000,
  checkIntervalMs: 1_000,
};

/** Listens on `port` (0: a free one) with {@link HTTP_LIMITS} (or `limits` in their place). */
export async function listen(app: RequestListener, port: number, limits: Partial<HttpLimits> = {}): Promise<HttpServer> {
  const l = { ...HTTP_LIMITS, ...limits };
  const server = http.createServer(
    {
      headersTimeout: l.headersTimeoutMs,
      requestTimeout: l.requestTimeoutMs,
      keepAliveTimeout: l.keepAliveTimeoutMs,
      connectionsCheckingInterval: l.checkIntervalMs,
    },
    app,
  );
  server.maxConnections = l.maxConnections;
  server.maxHeadersCount = l.maxHeadersCount;
  server.maxRequestsPerSocket = l.maxRequestsPerSocket;
  server.setTimeout(l.socketIdleTimeoutMs);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    async close(graceMs) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await within(closed, graceMs, () => undefined);
      server.closeAllConnections();
    },
  };
}
