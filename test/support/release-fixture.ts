import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Client } from 'pg';
import { createScratchPostgres } from '../../bench/scratch-database';
import { type Database, PGLITE_CONF, openDatabase } from '../../src/edges/outbound/store/database';
import { createRepositories } from '../../src/edges/outbound/store/repositories';
import { createSecretBox } from '../../src/edges/outbound/store/secret-box';
import { silentLogger } from '../../src/shared/logger';

/**
 * The database that release 0.1.0's own code wrote (test/fixtures/release-0.1.0: a pg_dump, the
 * script that made it, and what it holds), loaded into an empty database of the engine the suite
 * runs on, and the checks that its data is all there.
 */

export const RELEASE_0_1_0 = path.join(__dirname, '..', 'fixtures', 'release-0.1.0');

export interface ReleaseFixture {
  secretKey: string;
  guildId: string;
  campaignId: string;
  creatorUserId: string;
  tiers: Record<'bronze' | 'silver' | 'gold', string>;
  roles: Record<string, string>;
  /** Discord user → Patreon user. */
  links: Record<string, string>;
  /** Discord user → the role ids Tierlink granted them. */
  grants: Record<string, string[]>;
  settings: { graceDays: number; formerPatronRoleId: string };
  mapping: { tierId: string; roleId: string };
}

export function releaseFixture(): ReleaseFixture {
  return JSON.parse(fs.readFileSync(path.join(RELEASE_0_1_0, 'expected.json'), 'utf8')) as ReleaseFixture;
}

/** The dump as SQL any client runs: psql's meta-commands (`\restrict`, `\unrestrict`) are not SQL. */
export function releaseFixtureSql(): string {
  return fs
    .readFileSync(path.join(RELEASE_0_1_0, 'database.sql'), 'utf8')
    .split('\n')
    .filter((line) => !line.startsWith('\\'))
    .join('\n');
}

export interface LoadedFixture {
  database: Database;
  /** The PostgreSQL database's address, on PostgreSQL. */
  url: string | undefined;
  close(): Promise<void>;
}

/**
 * The dump loaded into an empty database, not migrated further: an in-memory PGlite, or (with
 * DATABASE_URL) a PostgreSQL database created for it and dropped on close.
 */
export async function loadReleaseFixture(): Promise<LoadedFixture> {
  const script = releaseFixtureSql();
  const adminUrl = process.env.DATABASE_URL;
  if (adminUrl) {
    const scratch = await createScratchPostgres(adminUrl, 'tierlink_release');
    const loader = new Client({ connectionString: scratch.url });
    await loader.connect();
    try {
      await loader.query(script);
    } finally {
      await loader.end();
    }
    const database = await openDatabase({ engine: 'postgres', url: scratch.url, logger: silentLogger, poolSize: 3 });
    return {
      database,
      url: scratch.url,
      close: async () => {
        await database.close();
        await scratch.drop();
      },
    };
  }
  const loader = new PGlite({ postgresqlconf: PGLITE_CONF });
  await loader.exec(script);
  const from = await loader.dumpDataDir('none');
  await loader.close();
  const database = await openDatabase({ engine: 'pglite-memory', logger: silentLogger, from });
  return { database, url: undefined, close: () => database.close() };
}

/**
 * Everything release 0.1.0 stored is there, read through today's repositories: the links, the
 * ledger of grants, the settings, the `/map` row, the binding, and the sealed creator tokens and
 * webhook secret, which open with the key of the install that sealed them.
 */
export async function expectReleaseFixtureData(database: Database, expected: ReleaseFixture = releaseFixture()): Promise<void> {
  const repos = createRepositories(database.db, createSecretBox(expected.secretKey));
  for (const [discordUserId, patreonUserId] of Object.entries(expected.links)) {
    // Release 0.1.0 knew only Patreon: every link it made is a Patreon link after the upgrade.
    expect(await repos.links.byExternal('patreon', patreonUserId)).toMatchObject({ discordUserId, source: 'patreon' });
  }
  expect(await repos.links.count()).toBe(Object.keys(expected.links).length);
  for (const [discordUserId, roleIds] of Object.entries(expected.grants)) {
    const granted = (await repos.ledger.forUser(expected.guildId, discordUserId)).map((g) => g.roleId).sort();
    expect(granted).toEqual([...roleIds].sort());
  }
  expect(await repos.guilds.settings(expected.guildId)).toMatchObject(expected.settings);
  expect(await repos.mappings.of(expected.guildId)).toEqual([expect.objectContaining(expected.mapping)]);
  expect(await repos.guilds.campaignsOf(expected.guildId)).toEqual([expected.campaignId]);
  const tokens = await repos.credentials.load(expected.creatorUserId);
  expect(tokens).toMatchObject({ accessToken: expect.stringMatching(/.{8,}/), refreshToken: expect.stringMatching(/.{8,}/) });
  const unreadable: string[] = [];
  const secrets = await repos.webhooks.secrets((webhookId) => unreadable.push(webhookId));
  expect(unreadable).toEqual([]);
  expect(secrets).toEqual([expect.objectContaining({ campaignId: expected.campaignId, secret: expect.stringMatching(/.{8,}/) })]);
}
