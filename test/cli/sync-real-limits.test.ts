import { spawn } from 'node:child_process';
import path from 'node:path';
import type { SyncReport } from '../../src/core/sync-report';
import { packageRoot } from '../../src/edges/outbound/store/package-root';
import { type E2E, startE2E } from '../support/e2e';

/**
 * `npm run sync` as its own process under Discord's real member-role bucket (10 per 10 s per
 * server) with more role changes than one window holds: the process waits for the bucket between
 * windows, and nothing but its work may end it. It grants every role, prints its report and exits 0.
 */
const syncCli = path.join(packageRoot(), 'dist/src/cli/sync.js');

let e: E2E;
beforeAll(async () => {
  e = await startE2E({ creatorTokensInEnv: true, ownDatabase: true });
}, 60_000);
afterAll(() => e?.stop());

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runSync(...args: string[]): Promise<CliRun> {
  const child = spawn(process.execPath, [syncCli, ...args], { env: { PATH: process.env.PATH ?? '', ...e.env, LOG_LEVEL: 'warn' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

test('30 pending roles under the real member-role bucket: every role granted across windows, the report printed, exit 0', async () => {
  const patrons = Array.from({ length: 30 }, (_, i) => {
    const discordUser = e.discord.addMember(e.guildId, { username: `waiting${i}` });
    const user = e.patreon.createUser({ fullName: `Waiting Patron ${i}`, discordUserId: discordUser.userId });
    e.patreon.setMembership(
      user.id,
      e.patreon.campaignId,
      { patronStatus: 'active_patron', tierIds: [e.tiers.gold], lastChargeStatus: 'Paid', lastChargeDate: e.clock.now() },
      { deliver: false },
    );
    return discordUser.userId;
  });
  await e.tierlink.stop();
  // The stand-in's own limits: Discord's member-role bucket, 10 per 10 s per server.
  e.discord.resetRequests();

  const run = await runSync('--json');
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
  const report = JSON.parse(run.stdout) as SyncReport;
  expect(report.status).toBe('ok');
  expect(report.guilds[0]!.applied.adds).toBe(30);
  for (const userId of patrons) expect(e.discord.memberRoles(e.guildId, userId)).toEqual([e.roles.gold]);
  // More than one window: the process waited for the bucket and was refused nothing.
  const grants = e.discord.requests({ method: 'PUT' }).filter((r) => r.route.endsWith('/roles/:r'));
  expect(grants).toHaveLength(30);
  expect(e.discord.rateLimitHits()).toEqual([]);
}, 120_000);
