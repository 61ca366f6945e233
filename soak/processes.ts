import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { packageRoot } from '../src/edges/outbound/store/package-root';

/**
 * The moving parts of the soak (soak/run.ts) that are not Tierlink: its processes as an operator
 * runs them (`npm start`), a round-robin balancer in front of them, and a TCP proxy in front of
 * PostgreSQL whose link the soak cuts (never the database server itself, which others share).
 */

const START = path.join(packageRoot(), 'dist/src/cli/start.js');

type LogLine = Record<string, unknown>;

export interface Instance {
  name: string;
  child: ChildProcessWithoutNullStreams;
  /** Its own address, once it logged 'web server listening'. */
  url: string;
  lines: LogLine[];
  exited: Promise<number | null>;
  alive(): boolean;
  /** Resolves at the first log line (past or future) `test` accepts. */
  logged(test: (line: LogLine) => boolean, timeoutMs: number): Promise<LogLine>;
}

export function startInstance(name: string, env: Record<string, string>, cwd: string): Instance {
  const child = spawn(process.execPath, ['--max-old-space-size=256', START], { cwd, env: { PATH: process.env.PATH ?? '', ...env } });
  const lines: LogLine[] = [];
  const waiters: Array<{ test: (l: LogLine) => boolean; resolve: (l: LogLine) => void }> = [];
  let buffer = '';
  let exitCode: number | null | undefined;
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    for (const part of parts) {
      if (!part.trim()) continue;
      let line: LogLine;
      try {
        line = JSON.parse(part) as LogLine;
      } catch {
        continue;
      }
      // Only what the soak reads is kept: a ten-minute debug log of two processes is large.
      if (line.level !== undefined && Number(line.level) < 30 && line.msg !== 'web server listening') continue;
      lines.push(line);
      if (line.msg === 'web server listening') instance.url = `http://127.0.0.1:${String(line.port)}`;
      for (const w of [...waiters]) {
        if (w.test(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  });
  child.stderr.on('data', () => undefined);
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      exitCode = code;
      resolve(code);
    }),
  );
  const instance: Instance = {
    name,
    child,
    url: '',
    lines,
    exited,
    alive: () => exitCode === undefined,
    logged(test, timeoutMs) {
      const found = lines.find(test);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${name}: no such log line within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          test,
          resolve: (l) => {
            clearTimeout(timer);
            resolve(l);
          },
        });
      });
    },
  };
  return instance;
}

export interface Balancer {
  url: string;
  targets: string[];
  close(): Promise<void>;
}

/** Round-robin over the live targets; a target that does not answer is skipped for the next one, as a balancer's health check would. */
export async function startBalancer(): Promise<Balancer> {
  let next = 0;
  const balancer: Balancer = { url: '', targets: [], close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const attempt = (tries: number): void => {
        const live = balancer.targets;
        if (live.length === 0 || tries >= Math.max(1, live.length)) {
          if (!res.headersSent) res.writeHead(502);
          res.end();
          return;
        }
        const target = new URL(live[next++ % live.length]!);
        const upstream = http.request(
          { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        upstream.on('error', () => attempt(tries + 1));
        upstream.end(body);
      };
      attempt(0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  balancer.url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  balancer.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return balancer;
}

export interface TcpProxy {
  port: number;
  /** Drops every connection and refuses new ones until {@link TcpProxy.restore}. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let down = false;
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    open.add(client);
    open.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const cut = () => {
    down = true;
    for (const socket of open) socket.destroy();
    open.clear();
  };
  return {
    port: (server.address() as net.AddressInfo).port,
    cut,
    restore() {
      down = false;
    },
    async close() {
      cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A GET that keeps cookies between calls, as one browser does. */
export class CookieBrowser {
  private readonly jar = new Map<string, string>();

  async get(url: string): Promise<{ status: number; location: string | null; text: string }> {
    const cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const set of res.headers.getSetCookie()) {
      const [pair = ''] = set.split(';');
      const at = pair.indexOf('=');
      if (at > 0) this.jar.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
    return { status: res.status, location: res.headers.get('location'), text: await res.text() };
  }
}
