import { codeMigrations } from '../../../../src/edges/outbound/store/schema-level';
import { queryRows } from '../../../../src/edges/outbound/store/database';
import { sql } from 'drizzle-orm';
import { packageVersion } from '../../../../src/edges/outbound/store/package-root';
import { type LoadedFixture, expectReleaseFixtureData, loadReleaseFixture } from '../../../support/release-fixture';
import { onPostgres } from '../../../support/test-database';

/**
 * An upgrade from the first release: a database written by release 0.1.0's own code
 * (test/fixtures/release-0.1.0) is migrated to this code's head, as `npm start` does, and keeps
 * everything it held.
 */

let fixture: LoadedFixture;
beforeAll(async () => {
  fixture = await loadReleaseFixture();
}, 60_000);
afterAll(async () => {
  await fixture.close();
});

test(`release 0.1.0's database migrates to head on ${onPostgres() ? 'PostgreSQL' : 'the embedded database'} with its data intact`, async () => {
  const applied = (rows: Array<{ createdAt: number }>) => rows.map((m) => m.createdAt);
  const rawApplied = async () =>
    (
      await queryRows<{ created_at: string }>(fixture.database.db, sql`select created_at from drizzle.__drizzle_migrations order by id`)
    ).map((r) => ({ createdAt: Number(r.created_at) }));
  const before = await rawApplied();
  expect(before.length).toBeGreaterThan(0);

  await fixture.database.migrate();

  const code = codeMigrations();
  const after = await rawApplied();
  expect(applied(after)).toEqual(code.map((m) => m.when));
  expect(applied(after).slice(0, before.length)).toEqual(applied(before));
  const rows = await queryRows<{ value: unknown }>(fixture.database.db, sql`select value from app_state where key = 'release'`);
  expect(rows).toEqual([{ value: { version: packageVersion() } }]);
  await expectReleaseFixtureData(fixture.database);
});
