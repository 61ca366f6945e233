import { type E2E, startE2E } from '../support/e2e';

/**
 * SYNC_SCHEDULE is read in SYNC_TIMEZONE, UTC by default, whatever the machine's own time zone: a
 * container that runs in UTC and a laptop in New York run "0 4 * * *" at the same instant unless
 * the operator names a zone.
 */

let previousTz: string | undefined;
beforeAll(() => {
  previousTz = process.env.TZ;
  // The machine's zone is New York for these tests: the schedule must not follow it.
  process.env.TZ = 'America/New_York';
});
afterAll(() => {
  if (previousTz === undefined) delete process.env.TZ;
  else process.env.TZ = previousTz;
});

async function nextRunWith(env: Record<string, string>): Promise<Date> {
  const e: E2E = await startE2E({ env });
  try {
    const next = e.tierlink.services.sync.scheduler.nextRun();
    if (!next) throw new Error('the nightly sync is not scheduled');
    const logged = e.log.lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'full sync scheduled');
    expect(logged).toMatchObject({ schedule: '0 4 * * *', timezone: env.SYNC_TIMEZONE ?? 'UTC', next: next.toISOString() });
    return next;
  } finally {
    await e.stop();
  }
}

test('without SYNC_TIMEZONE, "0 4 * * *" runs at 04:00 UTC although the machine runs in New York', async () => {
  const next = await nextRunWith({});
  expect([next.getUTCHours(), next.getUTCMinutes()]).toEqual([4, 0]);
}, 60_000);

test('with SYNC_TIMEZONE=Asia/Tokyo, "0 4 * * *" runs at 04:00 in Tokyo, 19:00 UTC (Tokyo keeps no daylight saving time)', async () => {
  const next = await nextRunWith({ SYNC_TIMEZONE: 'Asia/Tokyo' });
  expect([next.getUTCHours(), next.getUTCMinutes()]).toEqual([19, 0]);
  expect(next.getTime() - Date.now()).toBeLessThanOrEqual(24 * 60 * 60_000);
}, 60_000);
