import { createManualClock } from '@tierlink/sandbox';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../../../src/edges/outbound/store/database';
import { createJobQueue, createJobStore } from '../../../../src/edges/outbound/store/job-queue';
import { silentLogger } from '../../../../src/shared/logger';
import { type TestDatabase, createTestDatabase } from '../../../support/test-database';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.close());
beforeEach(() => t.reset());

function setup(handler: (payload: Record<string, unknown>) => Promise<void>) {
  const clock = createManualClock();
  const jobs = createJobQueue({
    store: createJobStore(t.database.db),
    clock,
    random: () => 0.5,
    logger: silentLogger,
    handlers: { recheck: handler },
  });
  return { clock, jobs };
}

test('a due job starts at once after it is written', async () => {
  const seen: unknown[] = [];
  let done!: () => void;
  const finished = new Promise<void>((r) => (done = r));
  const { jobs } = setup(async (p) => {
    seen.push(p);
    done();
  });
  await jobs.enqueue('recheck', { memberId: 'm1' });
  await finished;
  expect(seen).toEqual([{ memberId: 'm1' }]);
});

test('the same pending key is queued once; a scheduled job waits for its time', async () => {
  const seen: unknown[] = [];
  const { clock, jobs } = setup(async (p) => {
    seen.push(p);
  });
  const later = new Date(clock.now().getTime() + 60_000);
  expect(await jobs.enqueue('recheck', { n: 1 }, { runAt: later, dedupeKey: 'member:m1' })).not.toBeNull();
  expect(await jobs.enqueue('recheck', { n: 2 }, { runAt: later, dedupeKey: 'member:m1' })).toBeNull();
  expect(await jobs.worker.sweep()).toBe(0);
  clock.advance(60_000);
  expect(await jobs.worker.sweep()).toBe(1);
  expect(seen).toEqual([{ n: 1 }]);
});

test('a failing job is retried with back-off and, after the last attempt, dead-lettered', async () => {
  let calls = 0;
  const { clock, jobs } = setup(async () => {
    calls++;
    throw new Error('service down');
  });
  await jobs.enqueue('recheck', {}, { runAt: new Date(clock.now().getTime() + 1) });
  for (let i = 0; i < 12; i++) {
    clock.advance(60 * 60_000);
    await jobs.worker.sweep();
  }
  expect(calls).toBe(8);
  expect(await queryRows(t.database.db, sql`select status, last_error from jobs`)).toEqual([
    { status: 'dead', last_error: 'Error: service down' },
  ]);
});
