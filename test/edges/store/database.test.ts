import net from 'node:net';
import { sql } from 'drizzle-orm';
import { openDatabase, queryRows } from '../../../src/edges/store/database';
import { roleGrants } from '../../../src/edges/store/schema';
import { silentLogger } from '../../../src/shared/logger';
import { type TestDatabase, createTestDatabase, onPostgres } from '../../support/test-database';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.close();
});

test('migrations create every table and a second run changes nothing', async () => {
  const tables = await queryRows<{ table_name: string }>(
    t.database.db,
    sql`select table_name from information_schema.tables where table_schema = 'public' order by table_name`,
  );
  expect(tables.map((r) => r.table_name)).toEqual([
    'app_state',
    'audit_log',
    'campaigns',
    'creator_credentials',
    'dashboard_sessions',
    'guild_campaigns',
    'guilds',
    'jobs',
    'link_events',
    'link_tokens',
    'links',
    'member_snapshots',
    'role_grants',
    'role_mappings',
    'sync_runs',
    'tiers',
    'webhook_inbox',
    'webhook_seen',
    'webhooks',
  ]);
  const before = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
  await t.database.migrate();
  const after = await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
  expect(after).toEqual(before);
});

test('the ledger keeps one row per guild, user and role', async () => {
  const row = { guildId: 'g', discordUserId: 'u', roleId: 'r', kind: 'tier' as const, reason: 'Gold tier' };
  await t.database.db.insert(roleGrants).values(row);
  await expect(t.database.db.insert(roleGrants).values(row)).rejects.toThrow();
});

test('a named lock is held by one holder at a time', async () => {
  let release!: () => void;
  const holding = new Promise<void>((resolve) => (release = resolve));
  const first = t.database.tryWithLock('nightly-sync', () => holding.then(() => 'first'));
  // On PostgreSQL the competitor is another connection pool, as a second instance would be.
  const other = onPostgres() ? await openDatabase({ engine: 'postgres', url: t.url!, logger: silentLogger, poolSize: 2 }) : t.database;
  await new Promise((r) => setTimeout(r, 50));
  await expect(other.tryWithLock('nightly-sync', async () => 'second')).resolves.toEqual({ acquired: false });
  await expect(other.tryWithLock('another-lock', async () => 'other')).resolves.toEqual({ acquired: true, value: 'other' });
  release();
  await expect(first).resolves.toEqual({ acquired: true, value: 'first' });
  await expect(other.tryWithLock('nightly-sync', async () => 'second')).resolves.toEqual({ acquired: true, value: 'second' });
  if (other !== t.database) await other.close();
});

// PGlite serves one process (the data-dir lock test covers it); concurrent migrations are a PostgreSQL matter.
(onPostgres() ? test : test.skip)('instances migrating a fresh PostgreSQL at once both succeed (advisory lock)', async () => {
  const fresh = await createTestDatabase({ migrate: false });
  const a = fresh.database;
  const b = await openDatabase({ engine: 'postgres', url: fresh.url!, logger: silentLogger, poolSize: 2 });
  await expect(Promise.all([a.migrate(), b.migrate()])).resolves.toBeDefined();
  const rows = await queryRows<{ n: number }>(a.db, sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
  expect(rows[0]!.n).toBeGreaterThan(0);
  await b.close();
  await fresh.close();
});

test('PostgreSQL that accepts the connection and never answers fails the first query after the connect timeout, not never', async () => {
  const sockets: net.Socket[] = [];
  const silent = net.createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as net.AddressInfo;
  const database = await openDatabase({
    engine: 'postgres',
    url: `postgres://u:p@127.0.0.1:${port}/x`,
    logger: silentLogger,
    timeouts: { connectMs: 300 },
  });
  try {
    await expect(database.ping()).rejects.toThrow(/timeout/i);
  } finally {
    await database.close();
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
});

(onPostgres() ? test : test.skip)('a statement longer than the statement timeout is cancelled by PostgreSQL', async () => {
  const database = await openDatabase({
    engine: 'postgres',
    url: t.url!,
    logger: silentLogger,
    poolSize: 1,
    timeouts: { statementMs: 200 },
  });
  try {
    // 57014 query_canceled: "canceling statement due to statement timeout".
    await expect(database.db.execute(sql`select pg_sleep(2)`)).rejects.toMatchObject({
      cause: expect.objectContaining({ code: '57014', message: expect.stringContaining('statement timeout') }),
    });
    await database.ping();
  } finally {
    await database.close();
  }
});
