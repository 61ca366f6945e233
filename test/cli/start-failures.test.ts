import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { standInEnvironment } from '@tierlink/sandbox';
import { type DiscordSandbox, createDiscordSandbox } from '@tierlink/sandbox/discord';
import { type MembershipServiceSandbox, createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { type ServiceProcess, freePort, startServiceProcess } from '../support/service-process';
import { onPostgres } from '../support/test-database';

/**
 * The mistakes a creator makes on the first day, made on purpose with real processes (`npm start`)
 * against the stand-ins: each ends in one log line, the last, naming the variable or the portal
 * page and the fix, with the exit code docs/operating.md lists, and no stack trace unless
 * LOG_LEVEL=debug.
 */

let patreon: MembershipServiceSandbox;
let discord: DiscordSandbox;
let guildId: string;
let dataDir: string;
const children: ServiceProcess[] = [];

beforeAll(async () => {
  patreon = await createMembershipServiceSandbox();
  discord = await createDiscordSandbox({ botPublic: false });
  guildId = discord.createGuild({ name: 'Mistakes Club', ownerId: '100000000000000099' }).guildId;
  // One data folder for every start here: each process exits and frees it for the next.
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-failures-'));
});

afterAll(async () => {
  for (const c of children) c.child.kill('SIGKILL');
  await Promise.all(children.map((c) => c.exited));
  await discord.close();
  await patreon.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function start(env: Record<string, string>): ServiceProcess {
  const child = startServiceProcess(
    { ...standInEnvironment(patreon, discord, guildId), DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env },
    dataDir,
  );
  children.push(child);
  return child;
}

/** The process's exit code and its one failure line, checked to be the last line and the only one at error level or above. */
async function failure(service: ServiceProcess): Promise<{ code: number | null; line: Record<string, unknown>; output: string }> {
  const code = await service.exited;
  await new Promise((r) => setTimeout(r, 50));
  // Logged once: no other line at error level repeats it.
  const severe = service.lines.filter(
    (l) => (l.level as number) >= 50 && !/^gateway (shard closed for good|disconnected)$/.test(String(l.msg)),
  );
  expect(severe).toHaveLength(1);
  expect(service.lines.at(-1)).toBe(severe[0]);
  return { code, line: severe[0]!, output: JSON.stringify(service.lines) + service.stderr() };
}

const noStack = (output: string) => {
  expect(output).not.toMatch(/\\n\s+at /);
  expect(output).not.toContain('"stack"');
};

test('a refused DISCORD_TOKEN: exit 2, one line naming DISCORD_TOKEN and the Developer Portal page, no stack trace', async () => {
  const { code, line, output } = await failure(start({ DISCORD_TOKEN: 'not-the-bot-token' }));
  expect(code).toBe(2);
  expect(line).toMatchObject({ level: 60, exitCode: 2 });
  expect(line.msg).toBe(
    'DISCORD_TOKEN was refused by Discord (401 Unauthorized): open the Discord Developer Portal → your application → Bot, press Reset Token, and set DISCORD_TOKEN to the new token.',
  );
  noStack(output);
}, 120_000);

test('with LOG_LEVEL=debug the same line carries the error and its stack trace', async () => {
  const { code, line } = await failure(start({ DISCORD_TOKEN: 'not-the-bot-token', LOG_LEVEL: 'debug' }));
  expect(code).toBe(2);
  expect(line.msg).toMatch(/^DISCORD_TOKEN was refused/);
  expect((line.err as { stack: string }).stack).toMatch(/\n\s+at /);
}, 120_000);

test('the Server Members Intent turned off: exit 2, the line names the intent and where to turn it on; the close code is readable', async () => {
  discord.setMembersIntentEnabled(false);
  try {
    const service = start({});
    const { code, line, output } = await failure(service);
    expect(code).toBe(2);
    expect(line.msg).toBe(
      'Discord refused the gateway session: the Server Members Intent is off (close code 4014). Turn on Server Members Intent in the Discord Developer Portal → your application → Bot → Privileged Gateway Intents, then start Tierlink again.',
    );
    noStack(output);
    expect(service.lines.some((l) => l.code === 4014)).toBe(true);
  } finally {
    discord.setMembersIntentEnabled(true);
  }
}, 120_000);

test('DISCORD_APPLICATION_ID of another application: exit 2, the line names it and where to find the right one', async () => {
  const { code, line, output } = await failure(start({ DISCORD_APPLICATION_ID: '123456789012345678' }));
  expect(code).toBe(2);
  expect(line.msg).toMatch(/^Discord refused to register the slash commands \(403 Missing Access\): DISCORD_APPLICATION_ID must be/);
  expect(line.msg).toContain('General Information');
  noStack(output);
}, 120_000);

test('Discord unreachable (nothing listens at DISCORD_API_BASE_URL): exit 4 for the supervisor to retry, the errno readable', async () => {
  const closed = await freePort();
  const { code, line, output } = await failure(start({ DISCORD_API_BASE_URL: `http://127.0.0.1:${closed}/api` }));
  expect(code).toBe(4);
  expect(line.msg).toBe(
    `Discord did not answer at http://127.0.0.1:${closed}/api (ECONNREFUSED): check this machine's internet connection and DNS (and DISCORD_API_BASE_URL, if you set it); Tierlink stops so that its supervisor starts it again.`,
  );
  noStack(output);
}, 120_000);

test('a DNS name that does not resolve: the errno stays visible (ENOTFOUND, or EAI_AGAIN without a resolver), never "[redacted]"', async () => {
  const { code, line } = await failure(start({ DISCORD_API_BASE_URL: 'http://discord.tierlink-test.invalid/api' }));
  expect(code).toBe(4);
  expect(line.msg).toMatch(/^Discord did not answer at http:\/\/discord\.tierlink-test\.invalid\/api \((ENOTFOUND|EAI_AGAIN)\)/);
  expect(JSON.stringify(line)).not.toContain('[redacted]');
}, 120_000);

test('PORT in use by another program: exit 3, the line names PORT', async () => {
  const other = http.createServer((_req, res) => res.end('someone else'));
  await new Promise<void>((resolve) => other.listen(0, resolve));
  const { port } = other.address() as AddressInfo;
  try {
    const { code, line, output } = await failure(start({ PORT: String(port) }));
    expect(code).toBe(3);
    expect(line.msg).toBe(
      `PORT ${port} is in use by another program (EADDRINUSE): stop that program (another Tierlink?) or set PORT to a free port, and point your reverse proxy at it.`,
    );
    noStack(output);
  } finally {
    await new Promise((r) => other.close(r));
  }
}, 120_000);

test('PostgreSQL not answering at DATABASE_URL: exit 4, the line names DATABASE_URL with its host and port (never its password)', async () => {
  const closed = await freePort();
  const { code, line, output } = await failure(
    start({
      DATABASE_URL: `postgres://tierlink:hunter2-secret@127.0.0.1:${closed}/tierlink`,
      SECRET_KEY: 'failures-secret-key-that-is-long-enough-12',
    }),
  );
  expect(code).toBe(4);
  expect(line.msg).toBe(
    `DATABASE_URL: PostgreSQL at 127.0.0.1:${closed} does not answer (ECONNREFUSED): start PostgreSQL, or correct the host and port in DATABASE_URL; Tierlink stops so that its supervisor starts it again.`,
  );
  expect(output).not.toContain('hunter2-secret');
  noStack(output);
}, 120_000);

(onPostgres() ? describe : describe.skip)('PostgreSQL refusing', () => {
  const admin = () => new URL(process.env.DATABASE_URL!);

  test('a wrong password: exit 2, the line names DATABASE_URL and the SQLSTATE', async () => {
    const url = admin();
    url.password = 'certainly-not-the-password';
    const { code, line, output } = await failure(
      start({ DATABASE_URL: url.toString(), SECRET_KEY: 'failures-secret-key-that-is-long-enough-12' }),
    );
    expect(code).toBe(2);
    expect(line.msg).toMatch(
      /^DATABASE_URL: PostgreSQL at 127\.0\.0\.1:5432 refused the user name or password \(28P01\): correct them in DATABASE_URL/,
    );
    expect(output).not.toContain('certainly-not-the-password');
    noStack(output);
  }, 120_000);

  test('a database that does not exist: exit 2, the line says how to create it', async () => {
    const url = admin();
    url.pathname = '/tierlink_never_created';
    const { code, line } = await failure(start({ DATABASE_URL: url.toString(), SECRET_KEY: 'failures-secret-key-that-is-long-enough-12' }));
    expect(code).toBe(2);
    expect(line.msg).toBe(
      'DATABASE_URL: PostgreSQL at 127.0.0.1:5432 has no database "tierlink_never_created" (3D000): create it (createdb tierlink_never_created) or correct the name in DATABASE_URL.',
    );
  }, 120_000);
});

test('a database a newer release migrated: exit 5, the line names both releases and schema levels and changes nothing', async () => {
  // The shared data folder, migrated by the runs above; a later release's migration is added by hand.
  const { PGlite } = await import('@electric-sql/pglite');
  const client = new PGlite({ dataDir: path.join(dataDir, 'pglite') });
  await client.query(`insert into drizzle.__drizzle_migrations (hash, created_at) values ('later', 99999999999999)`);
  await client.query(`update app_state set value = '{"version":"7.0.0"}'::jsonb where key = 'release'`);
  await client.close();
  try {
    const { code, line, output } = await failure(start({}));
    expect(code).toBe(5);
    expect(line.msg).toMatch(
      /^The database is newer than this Tierlink: it is at schema level \d+, migrated by Tierlink 7\.0\.0, and Tierlink \S+ knows schema levels up to level \d+ \(/,
    );
    noStack(output);
  } finally {
    const again = new PGlite({ dataDir: path.join(dataDir, 'pglite') });
    await again.query(`delete from drizzle.__drizzle_migrations where hash = 'later'`);
    await again.close();
  }
}, 120_000);

test('refused creator tokens in the environment: one error line naming PATREON_CREATOR_ACCESS_TOKEN and the portal page; the service keeps running for /connect', async () => {
  const service = start({ PATREON_CREATOR_ACCESS_TOKEN: 'expired-access', PATREON_CREATOR_REFRESH_TOKEN: 'expired-refresh' });
  await service.running();
  const errors = service.lines.filter((l) => (l.level as number) >= 50);
  expect(errors).toHaveLength(1);
  expect(errors[0]!.msg).toMatch(
    /^connecting the creator from PATREON_CREATOR_ACCESS_TOKEN failed: PATREON_CREATOR_ACCESS_TOKEN was refused by Patreon \(401\): copy/,
  );
  expect(errors[0]!.msg).toContain("Patreon's portal → My Clients → your client");
  expect(JSON.stringify(errors)).not.toContain('"stack"');
  service.child.kill('SIGTERM');
  expect(await service.exited).toBe(0);
}, 120_000);
