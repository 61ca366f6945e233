import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { packageRoot } from '../../src/edges/outbound/store/package-root';

/** `npm start` (the built dist/src/cli/start.js) as a real process: its JSON log, its output size and its exit. */
export interface ServiceProcess {
  child: ChildProcessWithoutNullStreams;
  /** Parsed log lines so far. */
  lines: Array<Record<string, unknown>>;
  /** Bytes written to stdout and stderr so far. */
  outputBytes(): number;
  stderr(): string;
  exited: Promise<number | null>;
  /** Resolves at the first log line (past or future) `test` accepts. */
  logged(test: string | ((line: Record<string, unknown>) => boolean), timeoutMs?: number): Promise<Record<string, unknown>>;
  /** The service's URL once it logged "Tierlink is running". */
  running(timeoutMs?: number): Promise<string>;
  /** Resident memory of the process (Linux: /proc/<pid>/status VmRSS), in bytes. */
  rss(): number;
}

export const START_SCRIPT = path.join(packageRoot(), 'dist/src/cli/start.js');

export function startServiceProcess(env: Record<string, string>, cwd: string): ServiceProcess {
  const child = spawn(process.execPath, ['--max-old-space-size=256', START_SCRIPT], { cwd, env: { PATH: process.env.PATH ?? '', ...env } });
  const lines: Array<Record<string, unknown>> = [];
  let bytes = 0;
  let stderr = '';
  let buffer = '';
  const waiters: Array<{ test: (l: Record<string, unknown>) => boolean; resolve(l: Record<string, unknown>): void }> = [];
  child.stdout.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    buffer += chunk.toString();
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    for (const part of parts) {
      if (!part.trim()) continue;
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(part) as Record<string, unknown>;
      } catch {
        line = { msg: part };
      }
      lines.push(line);
      for (const w of [...waiters]) {
        if (w.test(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  });
  child.stderr.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const logged: ServiceProcess['logged'] = (test, timeoutMs = 90_000) => {
    const match = typeof test === 'string' ? (l: Record<string, unknown>) => l.msg === test : test;
    const seen = lines.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no such log line within ${timeoutMs} ms; stderr: ${stderr.slice(0, 2000)}`)),
        timeoutMs,
      );
      waiters.push({
        test: match,
        resolve: (l) => {
          clearTimeout(timer);
          resolve(l);
        },
      });
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`the service exited (${code}) before the log line; stderr: ${stderr.slice(0, 2000)}`));
      });
    });
  };
  return {
    child,
    lines,
    outputBytes: () => bytes,
    stderr: () => stderr,
    exited,
    logged,
    running: async (timeoutMs) => String((await logged('Tierlink is running', timeoutMs)).url),
    rss() {
      const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
      return kb * 1024;
    },
  };
}

/** A port free right now (for a service that must keep its address across restarts). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
