import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { standInEnvironment } from '@tierlink/sandbox';
import { type DiscordSandbox, createDiscordSandbox } from '@tierlink/sandbox/discord';
import { type MembershipServiceSandbox, createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { type ScratchPostgres, createScratchPostgres } from '../../bench/scratch-database';
import { openDatabase, queryRows } from '../../src/edges/outbound/store/database';
import { silentLogger } from '../../src/shared/logger';
import { type ServiceProcess, freePort, startServiceProcess } from '../support/service-process';
import { onPostgres } from '../support/test-database';

/**
 * Attack (on the ledger rule, docs/decisions.md §3): the process dies after Discord applied a paid
 * role and before Tierlink learned it. A real `npm start` process grants a role; Discord applies it
 * and its answer never arrives (held by the stand-in); the process is killed (SIGKILL) while it
 * waits. Refusal of the orphan: after a restart the grant is in the ledger, and when the pledge
 * ends the role is removed.
 */

const ROLE_ROUTE = '/guilds/:g/members/:u/roles/:r';
const SECRET_KEY = 'crash-test-secret-key-that-is-long-enough-1';

let patreon: MembershipServiceSandbox;
let discord: DiscordSandbox;
let dataDir: string;
let scratch: ScratchPostgres | null = null;
const children: ServiceProcess[] = [];

beforeAll(async () => {
  patreon = await createMembershipServiceSandbox();
  discord = await createDiscordSandbox({ botPublic: false });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-crash-'));
  if (onPostgres()) scratch = await createScratchPostgres(process.env.DATABASE_URL!, 'tierlink_test');
});

afterAll(async () => {
  for (const c of children) c.child.kill('SIGKILL');
  await Promise.all(children.map((c) => c.exited));
  await discord.close();
  await patreon.close();
  await scratch?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The ledger's rows, read while no service holds the database (the embedded one allows one process). */
async function ledger(): Promise<Array<{ discord_user_id: string; role_id: string }>> {
  const database = scratch
    ? await openDatabase({ engine: 'postgres', url: scratch.url, logger: silentLogger, poolSize: 1 })
    : await openDatabase({ engine: 'pglite', dataDir, logger: silentLogger });
  try {
    return await queryRows(database.db, sql`select discord_user_id, role_id from role_grants order by role_id`);
  } finally {
    await database.close();
  }
}

test('killed between the grant and its record, then restarted: the grant is in the ledger and the role goes when the pledge ends', async () => {
  const { guildId } = discord.createGuild({ name: 'Crash Club', ownerId: '100000000000000099' });
  const gold = discord.createRole(guildId, { name: 'Gold', position: 1 }).id;
  const tier = patreon.createTier(patreon.campaignId, { title: 'Gold', amountCents: 1000, chatRoleIds: [gold] }).id;
  const member = discord.addMember(guildId, { username: 'patty' }).userId;
  // Her service profile names her Discord account: the webhook links her, no browser involved.
  const patron = patreon.createUser({ fullName: 'Patty Patron', discordUserId: member });
  const env = {
    ...standInEnvironment(patreon, discord, guildId),
    PORT: String(await freePort()),
    DATA_DIR: dataDir,
    SECRET_KEY,
    PATREON_CREATOR_ACCESS_TOKEN: patreon.creatorTokens.accessToken,
    PATREON_CREATOR_REFRESH_TOKEN: patreon.creatorTokens.refreshToken,
    LOG_LEVEL: 'info',
    ...(scratch ? { DATABASE_URL: scratch.url } : {}),
  };

  const first = startServiceProcess(env, dataDir);
  children.push(first);
  await first.running();
  await first.logged('registered the campaign webhook');

  // Discord applies the grant; its answer never reaches the process.
  const hold = discord.holdRequests({ method: 'PUT', route: ROLE_ROUTE, point: 'after' });
  patreon.setMembership(patron.id, patreon.campaignId, {
    patronStatus: 'active_patron',
    tierIds: [tier],
    lastChargeDate: new Date(),
    lastChargeStatus: 'Paid',
  });
  await hold.waitForHeld(1, 90_000);
  expect(discord.memberRoles(guildId, member)).toEqual([gold]);
  first.child.kill('SIGKILL');
  expect(await first.exited).toBeNull();
  hold.release();

  // The grant was recorded before its request: the ledger holds it, although the answer never came.
  expect(await ledger()).toEqual([{ discord_user_id: member, role_id: gold }]);

  const second = startServiceProcess(env, dataDir);
  children.push(second);
  await second.running();
  await second.logged('creator connected from the environment');
  patreon.setMembership(patron.id, patreon.campaignId, { patronStatus: 'former_patron', tierIds: [] });
  await discord.waitForMemberRole(guildId, member, gold, { present: false, timeoutMs: 90_000 });
  const removal = discord.roleEvents().find((e) => e.op === 'remove' && e.userId === member);
  expect(removal).toMatchObject({ roleId: gold, via: 'rest' });

  second.child.kill('SIGTERM');
  expect(await second.exited).toBe(0);
  expect(await ledger()).toEqual([]);
}, 300_000);
