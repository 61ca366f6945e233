import net from 'node:net';
import { HTTP_LIMITS, listen } from '../../../../src/edges/inbound/web/http-server';
import { pendingTimers, timersStartedBy } from '../../../support/started-timers';

/** The server's own limits: a slow client or a crowd of connections cannot hold it (a real server, raw sockets). */

const hello = (_req: unknown, res: { end(body: string): void }) => res.end('hello');

function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

const closed = (socket: net.Socket) =>
  new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

test('the defaults bound headers, requests, idle sockets and connections', () => {
  expect(HTTP_LIMITS).toMatchObject({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxConnections: 1_024, maxHeadersCount: 100 });
});

test('a client that never finishes its headers is answered 408 and disconnected (slowloris)', async () => {
  const server = await listen(hello as never, 0, { headersTimeoutMs: 300, requestTimeoutMs: 600, checkIntervalMs: 100 });
  try {
    const socket = await connect(server.port);
    let answer = '';
    socket.on('data', (c: Buffer) => (answer += c.toString()));
    socket.write('GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    await closed(socket);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  } finally {
    await server.close(100);
  }
});

test('connections past the cap are dropped at once; the ones inside it are served', async () => {
  const server = await listen(hello as never, 0, { maxConnections: 2 });
  const sockets: net.Socket[] = [];
  try {
    for (let i = 0; i < 2; i++) sockets.push(await connect(server.port));
    await new Promise((r) => setTimeout(r, 50));
    const third = await connect(server.port);
    sockets.push(third);
    await closed(third);
    let answer = '';
    sockets[0]!.on('data', (c: Buffer) => (answer += c.toString()));
    sockets[0]!.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await closed(sockets[0]!);
    expect(answer).toMatch(/^HTTP\/1\.1 200[\s\S]*hello$/);
  } finally {
    for (const s of sockets) s.destroy();
    await server.close(100);
  }
});

test('a closed server leaves no timer behind, its grace period included', async () => {
  const timers = await timersStartedBy(async () => {
    const server = await listen(hello as never, 0);
    await server.close(5_000);
  });
  expect(pendingTimers(timers)).toEqual([]);
});
