import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { Client } from 'pg';
import { type Database, MIGRATIONS_FOLDER, openDatabase } from '../../../../../src/edges/outbound/store/database';
import { BACKUP_FORMAT_VERSION, PROCESS_TABLES } from '../../../../../src/edges/outbound/store/backup/backup-format';
import { readTables } from '../../../../../src/edges/outbound/store/backup/catalog';
import { BackupFileError } from '../../../../../src/edges/outbound/store/backup/read-backup';
import { RestoreRefusedError, restoreBackup } from '../../../../../src/edges/outbound/store/backup/restore-backup';
import { type SqlSession, openPgliteSession } from '../../../../../src/edges/outbound/store/backup/sql-session';
import { writeBackup } from '../../../../../src/edges/outbound/store/backup/write-backup';
import {
  codeMigrations,
  migrationsThrough,
  readAppliedMigrations,
  recordRelease,
} from '../../../../../src/edges/outbound/store/schema-level';
import { secretKeyId } from '../../../../../src/edges/outbound/store/secret-box';
import { silentLogger } from '../../../../../src/shared/logger';
import {
  type ScratchSession,
  backupLines,
  contents,
  fixtureSession,
  scratchSession,
  writeBackupLines,
} from '../../../../support/backup-kit';
import { expectReleaseFixtureData, releaseFixture } from '../../../../support/release-fixture';
import { onPostgres } from '../../../../support/test-database';

/**
 * Backups that move between engines (src/edges/outbound/store/backup): what a backup of one
 * database holds loads into an empty database of either engine, row for row; a restore refuses what
 * it must (a database with rows, a backup it cannot read or open) before changing anything.
 */

const SUITE_ENGINE = onPostgres() ? 'postgres' : 'pglite';
/** Both engines on the PostgreSQL pass; the embedded one alone otherwise. */
const TARGETS: Array<'pglite' | 'postgres'> = onPostgres() ? ['pglite', 'postgres'] : ['pglite'];
const RELEASE = '0.2.0-test';
const fixture = releaseFixture();
const keys = { current: fixture.secretKey, previous: null, currentName: 'SECRET_KEY' };
const sealedWith = { keyId: secretKeyId(fixture.secretKey), source: 'SECRET_KEY' as const };

let work: string;
const open: ScratchSession[] = [];
beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-backup-test-'));
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
afterAll(() => {
  fs.rmSync(work, { recursive: true, force: true });
});

async function scratch(engine: 'pglite' | 'postgres'): Promise<ScratchSession> {
  const s = await scratchSession(engine);
  open.push(s);
  return s;
}

async function source(options: { migrate?: boolean } = {}): Promise<ScratchSession> {
  const s = await fixtureSession(SUITE_ENGINE, options);
  open.push(s);
  return s;
}

let files = 0;
async function backupOf(session: SqlSession): Promise<string> {
  const file = path.join(work, `backup-${++files}.jsonl.gz`);
  await writeBackup(session, file, { release: RELEASE, sealedWith });
  return file;
}

/** The restored database as the service opens it (the session closed first: the embedded one is one process's). */
async function asService(target: ScratchSession): Promise<Database> {
  if (target.url) return openDatabase({ engine: 'postgres', url: target.url, logger: silentLogger, poolSize: 2 });
  await target.session.close();
  return openDatabase({ engine: 'pglite', dataDir: target.dataDir!, logger: silentLogger });
}

