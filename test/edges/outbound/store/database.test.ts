import net from 'node:net';
import { sql } from 'drizzle-orm';
import { dumpEmbeddedDatabase, openDatabase, queryRows } from '../../../../src/edges/outbound/store/database';
import { roleGrants } from '../../../../src/edges/outbound/store/schema';
import { silentLogger } from '../../../../src/shared/logger';
import { type TestDatabase, createTestDatabase, onPostgres } from '../../../support/test-database';

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
    'announcements',
    'app_state',
    'audit_log',
    'campaigns',
    'channel_pacing',
    'comps',
    'creator_credentials',
    'dashboard_sessions',
    'direct_messages',
    'discord_budget',
    'discord_global_holder',
    'guild_campaigns',
    'guild_departures',
    'guild_presence',
    'guilds',
    'identify_slots',
    'instances',
    'interaction_claims',
    'jobs',
    'kofi_donation_settings',
    'kofi_link_codes',
    'kofi_payments',
    'link_events',
    'link_tokens',
    'links',
    'member_list_rows',
    'member_list_state',
    'member_preferences',
    'member_snapshots',
    'mod_log_state',
    'patreon_budget',
    'pending_changes',
    'post_polls',
    'role_allowances',
    'role_grants',
    'role_mappings',
    'rule_roles',
    'shard_leases',
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

test('a lock waited for runs its holders one after another, across instances', async () => {
  const other = onPostgres() ? await openDatabase({ engine: 'postgres', url: t.url!, logger: silentLogger, poolSize: 2 }) : t.database;
  const order: string[] = [];
  let release!: () => void;
  const holding = new Promise<void>((resolve) => (release = resolve));
  const first = t.database.withLock('creator-refresh:1', async () => {
    order.push('first in');
    await holding;
    order.push('first out');
    return 'first';
  });
  await new Promise((r) => setTimeout(r, 100));
  const second = other.withLock('creator-refresh:1', async () => {
    order.push('second in');
    return 'second';
  });
  const elsewhere = await other.withLock('creator-refresh:2', async () => 'another creator');
  expect(elsewhere).toBe('another creator');
  await new Promise((r) => setTimeout(r, 100));
  expect(order).toEqual(['first in']);
  release();
  await expect(Promise.all([first, second])).resolves.toEqual(['first', 'second']);
  expect(order).toEqual(['first in', 'first out', 'second in']);
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

test('a lock held shared admits other shared holders and no exclusive one; an exclusive holder admits nobody', async () => {
  const { database } = t;
  const inside = await database.tryWithLock(
    'shared-test',
    async () => {
      const shared = await database.tryWithLock('shared-test', async () => 'second shared', { shared: true });
      const exclusive = await database.tryWithLock('shared-test', async () => 'exclusive');
      return { shared, exclusive };
    },
    { shared: true },
  );
  expect(inside).toEqual({ acquired: true, value: { shared: { acquired: true, value: 'second shared' }, exclusive: { acquired: false } } });
  const underExclusive = await database.tryWithLock('shared-test', () =>
    database.tryWithLock('shared-test', async () => 1, { shared: true }),
  );
  expect(underExclusive).toEqual({ acquired: true, value: { acquired: false } });
  expect(await database.tryWithLock('shared-test', async () => 'free again')).toEqual({ acquired: true, value: 'free again' });
});

// PGlite has no pool: its lock is in-process.
(onPostgres() ? test : test.skip)(
  'a held lock takes no connection from the pool: a pool of one still answers while a lock is held',
  async () => {
    const small = await openDatabase({ engine: 'postgres', url: t.url!, logger: silentLogger, poolSize: 1 });
    let release!: () => void;
    const holding = new Promise<void>((resolve) => (release = resolve));
    const held = small.tryWithLock('long-sync', () => holding.then(() => 'held'));
    await new Promise((r) => setTimeout(r, 100));
    await expect(queryRows<{ one: number }>(small.db, sql`select 1 as one`)).resolves.toEqual([{ one: 1 }]);
    release();
    await expect(held).resolves.toEqual({ acquired: true, value: 'held' });
    await small.close();
  },
);

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

test('an embedded database opened from a dump has its rows and its own life; a PostgreSQL database cannot be dumped', async () => {
  const original = await openDatabase({ engine: 'pglite-memory', logger: silentLogger });
  try {
    await original.db.execute(sql`create table notes (body text)`);
    await original.db.execute(sql`insert into notes values ('kept')`);
    const dump = await dumpEmbeddedDatabase(original);
    const copy = await openDatabase({ engine: 'pglite-memory', logger: silentLogger, from: dump });
    try {
      await copy.db.execute(sql`insert into notes values ('only in the copy')`);
      expect(await queryRows(copy.db, sql`select body from notes order by body`)).toEqual([{ body: 'kept' }, { body: 'only in the copy' }]);
      expect(await queryRows(original.db, sql`select body from notes`)).toEqual([{ body: 'kept' }]);
    } finally {
      await copy.close();
    }
  } finally {
    await original.close();
  }
  if (onPostgres()) await expect(dumpEmbeddedDatabase(t.database)).rejects.toThrow(/not an embedded/);
});
