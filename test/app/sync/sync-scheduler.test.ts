import { wireSync } from '../../support/sync-kit';
import { Writable } from 'node:stream';
import pino from 'pino';
import { type Database, openDatabase } from '../../../src/edges/outbound/store/database';
import { realSleep } from '../../../src/shared/clock';
import type { Logger } from '../../../src/shared/logger';
import { silentLogger } from '../../../src/shared/logger';
import { FULL_SYNC_LOCK, createSyncScheduler, isSkipped } from '../../../src/app/sync/sync-scheduler';
import { formatSyncReport } from '../../../src/core/sync-report';
import { onPostgres } from '../../support/test-database';
import { type World, createWorld } from '../../support/world';

/** One instance of Tierlink as far as the full sync goes: its own database handle, REST client and service client. */
function instance(world: World, database: Database, logger: Logger = silentLogger) {
  const { fullSync, syncRuns: runs } = wireSync(world, database, { logger });
  return {
    runs,
    fullSync,
    scheduler: (schedule = '0 4 * * *') => createSyncScheduler({ schedule, database, fullSync, logger, runs, clock: world.clock }),
  };
}

/** A pino logger that keeps what it writes. */
function memoryLogger(): { logger: Logger; lines: () => Array<{ level: number; msg: string }> } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines: () => lines.map((l) => JSON.parse(l) as { level: number; msg: string }) };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await realSleep(25);
  }
}

let world: World;
/** The second instance's database: another pool on the same PostgreSQL, or (PGlite, one process) the same handle. */
let second: Database;
beforeAll(async () => {
  world = await createWorld();
  second = onPostgres()
    ? await openDatabase({ engine: 'postgres', url: world.db.url!, logger: silentLogger, poolSize: 3 })
    : world.db.database;
});
afterAll(async () => {
  if (second !== world.db.database) await second.close();
  await world.close();
});
beforeEach(() => world.reset());

test(`two instances on one database run the sync once: the other is skipped (${onPostgres() ? 'PostgreSQL advisory lock' : 'PGlite: in-process lock'})`, async () => {
  const patrons = Array.from({ length: 4 }, () => world.addPatron({ tier: 'silver', socialDiscord: true }));
  // Slow role writes keep the first run busy while the second tries.
  world.discord.sandbox.setRateLimit({
    route: 'member-role',
    limit: 1,
    windowMs: 150,
    raised: 'one grant per 150 ms keeps the run busy, and short',
  });
  const a = instance(world, world.db.database);
  const b = instance(world, second);
  try {
    const outcomes = await Promise.all([a.scheduler().runNow({ trigger: 'schedule' }), b.scheduler().runNow({ trigger: 'schedule' })]);
    expect(outcomes.filter(isSkipped)).toHaveLength(1);
    expect(formatSyncReport(outcomes.find(isSkipped)!)).toMatch(/^Full sync skipped: another full sync is running/);
    const [ran] = outcomes.filter((o) => !isSkipped(o));
    expect(ran).toMatchObject({ status: 'ok', guilds: [{ applied: { adds: 4 } }] });
    for (const p of patrons) expect(world.discord.sandbox.memberRoles(world.guildId, p.discordUserId)).toEqual([world.roles.silver]);
    expect(world.discord.sandbox.requests({ method: 'PUT' }).filter((r) => r.status === 204)).toHaveLength(4);
    const rows = await a.runs.all();
    expect(rows.map((r) => [r.guildId, r.status]).sort()).toEqual([
      [null, 'skipped'],
      [world.guildId, 'ok'],
    ]);
  } finally {
    world.discord.sandbox.setRateLimit({ route: 'member-role', limit: 10, windowMs: 10_000 });
  }
});

test('a scheduled run that overlaps a run in progress is skipped and logged; the next tick runs', async () => {
  world.addPatron({ tier: 'gold', socialDiscord: true });
  const { logger, lines } = memoryLogger();
  const a = instance(world, world.db.database, logger);
  const other = instance(world, second);
  const scheduler = a.scheduler('* * * * * *');
  try {
    // Another instance is in the middle of a sync while the every-second schedule fires.
    const held = await second.tryWithLock(FULL_SYNC_LOCK, async () => {
      scheduler.start();
      return until('a skipped run', async () => (await other.runs.all()).find((r) => r.status === 'skipped'));
    });
    expect(held).toMatchObject({
      acquired: true,
      value: { trigger: 'schedule', errors: [expect.stringMatching(/another full sync is running/)] },
    });
    expect(lines().some((l) => l.level === 40 && /full sync skipped/.test(l.msg))).toBe(true);

    const ran = await until('a scheduled run', async () => (await a.runs.all()).find((r) => r.trigger === 'schedule' && r.status === 'ok'));
    expect(ran).toMatchObject({ guildId: world.guildId, appliedAdds: 1 });
  } finally {
    await scheduler.stop();
  }
  expect(scheduler.nextRun()).toBeNull();
});

test('runNow closes the run a stopped process left running, and /sync and the CLI get the same report', async () => {
  const a = instance(world, world.db.database);
  const abandoned = await a.runs.start({
    trigger: 'schedule',
    guildId: world.guildId,
    campaignId: null,
    dryRun: false,
    forced: false,
    startedAt: world.clock.now(),
  });
  world.addPatron({ tier: 'bronze', socialDiscord: true });
  const outcome = await a.scheduler().runNow({ trigger: 'manual', dryRun: true });
  expect(isSkipped(outcome)).toBe(false);
  expect(outcome).toMatchObject({ dryRun: true, guilds: [{ planned: { adds: 1 } }] });
  expect(await a.runs.get(abandoned)).toMatchObject({ status: 'failed', errors: [expect.stringMatching(/stopped before it finished/)] });
  expect(await a.runs.lastFinished(world.guildId)).toMatchObject({ id: abandoned });
});

test('at start, a run a stopped process left running is resumed at once: closed, and a new run takes it over (once per attempt, at most 3 deep)', async () => {
  const a = instance(world, world.db.database);
  const patron = world.addPatron({ tier: 'gold', socialDiscord: true });
  // What a process killed mid-apply leaves: its row, still running.
  const stopped = await a.runs.start({
    trigger: 'schedule',
    guildId: world.guildId,
    campaignId: null,
    dryRun: false,
    forced: false,
    startedAt: world.clock.now(),
  });
  const outcome = await a.scheduler().resumeAbandoned();
  expect(outcome && !isSkipped(outcome) ? outcome.trigger : null).toBe('resume');
  expect(outcome && !isSkipped(outcome) ? outcome.guilds[0]?.resumed : null).toMatchObject({ runId: stopped });
  expect(world.discord.sandbox.memberRoles(world.guildId, patron.discordUserId)).toContain(world.roles.gold);
  const rows = await a.runs.all();
  expect(rows.find((r) => r.id === stopped)).toMatchObject({
    status: 'failed',
    errors: [expect.stringMatching(/stopped before it finished/)],
  });
  expect(rows.find((r) => r.resumedFrom === stopped)).toMatchObject({ status: 'ok', trigger: 'resume', attempt: 2 });
  // Nothing left running: nothing to resume.
  expect(await a.scheduler().resumeAbandoned()).toBeNull();
  // A run that stopped its process three times is left to the next night.
  await a.runs.start({
    trigger: 'resume',
    guildId: world.guildId,
    campaignId: null,
    dryRun: false,
    forced: false,
    startedAt: world.clock.now(),
    attempt: 3,
  });
  expect(await a.scheduler().resumeAbandoned()).toBeNull();
});
