import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type DiscordSandbox, type GatewaySettings, createDiscordSandbox } from '@tierlink/sandbox/discord';
import { type MembershipServiceSandbox, createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { standInEnvironment } from '@tierlink/sandbox';
import { packageRoot } from '../../src/edges/outbound/store/package-root';
import { E2E_SECRET_KEY } from './e2e';
import { type TestDatabase, createTestDatabase } from './test-database';

const startJs = path.join(packageRoot(), 'dist/src/cli/start.js');

type LogLine = Record<string, unknown>;

/** One `npm start` process: its JSON log lines, its address once running, and its exit. */
export interface InstanceProcess {
  name: string;
  child: ChildProcessWithoutNullStreams;
  lines: LogLine[];
  exited: Promise<number | null>;
  /** Resolves with the first log line (past or future) that `test` accepts. */
  logged(test: string | ((line: LogLine) => boolean), timeoutMs?: number): Promise<LogLine>;
  /** The web server's own address (not PUBLIC_URL), once it logged 'web server listening'. */
  url: string;
  /** The shards this instance says it holds (`GET /healthz`, the detailed report on loopback). */
  shards(): Promise<number[]>;
  stderr(): string;
}

/**
 * A round-robin HTTP balancer in front of the instances, as an operator would put one: PUBLIC_URL
 * points at it, so OAuth callbacks, links, webhooks and HTTP interactions reach any instance.
 */
export interface Balancer {
  url: string;
  targets: string[];
  close(): Promise<void>;
}

export async function createBalancer(): Promise<Balancer> {
  let next = 0;
  const balancer: Balancer = { url: '', targets: [], close: async () => undefined };
  const server = http.createServer((req, res) => {
    const live = balancer.targets;
    if (live.length === 0) {
      res.writeHead(502).end('no instance');
      return;
    }
    const target = new URL(live[next++ % live.length]!);
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  balancer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  balancer.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return balancer;
}

/** The stand-ins, a PostgreSQL database, a guild with tier roles, and the environment every instance gets. */
export interface InstancesWorld {
  patreon: MembershipServiceSandbox;
  discord: DiscordSandbox;
  db: TestDatabase;
  balancer: Balancer;
  env: Record<string, string>;
  guildId: string;
  ownerId: string;
  roles: { bronze: string; silver: string; gold: string };
  tiers: { bronze: string; silver: string; gold: string };
  instances: InstanceProcess[];
  start(name: string, extraEnv?: Record<string, string>): InstanceProcess;
  /** Waits until the instance logged 'Tierlink is running' and joins the balancer. */
  running(instance: InstanceProcess): Promise<InstanceProcess>;
  close(): Promise<void>;
}

export async function createInstancesWorld(
  options: {
    gateway?: Partial<GatewaySettings>;
    /** The guild's shard, when the gateway has several. */
    guildShard?: { id: number; count: number };
    env?: Record<string, string>;
  } = {},
): Promise<InstancesWorld> {
  const patreon = await createMembershipServiceSandbox();
  const discord = await createDiscordSandbox({ ...(options.gateway ? { gateway: options.gateway } : {}) });
  const db = await createTestDatabase();
  const balancer = await createBalancer();
  const ownerId = '100000000000000099';
  const { guildId } = discord.createGuild({ name: 'Fan Club', ownerId, ...(options.guildShard ? { shard: options.guildShard } : {}) });
  const role = (name: string) => discord.createRole(guildId, { name, position: 1 }).id;
  const roles = { bronze: role('Bronze'), silver: role('Silver'), gold: role('Gold') };
  const tier = (title: string, amountCents: number, roleId: string) =>
    patreon.createTier(patreon.campaignId, { title, amountCents, chatRoleIds: [roleId] }).id;
  const tiers = {
    bronze: tier('Bronze', 300, roles.bronze),
    silver: tier('Silver', 500, roles.silver),
    gold: tier('Gold', 1000, roles.gold),
  };
  patreon.registerRedirectUri(`${balancer.url}/oauth/callback`);
  discord.registerRedirectUri(`${balancer.url}/discord/callback`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-instances-'));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    ...standInEnvironment(patreon, discord, guildId),
    DATABASE_URL: db.url ?? '',
    SECRET_KEY: E2E_SECRET_KEY,
    PUBLIC_URL: balancer.url,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'debug',
    PATREON_CREATOR_ACCESS_TOKEN: patreon.creatorTokens.accessToken,
    PATREON_CREATOR_REFRESH_TOKEN: patreon.creatorTokens.refreshToken,
    ...options.env,
  };

  const world: InstancesWorld = {
    patreon,
    discord,
    db,
    balancer,
    env,
    guildId,
    ownerId,
    roles,
    tiers,
    instances: [],
    start(name, extraEnv = {}) {
      const instance = spawnInstance(name, { ...env, ...extraEnv }, dataDir);
      world.instances.push(instance);
      void instance.exited.then(() => {
        balancer.targets = balancer.targets.filter((t) => t !== instance.url);
      });
      return instance;
    },
    async running(instance) {
      await instance.logged('Tierlink is running', 90_000);
      balancer.targets = [...balancer.targets, instance.url];
      return instance;
    },
    async close() {
      for (const instance of world.instances) instance.child.kill('SIGKILL');
      await Promise.all(world.instances.map((i) => i.exited));
      await balancer.close();
      await discord.close();
      await patreon.close();
      await db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return world;
}

function spawnInstance(name: string, env: Record<string, string>, cwd: string): InstanceProcess {
  const child = spawn(process.execPath, ['--max-old-space-size=256', startJs], { cwd, env });
  const lines: LogLine[] = [];
  const waiters: Array<{ test: (l: LogLine) => boolean; resolve: (l: LogLine) => void }> = [];
  let buffer = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    for (const part of parts) {
      if (!part.trim()) continue;
      let line: LogLine;
      try {
        line = JSON.parse(part) as LogLine;
      } catch {
        continue;
      }
      lines.push(line);
      if (line.msg === 'web server listening') instance.url = `http://127.0.0.1:${String(line.port)}`;
      for (const w of [...waiters]) {
        if (w.test(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const instance: InstanceProcess = {
    name,
    child,
    lines,
    exited,
    url: '',
    stderr: () => stderr,
    logged(test, timeoutMs = 60_000) {
      const accepts = typeof test === 'string' ? (l: LogLine) => l.msg === test : test;
      const found = lines.find(accepts);
      if (found) return Promise.resolve(found);
      return new Promise<LogLine>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${name}: no such log line within ${timeoutMs} ms\n${stderr}`)), timeoutMs);
        waiters.push({
          test: accepts,
          resolve: (l) => {
            clearTimeout(timer);
            resolve(l);
          },
        });
      });
    },
    async shards() {
      const res = await fetch(`${instance.url}/healthz`);
      const body = (await res.json()) as { checks: { discordGateway?: { shards?: number[] } } };
      return body.checks.discordGateway?.shards ?? [];
    },
  };
  return instance;
}

export { eventually } from './eventually';
