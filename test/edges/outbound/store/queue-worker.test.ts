import { createDurableQueue } from '../../../../src/edges/outbound/store/durable-queue';
import { createQueueWorker } from '../../../../src/edges/outbound/store/queue-worker';
import { silentLogger } from '../../../../src/shared/logger';
import { createManualClock } from '@tierlink/sandbox';
import { pendingTimers, timersStartedBy } from '../../../support/started-timers';
import { type TestDatabase, createTestDatabase } from '../../../support/test-database';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.close());

test('a stopped worker leaves no timer behind: its wait for the work in flight ends with the work', async () => {
  const worker = createQueueWorker({
    name: 'jobs',
    queue: createDurableQueue(t.database.db, 'jobs'),
    clock: createManualClock(new Date('2026-11-29T12:00:00Z')),
    random: () => 0.5,
    logger: silentLogger,
    handle: async () => {},
  });
  let finished: boolean | undefined;
  const timers = await timersStartedBy(async () => {
    finished = await worker.stop(10_000);
  });
  expect(finished).toBe(true);
  expect(pendingTimers(timers)).toEqual([]);
});
