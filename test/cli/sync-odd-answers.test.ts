import { spawn } from 'node:child_process';
import path from 'node:path';
import type { SyncReport } from '../../src/core/sync-report';
import { openConfiguredDatabase } from '../../src/edges/outbound/store/open-configured';
import { createRepositories } from '../../src/edges/outbound/store/repositories';
import { createSecretBox } from '../../src/edges/outbound/store/secret-box';
import { packageRoot } from '../../src/edges/outbound/store/package-root';
import type { OddValueEntry } from '../../src/edges/outbound/patreon/odd-values';
import { silentLogger } from '../../src/shared/logger';
import { E2E_SECRET_KEY, type E2E, startE2E } from '../support/e2e';

/**
 * `npm run sync` as its own process against Patreon's answers as they come: the member attributes
 * Patreon deprecated are gone, a tier's title and some patrons' names are null or missing. Every
 * member page reads, every role comes out right, the run exits 0, and what was odd is kept for
 * `/doctor`.
 */
const syncCli = path.join(packageRoot(), 'dist/src/cli/sync.js');

let e: E2E;
beforeAll(async () => {
  e = await startE2E({ dialect: 'patreon', creatorTokensInEnv: true, ownDatabase: true });
}, 60_000);
afterAll(() => e?.stop());

function runSync(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [syncCli, '--json'], { env: { PATH: process.env.PATH ?? '', ...e.env, LOG_LEVEL: 'warn' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

test('a member page with a null tier title and null or missing names, without is_follower: exit 0, every role right, the odd values kept', async () => {
  const people = ['Ann', 'Bo', 'Cy', 'Di'].map((name, i) => {
    const discordUser = e.discord.addMember(e.guildId, { username: name.toLowerCase() });
    const user = e.patreon.createUser({ fullName: name, discordUserId: discordUser.userId });
    const tier = i % 2 === 0 ? e.tiers.gold : e.tiers.silver;
    const member = e.patreon.setMembership(
      user.id,
      e.patreon.campaignId,
      { patronStatus: 'active_patron', tierIds: [tier], lastChargeStatus: 'Paid', lastChargeDate: e.clock.now() },
      { deliver: false },
    );
    return {
      discordUserId: discordUser.userId,
      patreonUserId: user.id,
      memberId: member.id,
      role: i % 2 === 0 ? e.roles.gold : e.roles.silver,
    };
  });
  await e.tierlink.stop();
  e.patreon.retireAttributes('member', ['is_follower', 'lifetime_support_cents']);
  e.patreon.overrideAttributes('tier', e.tiers.gold, { title: null });
  e.patreon.overrideAttributes('user', people[1]!.patreonUserId, { full_name: null });
  e.patreon.omitAttributes('user', people[2]!.patreonUserId, ['full_name']);
  e.patreon.overrideMemberAttributes(people[3]!.memberId, { full_name: null });
  // A new process: the stand-in's window of the first one's requests has passed.
  e.clock.advance(61_000);
  const before = e.patreon.requests().length;

  const run = await runSync();
  expect(run.code).toBe(0);
  const report = JSON.parse(run.stdout) as SyncReport;
  expect(report.status).toBe('ok');
  expect(report.campaigns[0]).toMatchObject({ complete: true, members: 4, unreadable: 0 });
  for (const p of people) expect(e.discord.memberRoles(e.guildId, p.discordUserId)).toEqual([p.role]);
  expect(
    e.patreon
      .requests()
      .slice(before)
      .filter((r) => r.status !== 200),
  ).toEqual([]);

  // What /doctor reads on any instance.
  const database = await openConfiguredDatabase(e.config, silentLogger);
  try {
    const odd = await createRepositories(database.db, createSecretBox(E2E_SECRET_KEY)).appState.get<OddValueEntry[]>('patreon-odd-values');
    expect(odd).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'tier', attribute: 'title', found: 'null', exampleId: e.tiers.gold }),
        expect.objectContaining({ type: 'user', attribute: 'full_name', found: 'null' }),
        expect.objectContaining({ type: 'user', attribute: 'full_name', found: 'missing' }),
        expect.objectContaining({ type: 'member', attribute: 'full_name', found: 'null' }),
      ]),
    );
  } finally {
    await database.close();
  }
}, 120_000);
