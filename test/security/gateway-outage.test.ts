import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { standInEnvironment } from '@tierlink/sandbox';
import { type DiscordSandbox, createDiscordSandbox } from '@tierlink/sandbox/discord';
import { type MembershipServiceSandbox, createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { type ScratchPostgres, createScratchPostgres } from '../../bench/scratch-database';
import { type E2E, startE2E } from '../support/e2e';
import { eventually } from '../support/instances';
import { type ServiceProcess, freePort, startServiceProcess } from '../support/service-process';
import { type TcpProxy, createTcpProxy } from '../support/tcp-proxy';
import { onPostgres } from '../support/test-database';

/**
 * Fault: the database or Discord's gateway goes away for a while and comes back. Refusal of a deaf
 * bot: afterwards every shard this instance holds has a gateway session again within 30 s (or is
 * handed over), and while one has none the instance says so (`/healthz` 503, `/doctor`).
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Health = { ok: boolean; checks: { discordGateway?: { ok: boolean; detail: string; shards?: number[]; withoutSession?: number[] } } };

describe('a database outage of 11 s (PostgreSQL behind a proxy the test cuts; a real `npm start` process)', () => {
  let patreon: MembershipServiceSandbox;
  let discord: DiscordSandbox;
  let dataDir: string;
  let scratch: ScratchPostgres;
  let proxy: TcpProxy;
  let service: ServiceProcess | undefined;
  const pgTest = onPostgres() ? test : test.skip;

  beforeAll(async () => {
    if (!onPostgres()) return;
    patreon = await createMembershipServiceSandbox();
    discord = await createDiscordSandbox({ botPublic: false });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-blip-'));
    scratch = await createScratchPostgres(process.env.DATABASE_URL!, 'tierlink_test');
    const url = new URL(scratch.url);
    proxy = await createTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
  });
  afterAll(async () => {
    if (!onPostgres()) return;
    service?.child.kill('SIGKILL');
    await service?.exited;
    await proxy.close();
    await discord.close();
    await patreon.close();
    await scratch.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  pgTest(
    'the gateway session closed while the leases could not be renewed is open again within 30 s of the database’s return, and commands are answered',
    async () => {
      const ownerId = '100000000000000099';
      const { guildId } = discord.createGuild({ name: 'Blip Club', ownerId });
      const member = discord.addMember(guildId, { username: 'blip' }).userId;
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
          LOG_LEVEL: 'info',
        },
        dataDir,
      );
      const url = await service.running();
      await discord.waitForConnection({ timeoutMs: 30_000 });

      proxy.cut();
      // Past 60 % of the 15 s lease without a renewal, the instance closes its session (another
      // instance could take the shard once the lease expires)…
      await service.logged('the shard leases could not be renewed; closing the sessions before they expire', 20_000);
      await sleep(Math.max(0, 11_000 - 9_000));
      expect(discord.gatewaySessions().filter((s) => s.connected)).toEqual([]);
      // …and the database is back before the lease expired: the lease is renewed, and is still this instance's.
      proxy.restore();
      const back = Date.now();
      await eventually('a connected gateway session', () => discord.gatewaySessions().some((s) => s.connected), 30_000);
      console.log(`database back → gateway session connected again: ${Date.now() - back} ms`);
      expect(Date.now() - back).toBeLessThan(30_000);

      const { interactionId } = discord.injectCommand({ guildId, userId: member, name: 'status' });
      const answer = await discord.waitForInteractionResponse(interactionId, { final: true, timeoutMs: 15_000 });
      expect(answer.data).not.toBeNull();
      await eventually('healthy', async () => (await fetch(`${url}/healthz`)).status === 200, 15_000);
      const health = (await (await fetch(`${url}/healthz`)).json()) as Health;
      expect(health.checks.discordGateway).toMatchObject({ ok: true, shards: [0] });
      expect(service.lines.some((l) => l.msg === 'gateway shard held without a session: opening it again')).toBe(true);
    },
    180_000,
  );
});

describe('an outage of Discord’s gateway (both databases, in-process)', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E({ connected: true });
  }, 60_000);
  afterAll(() => e?.stop());

  test('while the session is away, /healthz is 503 and names the shard, /doctor too; once Discord is back the session is within 30 s', async () => {
    await e.discord.waitForConnection({ timeoutMs: 10_000 });
    const healthz = async (headers: Record<string, string> = {}) => {
      const res = await fetch(`${e.url}/healthz`, { headers });
      return { status: res.status, body: (await res.json()) as Health };
    };
    expect((await healthz()).status).toBe(200);

    e.discord.setGatewayAvailable(false);
    try {
      // A moment without a session is a reconnection; past 10 s it is an outage this instance owns.
      await eventually('/healthz 503', async () => (await healthz()).status === 503, 30_000, 500);
      const down = await healthz();
      expect(down.body.ok).toBe(false);
      expect(down.body.checks.discordGateway).toMatchObject({ ok: false, withoutSession: [0] });
      expect(down.body.checks.discordGateway!.detail).toMatch(/^shard 0 has had no session for \d+ s: this instance holds its lease/);
      // The public answer says the same, without detail.
      expect(await healthz({ 'X-Forwarded-For': '203.0.113.9' })).toEqual({ status: 503, body: { ok: false } });
      const checks = await e.tierlink.services.admin.doctor.run(e.guildId);
      expect(checks.find((c) => c.name === 'Discord gateway')).toMatchObject({
        ok: false,
        detail: expect.stringContaining('shard 0 (this server’s) is held by the instance on'),
      });
    } finally {
      e.discord.setGatewayAvailable(true);
    }
    const back = Date.now();
    await eventually('connected again', () => e.discord.gatewaySessions().some((s) => s.connected), 30_000);
    await eventually('/healthz 200', async () => (await healthz()).status === 200, 30_000 - (Date.now() - back));
    console.log(`gateway back → /healthz 200: ${Date.now() - back} ms`);
    const reply = await e.command(e.discord.addMember(e.guildId, { username: 'after' }).userId, 'status');
    expect(reply.content).not.toBe('');
    await eventually(
      '/doctor sees the session',
      async () => (await e.tierlink.services.admin.doctor.run(e.guildId)).find((c) => c.name === 'Discord gateway')?.ok === true,
      5_000,
    );
  }, 120_000);
});