async function refusal(promise: Promise<unknown>): Promise<RestoreRefusedError> {
  const outcome = await promise.then(
    () => null,
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(RestoreRefusedError);
  return outcome as RestoreRefusedError;
}

describe.each(TARGETS)('into an empty database on %s', (engine) => {
  test(`release 0.1.0's data, backed up from ${SUITE_ENGINE}, is restored row for row and reads back through the repositories`, async () => {
    const from = await source();
    const file = await backupOf(from.session);
    const to = await scratch(engine);

    const report = await restoreBackup({ file, session: to.session, keys, release: RELEASE });

    const code = codeMigrations();
    expect(report).toMatchObject({ from: { level: code.length }, to: { level: code.length } });
    expect(report.tables).toBe((await readTables(from.session.query)).length - PROCESS_TABLES.length);
    const expected = await contents(from.session);
    const restored = await contents(to.session);
    // The restore records the release that loaded it; everything else is as it was.
    const withoutRelease = (c: Record<string, string[]>) => ({
      ...c,
      app_state: c.app_state!.filter((r) => !r.includes('"key": "release"')),
    });
    expect(withoutRelease(restored)).toEqual(withoutRelease(expected));
    expect(Object.values(restored).flat().length).toBeGreaterThan(20);

    const database = await asService(to);
    try {
      await expectReleaseFixtureData(database);
    } finally {
      await database.close();
    }
  }, 120_000);

  test('values survive exactly: 64-bit ids, microseconds, JSON null beside SQL NULL, text with quotes, newlines and emoji; ids continue after the highest', async () => {
    const from = await source();
    await from.session.query(
      `insert into app_state (key, value) values ('json-null', 'null'::jsonb), ('big', '{"n": 123456789012345678901234567890, "f": 2.5e300}'::jsonb), ('text', $1::jsonb)`,
      [JSON.stringify('line\nbreak "quoted" \\ ünïcödé 🎉')],
    );
    await from.session.query(
      `insert into audit_log (id, at, guild_id, discord_user_id, role_id, action, outcome, trigger, reason, error)
       values (9007199254740993, '2026-11-27 10:00:00.123456+00', 'g', 'u', 'r', 'add', 'failed', 'test', 'it''s "here"' || chr(10) || 'twice', null)`,
    );
    const file = await backupOf(from.session);
    const to = await scratch(engine);
    await restoreBackup({ file, session: to.session, keys, release: RELEASE });

    const read = async (s: SqlSession) => ({
      state: await s.query(
        `select key, value::text as v, value is null as sql_null from app_state where key in ('json-null', 'big', 'text') order by key`,
      ),
      audit: await s.query(
        `select id::text, to_char(at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') as at, reason, error from audit_log where id > 9007199254740000`,
      ),
    });
    expect(await read(to.session)).toEqual(await read(from.session));
    expect((await read(to.session)).state).toContainEqual({ key: 'json-null', v: 'null', sql_null: false });
    const [next] = await to.session.query<{ id: string }>(
      `insert into audit_log (guild_id, discord_user_id, role_id, action, outcome, trigger, reason) values ('g', 'u', 'r', 'add', 'applied', 't', 'r') returning id::text`,
    );
    expect(next!.id).toBe('9007199254740994');
  }, 120_000);

  test('a backup made at an older schema level is loaded at that level, then migrated forward to head', async () => {
    const code = codeMigrations();
    // A level of release 0.1.0's history (0008_discord-request-budget), below head today and after any later migration.
    const level = 9;
    const old = await scratch(SUITE_ENGINE);
    const folder = migrationsThrough(level);
    try {
      await old.session.migrate(folder);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
    await old.session.query(`insert into links (discord_user_id, patreon_user_id, source) values ('111111111111111111', '2002', 'oauth')`);
    await old.session.query(
      `insert into role_grants (guild_id, discord_user_id, role_id, kind, reason) values ('1', '111111111111111111', '3', 'tier', 'Gold')`,
    );
    const file = await backupOf(old.session);
    const to = await scratch(engine);

    const report = await restoreBackup({ file, session: to.session, keys, release: RELEASE });

    expect(report.from.level).toBe(level);
    expect(report.to.level).toBe(code.length);
    expect((await readAppliedMigrations(to.session.query)).map((m) => m.createdAt)).toEqual(code.map((m) => m.when));
    expect(await to.session.query(`select discord_user_id from links`)).toEqual([{ discord_user_id: '111111111111111111' }]);
    expect(await to.session.query(`select role_id from role_grants`)).toEqual([{ role_id: '3' }]);
  }, 120_000);

  test('a database with any row is refused, naming the tables, and keeps its rows', async () => {
    const from = await source();
    const file = await backupOf(from.session);
    const to = await scratch(engine);
    await restoreBackup({ file, session: to.session, keys, release: RELEASE });
    const before = await contents(to.session);

    const refused = await refusal(restoreBackup({ file, session: to.session, keys, release: RELEASE }));

    expect(refused.reason).toBe('not-empty');
    expect(refused.message).toMatch(/The database is not empty: app_state \(\d+ rows?\), audit_log/);
    expect(refused.message).toContain('create a new database and point DATABASE_URL at it');
    expect(await contents(to.session)).toEqual(before);
  }, 120_000);
});

test('sealed values that this install’s key cannot open: refused before anything changes, naming the key the backup needs and where it was', async () => {
  const from = await source();
  const file = path.join(work, 'embedded-install.jsonl.gz');
  const keyFile = '/srv/old-install/data/secret.key';
  await writeBackup(from.session, file, {
    release: RELEASE,
    sealedWith: { keyId: secretKeyId(fixture.secretKey), source: 'DATA_DIR/secret.key', path: keyFile },
  });
  const to = await scratch(SUITE_ENGINE);
  const otherKey = 'another-secret-key-that-is-long-enough-000000';

  const wrong = await refusal(
    restoreBackup({ file, session: to.session, keys: { current: otherKey, previous: null, currentName: 'SECRET_KEY' }, release: RELEASE }),
  );
  expect(wrong.reason).toBe('wrong-key');
  expect(wrong.message).toContain(`sealed with the key id ${secretKeyId(fixture.secretKey)}`);
  expect(wrong.message).toContain(`SECRET_KEY (key id ${secretKeyId(otherKey)}) cannot open`);
  expect(wrong.message).toContain(`SECRET_KEY="$(cat ${keyFile})"`);

  const none = await refusal(
    restoreBackup({ file, session: to.session, keys: { current: null, previous: null, currentName: 'SECRET_KEY' }, release: RELEASE }),
  );
  expect(none.reason).toBe('no-key');
  expect(none.message).toContain(keyFile);
  expect(await readTables(to.session.query)).toEqual([]);

  // With the old key as SECRET_KEY_PREVIOUS the values open (start-up then seals them again with the new one).
  await expect(
    restoreBackup({
      file,
      session: to.session,
      keys: { current: otherKey, previous: fixture.secretKey, currentName: 'SECRET_KEY' },
      release: RELEASE,
    }),
  ).resolves.toMatchObject({ rows: expect.any(Number) });
}, 120_000);

test('a backup from a newer release, in a newer format, cut short or altered is refused before anything changes', async () => {
  const from = await source();
  const file = await backupOf(from.session);
  const lines = backupLines(file);
  const header = JSON.parse(lines[0]!) as {
    migrations: Array<{ hash: string; createdAt: number }>;
    level: { level: number };
    release: string;
  };
  const to = await scratch(SUITE_ENGINE);
  const restore = (f: string) => restoreBackup({ file: f, session: to.session, keys, release: RELEASE });
  const variant = (name: string, edited: string[]) => {
    const f = path.join(work, name);
    writeBackupLines(f, edited);
    return f;
  };

  const future = {
    ...header,
    release: '9.0.0',
    migrations: [...header.migrations, { hash: 'x', createdAt: Date.now() + 10 ** 12 }],
    level: { level: header.level.level + 1, tag: null, when: 0 },
  };
  const newer = await refusal(restore(variant('newer.gz', [JSON.stringify(future), ...lines.slice(1)])));
  expect(newer.reason).toBe('newer');
  expect(newer.message).toContain(`made by Tierlink 9.0.0; this is Tierlink ${RELEASE}`);
  expect(newer.message).toContain('Restore it with Tierlink 9.0.0 or later');

  const format = { ...header, formatVersion: BACKUP_FORMAT_VERSION + 1 };
  await expect(restore(variant('format.gz', [JSON.stringify(format), ...lines.slice(1)]))).rejects.toThrow(BackupFileError);
  await expect(restore(variant('no-end.gz', lines.slice(0, -1)))).rejects.toThrow(/cut short/);
  const rowAt = lines.findIndex((l) => l.startsWith('{"r":'));
  await expect(restore(variant('lost-row.gz', [...lines.slice(0, rowAt), ...lines.slice(rowAt + 1)]))).rejects.toThrow(
    /announces \d+ rows and holds/,
  );
  const bytes = fs.readFileSync(file);
  const truncated = path.join(work, 'truncated.gz');
  fs.writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
  await expect(restore(truncated)).rejects.toThrow(BackupFileError);
  const notABackup = path.join(work, 'package.json.gz');
  writeBackupLines(notABackup, ['{"name":"tierlink"}']);
  await expect(restore(notABackup)).rejects.toThrow(/is not a complete Tierlink backup: its first line is not a backup header/);

  expect(await readTables(to.session.query)).toEqual([]);
}, 120_000);

(onPostgres() ? test : test.skip)(
  'PostgreSQL: the backup is one snapshot; rows committed while it runs are not in it, and the writer never waits',
  async () => {
    const from = await source();
    const writer = new Client({ connectionString: from.url });
    await writer.connect();
    const file = path.join(work, 'snapshot.jsonl.gz');
    let wrote = false;
    try {
      await writeBackup(from.session, file, {
        release: RELEASE,
        sealedWith,
        onTable: async (table) => {
          if (table !== 'app_state' || wrote) return;
          wrote = true;
          // A later table, written and committed by another connection while the backup reads.
          await writer.query(
            `insert into role_grants (guild_id, discord_user_id, role_id, kind, reason) values ('1', '2', '3', 'tier', 'during the backup')`,
          );
          await writer.query(`update app_state set value = '"changed during the backup"'::jsonb`);
        },
      });
    } finally {
      await writer.end();
    }
    expect(wrote).toBe(true);
    const text = backupLines(file).join('\n');
    expect(text).not.toContain('during the backup');
    expect(text).not.toContain('changed during the backup');
    expect(text).toContain('"key": "gateway-plan"');
  },
  120_000,
);

test('the embedded database of a running process is copied while it writes: the copy opens, holds only whole transactions, and loses none committed before', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-snapshot-'));
  const database = await openDatabase({ engine: 'pglite', dataDir, logger: silentLogger });
  try {
    await database.migrate();
    let written = 0;
    let stop = false;
    // Each transaction writes a pair of rows in two tables. A copy with half a pair would be torn.
    const writing = (async () => {
      while (!stop) {
        const n = written;
        await database.db.transaction(async (tx) => {
          await tx.execute(sql`insert into app_state (key, value) values (${`pair-${n}`}, ${JSON.stringify(n)}::jsonb)`);
          await tx.execute(
            sql`insert into audit_log (guild_id, discord_user_id, role_id, action, outcome, trigger, reason) values ('g', ${String(n)}, 'r', 'add', 'applied', 'pair', 'r')`,
          );
        });
        written += 1;
        // PGlite answers without leaving the microtask queue: let timers and the snapshot in.
        await new Promise((r) => setImmediate(r));
      }
    })();
    await new Promise((r) => setTimeout(r, 300));
    const before = written;
    const copy = await database.snapshot!();
    expect(path.relative(dataDir, copy)).toMatch(/^snapshots\/[^/]+\/pglite$/);
    stop = true;
    await writing;
    const session = await openPgliteSession(copy);
    try {
      const [state] = await session.query<{ n: number }>(`select count(*)::int as n from app_state where key like 'pair-%'`);
      const [audit] = await session.query<{ n: number }>(`select count(*)::int as n from audit_log where trigger = 'pair'`);
      expect(state!.n).toBe(audit!.n);
      expect(state!.n).toBeGreaterThanOrEqual(before);
      expect(state!.n).toBeLessThanOrEqual(written);
      expect(before).toBeGreaterThan(0);
    } finally {
      await session.close();
    }
  } finally {
    await database.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}, 120_000);

test('a database that only `npm run migrate` touched counts as empty: the restore loads into it', async () => {
  const from = await source();
  const file = await backupOf(from.session);
  const to = await scratch(SUITE_ENGINE);
  await to.session.migrate(MIGRATIONS_FOLDER);
  await recordRelease(to.session.query, '0.1.9');

  await expect(restoreBackup({ file, session: to.session, keys, release: RELEASE })).resolves.toMatchObject({ rows: expect.any(Number) });
  expect(await to.session.query(`select value->>'version' as version from app_state where key = 'release'`)).toEqual([
    { version: RELEASE },
  ]);
}, 120_000);
