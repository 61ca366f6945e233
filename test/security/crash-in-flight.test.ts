import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { standInEnvironment } from '@tierlink/sandbox';
import { type DiscordSandbox, createDiscordSandbox } from '@tierlink/sandbox/discord';
import { type MembershipServiceSandbox, createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { type ServiceProcess, freePort, startServiceProcess } from '../support/service-process';
import { onPostgres } from '../support/test-database';

/**
 * Fault: the one process on the embedded database is killed while it works a webhook delivery (its
 * role request on the way to Discord). The row's lease (2 minutes) is there for other instances,
 * and the embedded database has none: the next start takes the delivery up at once instead of
 * leaving the member without their new role for two minutes. (PGlite only: on PostgreSQL another
 * instance may still be working it, so its lease is waited out.)
 */

const ROLE_ROUTE = '/guilds/:g/members/:u/roles/:r';
const pgliteTest = onPostgres() ? test.skip : test;

let patreon: MembershipServiceSandbox;
let discord: DiscordSandbox;
let dataDir: string;
const children: ServiceProcess[] = [];

beforeAll(async () => {
  patreon = await createMembershipServiceSandbox();
  discord = await createDiscordSandbox({ botPublic: false });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-inflight-'));
});

afterAll(async () => {
  for (const c of children) c.child.kill('SIGKILL');
  await Promise.all(children.map((c) => c.exited));
  await discord.close();
  await patreon.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

pgliteTest(
  'killed while a delivery is in flight, the next start works it at once, not after its two-minute lease',
  async () => {
    const { guildId } = discord.createGuild({ name: 'Flight Club', ownerId: '100000000000000099' });
    const gold = discord.createRole(guildId, { name: 'Gold', position: 1 }).id;
    const tier = patreon.createTier(patreon.campaignId, { title: 'Gold', amountCents: 1000, chatRoleIds: [gold] }).id;
    const member = discord.addMember(guildId, { username: 'flo' }).userId;
    const patron = patreon.createUser({ fullName: 'Flo Flight', discordUserId: member });
    const env = {
      ...standInEnvironment(patreon, discord, guildId),
      PORT: String(await freePort()),
      DATA_DIR: dataDir,
      SECRET_KEY: 'inflight-test-secret-key-that-is-long-enough',
      PATREON_CREATOR_ACCESS_TOKEN: patreon.creatorTokens.accessToken,
      PATREON_CREATOR_REFRESH_TOKEN: patreon.creatorTokens.refreshToken,
      LOG_LEVEL: 'info',
    };
    const first = startServiceProcess(env, dataDir);
    children.push(first);
    await first.running();
    await first.logged('registered the campaign webhook');

    // The grant is on its way to Discord (not applied yet) when the process dies.
    const hold = discord.holdRequests({ method: 'PUT', route: ROLE_ROUTE, point: 'before' });
    patreon.setMembership(patron.id, patreon.campaignId, {
      patronStatus: 'active_patron',
      tierIds: [tier],
      lastChargeDate: new Date(),
      lastChargeStatus: 'Paid',
    });
    await hold.waitForHeld(1, 90_000);
    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    expect(discord.memberRoles(guildId, member)).toEqual([]);

    const second = startServiceProcess(env, dataDir);
    children.push(second);
    await second.running();
    const runningAt = Date.now();
    await discord.waitForMemberRole(guildId, member, gold, { present: true, timeoutMs: 60_000 });
    const waitedMs = Date.now() - runningAt;
    console.log(`restart → the in-flight delivery's role granted: ${waitedMs} ms`);
    expect(waitedMs).toBeLessThan(30_000);
    expect(second.lines.some((l) => l.msg === 'work the previous process left in flight is taken up again now')).toBe(true);
    hold.release();
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  },
  240_000,
);
