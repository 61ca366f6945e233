import { sql } from 'drizzle-orm';
import fs from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { MIGRATIONS_FOLDER, queryRows, rawQuery } from '../../../../src/edges/outbound/store/database';
import { packageVersion } from '../../../../src/edges/outbound/store/package-root';
import {
  DatabaseNewerError,
  codeLevel,
  codeMigrations,
  migrationsThrough,
  readAppliedMigrations,
} from '../../../../src/edges/outbound/store/schema-level';
import { type TestDatabase, createTestDatabase } from '../../../support/test-database';

let t: TestDatabase;
beforeEach(async () => {
  t = await createTestDatabase();
});
afterEach(async () => {
  await t.close();
});

const count = async (table: string) =>
  (await queryRows<{ n: number }>(t.database.db, sql.raw(`select count(*)::int as n from ${table}`)))[0]!.n;

test('a migration records the release that made it, in app_state', async () => {
  await t.database.migrate();
  const rows = await queryRows<{ value: unknown }>(t.database.db, sql`select value from app_state where key = 'release'`);
  expect(rows).toEqual([{ value: { version: packageVersion() } }]);
});

test('start-up refuses a database a newer release migrated further, naming both releases and both levels, and changes nothing', async () => {
  const ours = codeLevel();
  await t.database.db.execute(
    sql`insert into drizzle.__drizzle_migrations (hash, created_at) values ('from-the-future', ${ours.when + 60_000})`,
  );
  await t.database.db.execute(sql`update app_state set value = '{"version":"9.1.0"}'::jsonb where key = 'release'`);
  const before = await count('drizzle.__drizzle_migrations');

  const refused = await t.database.migrate().then(
    () => null,
    (error: unknown) => error,
  );
  expect(refused).toBeInstanceOf(DatabaseNewerError);
  const message = (refused as Error).message;
  expect(message).toContain(`schema level ${ours.level + 1}, migrated by Tierlink 9.1.0`);
  expect(message).toContain(`Tierlink ${packageVersion()} knows schema levels up to level ${ours.level} (${ours.tag})`);
  expect(message).toContain('Roll back');
  expect(await count('drizzle.__drizzle_migrations')).toBe(before);
  const release = await queryRows<{ value: unknown }>(t.database.db, sql`select value from app_state where key = 'release'`);
  expect(release).toEqual([{ value: { version: '9.1.0' } }]);
});

test('a database at this code’s level, or below it, is not refused', async () => {
  await expect(t.database.migrate()).resolves.toBeUndefined();
});

test('migrationsThrough(n) brings an empty database to exactly level n, and the full folder then on to head', async () => {
  const code = codeMigrations();
  const level = Math.max(1, code.length - 3);
  const folder = migrationsThrough(level);
  const client = new PGlite();
  try {
    await migrate(drizzle({ client }), { migrationsFolder: folder });
    const applied = await readAppliedMigrations(rawQuery(client));
    expect(applied.map((m) => [m.createdAt, m.hash])).toEqual(code.slice(0, level).map((m) => [m.when, m.hash]));
    await migrate(drizzle({ client }), { migrationsFolder: MIGRATIONS_FOLDER });
    expect((await readAppliedMigrations(rawQuery(client))).map((m) => m.createdAt)).toEqual(code.map((m) => m.when));
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
    await client.close();
  }
});
