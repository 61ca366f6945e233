import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { signWebhookBody } from '../../src/app/webhooks/verify-signature';
import { standInEnvironment } from '@tierlink/sandbox';
import { type DiscordSandbox, createDiscordSandbox } from '@tierlink/sandbox/discord';
import { type MembershipServiceSandbox, createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { type ScratchPostgres, createScratchPostgres } from '../../bench/scratch-database';
import { type ServiceProcess, freePort, startServiceProcess } from '../support/service-process';
import { type TcpProxy, createTcpProxy } from '../support/tcp-proxy';
import { onPostgres } from '../support/test-database';

/**
 * Attack: take the database away right after a delivery is accepted (and while someone types in
 * /map's autocomplete). Refusal of the crash: a real `npm start` process, its PostgreSQL behind a
 * proxy that the test cuts, logs the failures, keeps serving, keeps the delivery queued and works
 * it once the database is back. (PostgreSQL only: the embedded database cannot go away on its own.)
 */

const ROLE_ROUTE = '/guilds/:g/members/:u/roles/:r';
const OWNER = '100000000000000099';
const MANAGE_ROLES = 1n << 28n;

let patreon: MembershipServiceSandbox;
let discord: DiscordSandbox;
let dataDir: string;
let scratch: ScratchPostgres;
let proxy: TcpProxy;
let service: ServiceProcess | undefined;

(onPostgres() ? describe : describe.skip)('a database outage during a delivery (PostgreSQL)', () => {
  beforeAll(async () => {
    patreon = await createMembershipServiceSandbox();
    discord = await createDiscordSandbox({ botPublic: false });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-outage-'));
    scratch = await createScratchPostgres(process.env.DATABASE_URL!, 'tierlink_test');
    const url = new URL(scratch.url);
    proxy = await createTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
  });
  afterAll(async () => {
    service?.child.kill('SIGKILL');
    await service?.exited;
    await proxy.close();
    await discord.close();
    await patreon.close();
    await scratch.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function inbox(): Promise<Array<{ status: string; attempts: number }>> {
    const client = new Client({ connectionString: scratch.url });
    await client.connect();
    try {
      return (await client.query<{ status: string; attempts: number }>('select status, attempts from webhook_inbox order by id')).rows;
    } finally {
      await client.end();
    }
  }

  test('the process logs, keeps serving and keeps the delivery queued; once the database is back the delivery is worked', async () => {
    const { guildId } = discord.createGuild({ name: 'Outage Club', ownerId: OWNER });
    const gold = discord.createRole(guildId, { name: 'Gold', position: 1 }).id;
    const tier = patreon.createTier(patreon.campaignId, { title: 'Gold', amountCents: 1000, chatRoleIds: [gold] }).id;
    const member = discord.addMember(guildId, { username: 'olga' }).userId;
    const patron = patreon.createUser({ fullName: 'Olga Outage', discordUserId: member });
    const viaProxy = new URL(scratch.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    service = startServiceProcess(
      {
        ...standInEnvironment(patreon, discord, guildId),
        PORT: String(await freePort()),
        DATA_DIR: dataDir,
        DATABASE_URL: viaProxy.toString(),
        SECRET_KEY: 'outage-test-secret-key-that-is-long-enough',
        PATREON_CREATOR_ACCESS_TOKEN: patreon.creatorTokens.accessToken,
        PATREON_CREATOR_REFRESH_TOKEN: patreon.creatorTokens.refreshToken,
        LOG_LEVEL: 'info',
      },
      dataDir,
    );
    const url = await service.running();
    await service.logged('registered the campaign webhook');

    // The delivery is accepted and stored; its grant reaches Discord, whose answer waits…
    const hold = discord.holdRequests({ method: 'PUT', route: ROLE_ROUTE, point: 'after' });
    patreon.setMembership(patron.id, patreon.campaignId, {
      patronStatus: 'active_patron',
      tierIds: [tier],
      lastChargeDate: new Date(),
      lastChargeStatus: 'Paid',
    });
    await hold.waitForHeld(1, 90_000);
    // …while the database goes away.
    proxy.cut();
    hold.release();
    await service.logged((l) => l.msg === 'queue bookkeeping failed' || l.msg === 'queued item failed; will retry');

    // /map autocomplete while the database is away: an empty list, not a crash.
    const { interactionId } = discord.injectCommand({
      guildId,
      userId: OWNER,
      name: 'map',
      options: [{ name: 'tier', type: 3, value: 'go' }],
      focused: 'tier',
      memberPermissions: MANAGE_ROLES,
    });
    const suggestions = await discord.waitForInteractionResponse(interactionId, { timeoutMs: 10_000 });
    expect(suggestions.data?.choices).toEqual([]);

    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(503);

    // A delivery while the database is away is not at fault: 503 with Retry-After, never 500.
    const [webhook] = patreon.webhooks();
    const delivery = JSON.stringify({ data: { type: 'member', id: 'outage-member', attributes: {} } });
    const answer = await fetch(`${url}/webhooks/patreon`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-Patreon-Event': 'members:update',
        'X-Patreon-Signature': signWebhookBody(webhook!.secret, delivery),
      },
      body: delivery,
    });
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('30');

    proxy.restore();
    for (let i = 0; i < 100 && (await fetch(`${url}/healthz`)).status !== 200; i++) await new Promise((r) => setTimeout(r, 200));
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(await inbox()).toEqual([{ status: 'pending', attempts: 1 }]);

    // The lease of the failed attempt runs out (2 minutes; moved forward here) and the sweep works it.
    const client = new Client({ connectionString: scratch.url });
    await client.connect();
    await client.query(`update webhook_inbox set locked_until = now() - interval '1 second', run_at = now() - interval '1 second'`);
    await client.end();
    for (let i = 0; i < 100 && (await inbox())[0]?.status !== 'done'; i++) await new Promise((r) => setTimeout(r, 200));
    expect(await inbox()).toEqual([{ status: 'done', attempts: 2 }]);
    expect(discord.memberRoles(guildId, member)).toEqual([gold]);

    expect(service.lines.some((l) => /nothing handled it/.test(String(l.msg)))).toBe(false);
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  }, 300_000);
});
