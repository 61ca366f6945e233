import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { standInEnvironment } from '@tierlink/sandbox';
import { DISCORD_RATE_LIMITS, type DiscordSandbox, createDiscordSandbox } from '@tierlink/sandbox/discord';
import { type MembershipServiceSandbox, createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { packageRoot } from '../../src/edges/outbound/store/package-root';
import { repositories } from '../support/service-fixtures';
import { type TestDatabase, createTestDatabase, onPostgres } from '../support/test-database';
import { SECRET_KEY } from '../support/world';

/**
 * Several Tierlink processes (`npm start`) on one PostgreSQL behind a load balancer, against the
 * Discord stand-in with Discord's own limits (50 requests per second per bot, 10 member-role
 * requests per 10 s per guild): they share one request budget, so together they never exceed it.
 */
const startJs = path.join(packageRoot(), 'dist/src/cli/start.js');
const GUILDS = 30;
const PATRONS = 20;

interface Instance {
  child: ChildProcess;
  port: number;
  exited: Promise<number | null>;
}

function startInstance(env: Record<string, string>, dataDir: string): Promise<Instance> {
  const child = spawn(process.execPath, [startJs], { env: { PATH: process.env.PATH ?? '', ...env, DATA_DIR: dataDir }, cwd: dataDir });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let port = 0;
    let buffered = '';
    let log = '';
    const timer = setTimeout(() => reject(new Error(`instance did not start:\n${log.slice(-3000)}`)), 60_000);
    const onLine = (line: string) => {
      log += `${line}\n`;
      if (process.env.INSTANCE_LOG_DIR) fs.appendFileSync(path.join(process.env.INSTANCE_LOG_DIR, `${child.pid}.log`), `${line}\n`);
      let entry: { msg?: string; port?: number };
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        return;
      }
      if (entry.msg === 'web server listening' && typeof entry.port === 'number') port = entry.port;
      if (entry.msg === 'Tierlink is running') {
        if (port > 0) {
          clearTimeout(timer);
          resolve({ child, port, exited });
        }
      }
    };
    for (const stream of [child.stdout!, child.stderr!]) {
      stream.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        lines.forEach(onLine);
      });
    }
    void exited.then((code) => reject(new Error(`instance exited with ${code}:\n${log.slice(-3000)}`)));
  });
}

/** A round-robin load balancer in front of the instances; counts what each was given. */
async function loadBalancer(targets: () => number[]) {
  const served: number[] = [];
  let next = 0;
  const server = http.createServer((req, res) => {
    const ports = targets();
    const index = next++ % ports.length;
    served[index] = (served[index] ?? 0) + 1;
    const upstream = http.request(
      { host: '127.0.0.1', port: ports[index], path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The role grants an instance counted (`/metrics`, served to this machine). */
async function grantsCounted(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const match = /^tierlink_role_changes_total\{kind="add",outcome="applied"\} (\d+)$/m.exec(text);
  return match ? Number(match[1]) : 0;
}

let patreon: MembershipServiceSandbox;
let discord: DiscordSandbox;
let db: TestDatabase;
const instances: Instance[] = [];
const dirs: string[] = [];

afterAll(async () => {
  for (const i of instances) i.child.kill('SIGTERM');
  await Promise.all(instances.map((i) => i.exited));
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  await discord?.close();
  await patreon?.close();
  await db?.close();
});

(onPostgres() ? test : test.skip)(
  `three instances on one PostgreSQL grant ${GUILDS * PATRONS} roles in ${GUILDS} servers with Discord's own limits, and Discord answers no 429 (PostgreSQL only: the embedded database runs one process)`,
  async () => {
    patreon = await createMembershipServiceSandbox();
    discord = await createDiscordSandbox({ rateLimits: DISCORD_RATE_LIMITS });
    db = await createTestDatabase();
    const guilds = Array.from({ length: GUILDS }, (_, i) => {
      const { guildId } = discord.createGuild({ name: `Server ${i}` });
      return { guildId, gold: discord.createRole(guildId, { name: 'Gold', position: 1 }).id };
    });
    const tier = patreon.createTier(patreon.campaignId, { title: 'Gold', amountCents: 1000, chatRoleIds: guilds.map((g) => g.gold) }).id;

    const ports: number[] = [];
    const balancer = await loadBalancer(() => ports);
    // The creator's campaign bound to all thirty servers by the environment.
    const { DISCORD_GUILD_ID: _one, ...stands } = standInEnvironment(patreon, discord);
    const env = {
      ...stands,
      DISCORD_GUILD_IDS: guilds.map((g) => g.guildId).join(','),
      DATABASE_URL: db.url!,
      SECRET_KEY,
      PUBLIC_URL: balancer.url,
      LOG_LEVEL: process.env.INSTANCE_LOG_LEVEL ?? 'info',
      PATREON_CREATOR_ACCESS_TOKEN: patreon.creatorTokens.accessToken,
      PATREON_CREATOR_REFRESH_TOKEN: patreon.creatorTokens.refreshToken,
    };
    try {
      // The first binds the campaign and registers the webhook (on the balancer's address); then the others.
      for (let i = 0; i < 3; i++) {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-instance-'));
        dirs.push(dir);
        const instance = await startInstance(env, dir);
        instances.push(instance);
        ports.push(instance.port);
      }

      const repos = repositories(db.database.db);
      const patrons: Array<{ patreonUserId: string; discordUserId: string }> = [];
      for (let n = 0; n < PATRONS; n++) {
        const user = patreon.createUser({ fullName: `Patron ${n}` });
        const discordUserId = discord.createUser({ username: `patron${n}` }).id;
        for (const g of guilds) discord.addMember(g.guildId, { userId: discordUserId, username: `patron${n}` });
        await repos.links.linkOauth('patreon', discordUserId, user.id, new Date());
        patrons.push({ patreonUserId: user.id, discordUserId });
      }
      discord.resetRequests();

      // Every patron pledges Gold: one webhook each, spread over the instances by the balancer.
      for (const p of patrons) {
        patreon.setMembership(
          p.patreonUserId,
          patreon.campaignId,
          { patronStatus: 'active_patron', tierIds: [tier], lastChargeStatus: 'Paid', lastChargeDate: new Date() },
          { deliver: true },
        );
      }
      const granted = () =>
        patrons.reduce((n, p) => n + guilds.filter((g) => discord.memberRoles(g.guildId, p.discordUserId).includes(g.gold)).length, 0);
      for (let i = 0; i < 1_200 && granted() < GUILDS * PATRONS; i++) await new Promise((r) => setTimeout(r, 100));

      expect(granted()).toBe(GUILDS * PATRONS);
      expect(discord.rateLimitHits()).toEqual([]);
      const roleRequests = discord.requests().filter((r) => r.route === 'PUT /guilds/:g/members/:u/roles/:r');
      expect(roleRequests).toHaveLength(GUILDS * PATRONS);
      // Each instance did its share of the work: it was given deliveries, and sent role requests of its own.
      expect(balancer.served.filter((n) => n > 0)).toHaveLength(3);
      const granteds = await Promise.all(instances.map((i) => grantsCounted(i.port)));
      expect(granteds.every((n) => n > 0)).toBe(true);
      expect(granteds.reduce((a, b) => a + b, 0)).toBe(GUILDS * PATRONS);
    } finally {
      await balancer.close();
    }
  },
  240_000,
);
