import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type DiscordSandbox, createDiscordSandbox } from '@tierlink/sandbox/discord';
import { type MembershipServiceSandbox, createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { packageRoot } from '../../src/edges/outbound/store/package-root';
import { standInEnvironment } from '@tierlink/sandbox';

const main = path.join(packageRoot(), 'dist/src/cli/start.js');

let patreon: MembershipServiceSandbox;
let discord: DiscordSandbox;
let dataDir: string;
let env: Record<string, string>;
const children: ChildProcessWithoutNullStreams[] = [];

beforeAll(async () => {
  patreon = await createMembershipServiceSandbox();
  discord = await createDiscordSandbox();
  const { guildId } = discord.createGuild({ name: 'Process Club' });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-process-'));
  env = {
    PATH: process.env.PATH ?? '',
    ...standInEnvironment(patreon, discord, guildId),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
  };
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await discord.close();
  await patreon.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** `npm start` as a real process: its JSON log lines, and its exit. */
function startService() {
  const child = spawn(process.execPath, ['--max-old-space-size=256', main], { cwd: dataDir, env });
  children.push(child);
  const lines: Array<Record<string, unknown>> = [];
  let stderr = '';
  const waiters: Array<{ test: (l: Record<string, unknown>) => boolean; resolve: () => void }> = [];
  let buffer = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    for (const part of parts) {
      if (!part.trim()) continue;
      const line = JSON.parse(part) as Record<string, unknown>;
      lines.push(line);
      for (const w of [...waiters]) if (w.test(line)) w.resolve();
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const logged = (msg: string) =>
    lines.some((l) => l.msg === msg)
      ? Promise.resolve()
      : new Promise<void>((resolve) => waiters.push({ test: (l) => l.msg === msg, resolve }));
  return { child, lines, exited, logged, stderr: () => stderr };
}

test('SIGTERM stops the running service gracefully: it stops taking requests, closes the gateway and the database, exits 0', async () => {
  const service = startService();
  await service.logged('Tierlink is running');
  const url = service.lines.find((l) => l.msg === 'Tierlink is running')!.url as string;
  expect((await fetch(`${url}/healthz`)).status).toBe(200);
  expect(discord.requests().some((r) => r.route.startsWith('PUT /applications'))).toBe(true);

  service.child.kill('SIGTERM');
  expect(await service.exited).toBe(0);
  const messages = service.lines.map((l) => l.msg);
  expect(messages).toContain('shutting down');
  expect(messages.at(-1)).toBe('stopped');
  await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  // The embedded database's lease is released: the next start may open it.
  expect(fs.existsSync(path.join(dataDir, 'tierlink.lock'))).toBe(false);
}, 60_000);

test('a second process on the same DATA_DIR refuses to start with a clear message, and the first keeps running', async () => {
  const first = startService();
  await first.logged('Tierlink is running');
  const second = startService();
  expect(await second.exited).toBe(3);
  // One line, the last of its log, without a stack trace.
  const fatal = second.lines.filter((l) => (l.level as number) >= 50);
  expect(fatal).toEqual([second.lines.at(-1)]);
  expect(fatal[0]).toMatchObject({ level: 60, exitCode: 3 });
  expect(fatal[0]!.msg).toMatch(
    /^DATA_DIR .* is in use by another Tierlink process \(pid \d+ on .*\)\. The embedded database allows one process at a time/,
  );
  expect(JSON.stringify(second.lines)).not.toMatch(/\\n\s+at /);
  expect(second.stderr()).toBe('');

  first.child.kill('SIGINT');
  expect(await first.exited).toBe(0);
  expect(first.lines.map((l) => l.msg).at(-1)).toBe('stopped');
}, 60_000);
