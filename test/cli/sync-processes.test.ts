import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import path from 'node:path';
import { packageRoot } from '../../src/edges/outbound/store/package-root';
import { onPostgres } from '../support/test-database';
import { SECRET_KEY, type World, createWorld } from '../support/world';
import { standInEnvironment } from '@tierlink/sandbox';

const syncCli = path.join(packageRoot(), 'dist/src/cli/sync.js');

let world: World;
beforeAll(async () => {
  world = await createWorld();
});
afterAll(() => world.close());

function runSync(): { child: ChildProcessWithoutNullStreams; done: Promise<{ code: number | null; stdout: string }> } {
  const env = {
    PATH: process.env.PATH ?? '',
    ...standInEnvironment(world.patreon, world.discord.sandbox),
    DATABASE_URL: world.db.url ?? '',
    SECRET_KEY,
    LOG_LEVEL: 'warn',
  };
  const child = spawn(process.execPath, [syncCli, '--json'], { env });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const done = new Promise<{ code: number | null; stdout: string }>((resolve) => child.on('exit', (code) => resolve({ code, stdout })));
  return { child, done };
}

// Two processes on one embedded database cannot happen: the second refuses to open DATA_DIR
// (test/cli/process.test.ts). On PostgreSQL they can, and the advisory lock lets one sync run.
(onPostgres() ? test : test.skip)(
  'two processes syncing one PostgreSQL at once: one runs the sync, the other is skipped and says why',
  async () => {
    const patron = world.addPatron({ tier: 'gold', socialDiscord: true });
    // Discord answers the first member-list request with a 2-second rate limit: the first run holds the lock through it.
    world.discord.sandbox.injectFault({ method: 'GET', route: 'members-list', status: 429, retryAfterSeconds: 2, times: 1 });
    const first = runSync();
    await new Promise((r) => setTimeout(r, 1000));
    const second = runSync();
    const [a, b] = await Promise.all([first.done, second.done]);

    const ran = JSON.parse(a.stdout) as { status: string; guilds: Array<{ applied: { adds: number } }> };
    expect(a.code).toBe(0);
    expect(ran.status).toBe('ok');
    expect(ran.guilds[0]?.applied.adds).toBe(1);
    expect(b.code).toBe(1);
    const skipped = JSON.parse(b.stdout) as { skipped: boolean; reason: string; running?: Array<{ guildId: string }> };
    expect(skipped).toMatchObject({ skipped: true, reason: expect.stringContaining('another full sync is running') });
    // Once the first run has written its row, the answer also says where that run is.
    for (const run of skipped.running ?? []) expect(run.guildId).toBe(world.guildId);
    expect(world.discord.sandbox.memberRoles(world.guildId, patron.discordUserId)).toEqual([world.roles.gold]);
    const runs = await world.repos.syncRuns.all();
    expect(runs.map((r) => r.status).sort()).toEqual(['ok', 'skipped']);
  },
  60_000,
);
