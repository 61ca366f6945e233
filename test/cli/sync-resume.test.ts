import { spawn } from 'node:child_process';
import path from 'node:path';
import type { SyncReport } from '../../src/core/sync-report';
import { packageRoot } from '../../src/edges/outbound/store/package-root';
import { type E2E, startE2E } from '../support/e2e';

/**
 * A long sync killed mid-apply and started again (docs/decisions.md §20): `npm run sync` as a real
 * process against the stand-ins, Discord's member-role bucket made small (2 per second, the same
 * fixed window as Discord's 10 per 10 s, only shorter), SIGKILLed after some role requests, then run
 * again. The second process takes the stopped run over and sends no change the first one applied:
 * every role is given by exactly one request. On PGlite in DATA_DIR and on PostgreSQL.
 */
const syncCli = path.join(packageRoot(), 'dist/src/cli/sync.js');
const PATRONS = 12;

let e: E2E;
beforeAll(async () => {
  e = await startE2E({ creatorTokensInEnv: true, ownDatabase: true });
  await e.tierlink.stop();
}, 60_000);
afterAll(() => e?.stop());

function startSync() {
  const child = spawn(process.execPath, ['--max-old-space-size=256', syncCli, '--json'], {
    env: { PATH: process.env.PATH ?? '', ...e.env, LOG_LEVEL: 'warn' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => ({ stdout, stderr }) };
}

const grants = () =>
  e.discord.requests().filter((r) => r.method === 'PUT' && r.route.endsWith('/roles/:r') && r.status >= 200 && r.status < 300);

test('a sync SIGKILLed mid-apply is taken over by the next process, which sends none of the changes already applied', async () => {
  const patrons = Array.from({ length: PATRONS }, (_, i) => {
    const member = e.discord.addMember(e.guildId, { username: `resume${i}` });
    const user = e.patreon.createUser({ fullName: `Resume ${i}`, discordUserId: member.userId });
    e.patreon.setMembership(
      user.id,
      e.patreon.campaignId,
      { patronStatus: 'active_patron', tierIds: [e.tiers.gold], lastChargeDate: e.clock.now(), lastChargeStatus: 'Paid' },
      { deliver: false },
    );
    return member.userId;
  });
  e.discord.setRateLimit({
    route: 'member-role',
    limit: 2,
    windowMs: 1000,
    raised: 'two grants a second keep the run going long enough to kill it, and short',
  });
  e.discord.resetRequests();

  const first = startSync();
  const deadline = Date.now() + 60_000;
  while (grants().length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  first.child.kill('SIGKILL');
  expect(await first.exited).toBeNull();
  const appliedByFirst = new Set(grants().map((r) => r.path));
  expect(appliedByFirst.size).toBeGreaterThanOrEqual(4);
  expect(appliedByFirst.size).toBeLessThan(PATRONS);

  const second = startSync();
  expect(await second.exited).toBe(0);
  const report = JSON.parse(second.output().stdout) as SyncReport;
  const guild = report.guilds[0]!;
  expect(report.status).toBe('ok');
  // The stopped run is taken over, and only what it had not applied is planned.
  expect(guild.resumed).toMatchObject({ runId: expect.any(Number) });
  expect(guild.planned.adds).toBe(PATRONS - appliedByFirst.size);
  expect(guild.applied.adds).toBe(PATRONS - appliedByFirst.size);

  // Every role given by exactly one request across both processes.
  const paths = grants().map((r) => r.path);
  expect(new Set(paths).size).toBe(paths.length);
  expect(paths).toHaveLength(PATRONS);
  for (const userId of patrons) expect(e.discord.memberRoles(e.guildId, userId)).toContain(e.roles.gold);
}, 180_000);
