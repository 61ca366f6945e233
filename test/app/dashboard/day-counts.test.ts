import { createManualClock } from '@tierlink/sandbox';
import { createDayCounts } from '../../../src/app/dashboard/overview';
import { createAuditLogRepository } from '../../../src/edges/outbound/store/repositories/audit-log-repository';
import { type AuditEntry, createLedgerRepository } from '../../../src/edges/outbound/store/repositories/ledger-repository';
import { DAY, HOUR } from '../../../src/shared/clock';
import { type TestDatabase, createTestDatabase } from '../../support/test-database';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.close());

const G = '100000000000000001';
const row = (at: Date, action: 'add' | 'remove' = 'add'): AuditEntry => ({
  at,
  guildId: G,
  discordUserId: '200000000000000001',
  roleId: '300000000000000001',
  action,
  outcome: 'applied',
  trigger: 'sync',
  reason: 'r',
});

test('the chart has every day of the last 14 (zeros included); ended days are read once a day, today on every view', async () => {
  const clock = createManualClock(new Date('2026-11-20T12:00:00Z'));
  const ledger = createLedgerRepository(t.database.db);
  const perDay = createDayCounts({ auditLog: createAuditLogRepository(t.database.db), clock });
  await ledger.audit([
    row(new Date('2026-11-19T08:00:00Z')),
    row(new Date('2026-11-19T09:00:00Z'), 'remove'),
    row(new Date('2026-11-20T01:00:00Z')),
  ]);

  const first = await perDay(G);
  expect(first).toHaveLength(14);
  expect(first[0]).toEqual({ day: '2026-11-07', adds: 0, removes: 0 });
  expect(first.slice(-2)).toEqual([
    { day: '2026-11-19', adds: 1, removes: 1 },
    { day: '2026-11-20', adds: 1, removes: 0 },
  ]);

  // A new change today shows at once; yesterday's figures come from the first read of the day.
  await ledger.audit([row(new Date('2026-11-20T12:00:00Z'), 'remove'), row(new Date('2026-11-19T10:00:00Z'))]);
  expect((await perDay(G)).slice(-2)).toEqual([
    { day: '2026-11-19', adds: 1, removes: 1 },
    { day: '2026-11-20', adds: 1, removes: 1 },
  ]);
  // The next day, the ended days are read again.
  clock.advance(DAY - 11 * HOUR);
  expect((await perDay(G)).slice(-3)).toEqual([
    { day: '2026-11-19', adds: 2, removes: 1 },
    { day: '2026-11-20', adds: 1, removes: 1 },
    { day: '2026-11-21', adds: 0, removes: 0 },
  ]);
});
