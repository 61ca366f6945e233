import { createAuditLogRepository } from '../../../../src/edges/outbound/store/repositories/audit-log-repository';
import {
  createDashboardSessionRepository,
  MAX_SESSIONS_PER_USER,
} from '../../../../src/edges/outbound/store/repositories/dashboard-session-repository';
import { type AuditEntry, createLedgerRepository } from '../../../../src/edges/outbound/store/repositories/ledger-repository';
import { createLinkRepository } from '../../../../src/edges/outbound/store/repositories/link-repository';
import { createPatronDirectoryRepository } from '../../../../src/edges/outbound/store/repositories/patron-directory-repository';
import { type SnapshotInput, createSnapshotRepository } from '../../../../src/edges/outbound/store/repositories/snapshot-repository';
import { type TestDatabase, createTestDatabase } from '../../../support/test-database';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.close());
beforeEach(() => t.reset());

const T0 = new Date('2026-11-01T00:00:00Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
const G = '100000000000000001';

function entry(i: number, over: Partial<AuditEntry> = {}): AuditEntry {
  return {
    at: at(Math.floor(i / 3)), // three rows share each minute: ties are broken by id
    guildId: G,
    discordUserId: `2000000000000000${String(i % 7).padStart(2, '0')}`,
    roleId: i % 2 === 0 ? '300000000000000001' : '300000000000000002',
    action: i % 5 === 0 ? 'remove' : 'add',
    outcome: i % 11 === 0 ? 'failed' : 'applied',
    trigger: i % 4 === 0 ? 'webhook' : 'sync',
    reason: `change ${i}`,
    ...over,
  };
}

describe('audit log pages', () => {
  test('pages newest first with keyset cursors, both ways, without gaps or repeats, and filters by index', async () => {
    const ledger = createLedgerRepository(t.database.db);
    const audit = createAuditLogRepository(t.database.db);
    await ledger.audit(Array.from({ length: 130 }, (_, i) => entry(i)));
    await ledger.audit([entry(0, { guildId: '100000000000000002', reason: 'another server' })]);

    const seen: string[] = [];
    let cursor = null;
    for (;;) {
      const page: Awaited<ReturnType<typeof audit.page>> = await audit.page({ guildId: G }, { cursor, direction: 'older', limit: 40 });
      seen.push(...page.map((r) => r.reason));
      if (page.length < 40) break;
      const last = page.at(-1)!;
      cursor = { at: last.at, id: last.id };
    }
    expect(seen).toEqual(Array.from({ length: 130 }, (_, i) => `change ${129 - i}`));

    // Back towards newer from the middle: the 40 rows just above the cursor, still newest first.
    const middle = await audit.page({ guildId: G }, { cursor: null, direction: 'older', limit: 80 });
    const pivot = middle.at(-1)!;
    const newer = await audit.page({ guildId: G }, { cursor: { at: pivot.at, id: pivot.id }, direction: 'newer', limit: 40 });
    expect(newer.map((r) => r.reason)).toEqual(middle.slice(39, 79).map((r) => r.reason));

    const user = '200000000000000003';
    const mine = await audit.page({ guildId: G, discordUserId: user }, { cursor: null, direction: 'older', limit: 500 });
    expect(mine.map((r) => r.reason)).toEqual(
      Array.from({ length: 130 }, (_, i) => 129 - i)
        .filter((i) => i % 7 === 3)
        .map((i) => `change ${i}`),
    );
    const failedRemovals = await audit.page(
      { guildId: G, outcome: 'failed', action: 'remove', roleId: '300000000000000001' },
      { cursor: null, direction: 'older', limit: 500 },
    );
    expect(failedRemovals.map((r) => r.reason)).toEqual(['change 110', 'change 0']);
    const byWebhook = await audit.page(
      { guildId: G, trigger: 'webhook', outcome: 'failed' },
      { cursor: null, direction: 'older', limit: 500 },
    );
    expect(byWebhook.map((r) => r.reason)).toEqual(['change 88', 'change 44', 'change 0']);
    const window = await audit.page({ guildId: G, from: at(10), to: at(12) }, { cursor: null, direction: 'older', limit: 500 });
    expect(window.map((r) => r.reason)).toEqual(['change 35', 'change 34', 'change 33', 'change 32', 'change 31', 'change 30']);
  });

  test('counts applied changes per UTC day', async () => {
    const ledger = createLedgerRepository(t.database.db);
    const audit = createAuditLogRepository(t.database.db);
    await ledger.audit([
      entry(1, { at: new Date('2026-11-01T23:59:00Z') }),
      entry(5, { at: new Date('2026-11-02T00:01:00Z') }),
      entry(2, { at: new Date('2026-11-02T10:00:00Z') }),
      entry(11, { at: new Date('2026-11-02T11:00:00Z') }), // failed: not counted
      entry(3, { at: new Date('2026-10-20T10:00:00Z') }), // before the window
    ]);
    expect(await audit.appliedPerDay(G, new Date('2026-10-25T00:00:00Z'))).toEqual([
      { day: '2026-11-01', adds: 1, removes: 0 },
      { day: '2026-11-02', adds: 1, removes: 1 },
    ]);
  });
});

describe('patron directory', () => {
  const snapshot = (over: Partial<SnapshotInput>): SnapshotInput => ({
    campaignId: 'c1',
    memberId: 'm1',
    externalUserId: 'p1',
    patronStatus: 'active_patron',
    isFollower: false,
    lastChargeDate: T0,
    lastChargeStatus: 'Paid',
    entitledTierIds: [],
    pledgeRelationshipStart: T0,
    entitledAmountCents: 500,
    source: 'patreon',
    readBy: 'sync',
    ...over,
  });

  test('finds members by a part of their name (wildcards typed are literal), linked first, and names linked Discord users', async () => {
    const snapshots = createSnapshotRepository(t.database.db);
    const links = createLinkRepository(t.database.db);
    const directory = createPatronDirectoryRepository(t.database.db);
    await snapshots.upsertMany(
      [
        snapshot({ memberId: 'm1', externalUserId: 'p1', fullName: 'Mira Okonkwo' }),
        snapshot({ memberId: 'm2', externalUserId: 'p2', fullName: 'Amir 100% Real' }),
        snapshot({ memberId: 'm3', externalUserId: 'p3', fullName: 'Someone Else' }),
        snapshot({ campaignId: 'c2', memberId: 'm4', externalUserId: 'p4', fullName: 'Mira Elsewhere' }),
      ],
      T0,
    );
    await links.linkOauth('patreon', '400000000000000002', 'p2', T0);
    // A later read without a name keeps the stored one.
    await snapshots.upsert(snapshot({ memberId: 'm1', externalUserId: 'p1', fullName: null }), at(5));

    expect(await directory.search(['c1'], 'MIR', 10)).toEqual([
      { patreonUserId: 'p2', fullName: 'Amir 100% Real', discordUserId: '400000000000000002' },
      { patreonUserId: 'p1', fullName: 'Mira Okonkwo', discordUserId: null },
    ]);
    expect(await directory.search(['c1'], '0%', 10)).toHaveLength(1);
    expect(await directory.search(['c1'], '_', 10)).toEqual([]);
    expect(await directory.search([], 'Mira', 10)).toEqual([]);
    expect(await directory.linksOf(['c1'], ['400000000000000002', '400000000000000009'])).toEqual(
      new Map([['400000000000000002', { patronName: 'Amir 100% Real' }]]),
    );
    expect(await directory.linksOf(['c2'], ['400000000000000002'])).toEqual(new Map([['400000000000000002', { patronName: null }]]));
  });
});

describe('dashboard sessions', () => {
  test('are found while live, keep a flash, end on delete or expiry, and a user keeps at most ten', async () => {
    const sessions = createDashboardSessionRepository(t.database.db);
    const row = (i: number, user = 'u1') => ({
      idHash: `h${i}`,
      discordUserId: user,
      userName: 'Ada',
      guildIds: ['1'],
      createdAt: at(i),
      expiresAt: at(i + 60),
    });
    await sessions.create(row(0));
    expect(await sessions.find('h0', at(1))).toMatchObject({ discordUserId: 'u1', flash: null });
    await sessions.setFlash('h0', { tone: 'success', text: 'Saved.' });
    expect((await sessions.find('h0', at(1)))?.flash).toEqual({ tone: 'success', text: 'Saved.' });
    expect(await sessions.find('h0', at(60))).toBeNull();
    await sessions.delete('h0');
    expect(await sessions.find('h0', at(1))).toBeNull();

    for (let i = 1; i <= MAX_SESSIONS_PER_USER + 2; i++) await sessions.create(row(i));
    await sessions.create(row(100, 'u2'));
    expect(await sessions.find('h1', at(2))).toBeNull();
    expect(await sessions.find('h2', at(2))).toBeNull();
    expect(await sessions.find('h3', at(3))).not.toBeNull();
    expect(await sessions.prune(at(70))).toBe(8);
  });
});
