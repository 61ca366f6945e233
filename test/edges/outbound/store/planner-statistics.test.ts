import { sql } from 'drizzle-orm';
import { queryRows } from '../../../../src/edges/outbound/store/database';
import { createSnapshotRepository } from '../../../../src/edges/outbound/store/repositories/snapshot-repository';
import { type TestDatabase, createTestDatabase } from '../../../support/test-database';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
}, 60_000);
afterAll(async () => {
  await t.close();
});

const analysed = async (table: string) =>
  (await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from pg_stats where tablename = ${table}`))[0]!.n > 0;

/** The plan of a page of the full sync's guild pass: the newest snapshots of 200 people. */
async function pagePlan(): Promise<string> {
  const ids = Array.from({ length: 200 }, (_, i) => `"${1_000_000 + i * 7}"`).join(',');
  const rows = await queryRows<{ 'QUERY PLAN': string }>(
    t.database.db,
    sql`explain select member_id from member_snapshots where source = 'patreon' and external_user_id = any(${`{${ids}}`}::text[])`,
  );
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

test('the tables that grew are analysed, once: a page of the guild pass then reads the index of the people it asks for, not the whole source', async () => {
  const snapshots = createSnapshotRepository(t.database.db);
  const now = new Date('2026-11-01T00:00:00Z');
  for (let page = 0; page < 5; page += 1) {
    await snapshots.upsertMany(
      Array.from({ length: 1000 }, (_, i) => {
        const n = page * 1000 + i;
        return {
          source: 'patreon',
          campaignId: 'c1',
          memberId: `m${n}`,
          externalUserId: String(1_000_000 + n),
          patronStatus: 'active_patron' as const,
          isFollower: false,
          lastChargeDate: null,
          lastChargeStatus: 'Paid',
          entitledTierIds: ['t1'],
          pledgeRelationshipStart: null,
          entitledAmountCents: 500,
          fullName: `Patron ${n}`,
          readBy: 'sync' as const,
        };
      }),
      now,
    );
  }
  expect(await analysed('member_snapshots')).toBe(false);
  // Without statistics (the embedded database never analyses by itself): every snapshot of the source, filtered.
  if (t.database.engine === 'pglite') expect(await pagePlan()).toMatch(/Filter: \(external_user_id = ANY/);

  const first = await t.database.refreshStatistics();
  expect(first).toContain('member_snapshots');
  expect(await analysed('member_snapshots')).toBe(true);
  // Only the columns an index holds: the planner's choice of index needs no more, and the rest costs memory.
  const columns = (
    await queryRows<{ attname: string }>(t.database.db, sql`select attname from pg_stats where tablename = 'member_snapshots'`)
  ).map((r) => r.attname);
  expect(columns).toEqual(expect.arrayContaining(['source', 'external_user_id', 'campaign_id']));
  expect(columns).not.toContain('full_name');
  expect(columns).not.toContain('entitled_tier_ids');
  if (t.database.engine === 'pglite') {
    // (PostgreSQL, natively fast, may read 5,000 rows whole; 100,000 it reads by the index.)
    const plan = await pagePlan();
    expect(plan).toMatch(/member_snapshots_(external_)?user_idx/);
    expect(plan).not.toMatch(/Filter: \(external_user_id = ANY/);
  }
  // Nothing grew since: nothing is analysed again (a catalogue read is all an idle sync pays).
  expect(await t.database.refreshStatistics()).toEqual([]);
});
