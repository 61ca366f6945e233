import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { standInEnvironment } from '@tierlink/sandbox';
import { type DiscordSandbox, createDiscordSandbox } from '@tierlink/sandbox/discord';
import { type MembershipServiceSandbox, createMembershipServiceSandbox } from '@tierlink/sandbox/membership-service';
import { packageRoot } from '../../src/edges/outbound/store/package-root';
import { linkPatron } from '../support/e2e';
import { freePort } from '../support/service-process';

/**
 * The release as an operator installs it (docs/operating.md, "Install a release"): `npm run
 * package` (its second half: `npm test` has built the code already), then in a fresh folder the
 * Dockerfile's own install step (deploy/install-release.sh: unpack, `npm ci --omit=dev`), then
 * `npm start` against the stand-ins, which links a patron. No build or test tooling is installed;
 * the Dockerfile's steps are these commands, and its health check answers.
 */

const root = packageRoot();
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  version: string;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
};
const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');

let work: string;
let tarball: string;
let installed: string;
let patreon: MembershipServiceSandbox;
let discord: DiscordSandbox;
const children: ChildProcessWithoutNullStreams[] = [];

function sh(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 300_000 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}): ${result.stderr}`);
  return result;
}

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-release-'));
  expect(manifest.scripts.package).toBe('npm run build:dev --silent && node dist/scripts/package-release.js');
  const packed = sh(process.execPath, [path.join(root, 'dist/scripts/package-release.js'), '--out', work], root);
  tarball = path.join(work, `tierlink-${manifest.version}.tar.gz`);
  expect(packed.stdout.trim()).toBe(path.relative(root, tarball));
  installed = path.join(work, 'opt', 'tierlink');
  // The Dockerfile's runtime step, as it runs there.
  sh('sh', [path.join(root, 'deploy/install-release.sh'), tarball, installed], work);
  patreon = await createMembershipServiceSandbox();
  discord = await createDiscordSandbox({ botPublic: false });
}, 600_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await discord?.close();
  await patreon?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

test('the tarball holds the built service, its migrations, a package.json for running and its lockfile (and the license), nothing else', () => {
  const files = sh('tar', ['-tzf', tarball], work)
    .stdout.split('\n')
    .filter((f) => f && !f.endsWith('/'));
  const prefix = `tierlink-${manifest.version}/`;
  expect(files.every((f) => f.startsWith(prefix))).toBe(true);
  const inside = files.map((f) => f.slice(prefix.length));
  const other = inside.filter((f) => !/^dist\/src\/.+\.js$/.test(f) && !/^drizzle\/[^/]+\.sql$/.test(f));
  expect(other.sort()).toEqual(['LICENSE', 'drizzle/meta/_journal.json', 'package-lock.json', 'package.json']);
  expect(inside).toContain('dist/src/cli/start.js');
  expect(inside.filter((f) => f.endsWith('.sql'))).toHaveLength(
    fs.readdirSync(path.join(root, 'drizzle')).filter((f) => f.endsWith('.sql')).length,
  );
  // No tests, benches, stand-ins, demo or source maps.
  expect(inside.some((f) => /test|bench|sandbox|demo|\.map$|\.ts$/.test(f.replace(/^dist\/src\//, '')))).toBe(false);
});

test('its package.json runs the service only: no build step, no workspaces, no dev dependencies; its lockfile pins what the repository tests', () => {
  const release = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8')) as Record<string, unknown> & {
    scripts: Record<string, string>;
  };
  expect(Object.keys(release.scripts).sort()).toEqual(['backup', 'migrate', 'restore', 'start', 'sync']);
  for (const [name, script] of Object.entries(release.scripts)) expect(script).toBe(manifest.scripts[name]);
  expect(release).not.toHaveProperty('workspaces');
  expect(release).not.toHaveProperty('devDependencies');
  expect(release.dependencies).toEqual(manifest.dependencies);
  expect(release.engines).toEqual({ node: '^20.11.0' });

  type Lock = { packages: Record<string, { version?: string; dev?: boolean; link?: boolean }> };
  const lock = JSON.parse(fs.readFileSync(path.join(installed, 'package-lock.json'), 'utf8')) as Lock;
  const ours = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as Lock;
  for (const [where, entry] of Object.entries(lock.packages)) {
    if (where === '') continue;
    expect(entry.dev).toBeUndefined();
    expect(entry.link).toBeUndefined();
    expect([where, entry.version]).toEqual([where, ours.packages[where]?.version]);
  }
});

test('npm ci --omit=dev installed no build or test tooling', () => {
  const modules = path.join(installed, 'node_modules');
  for (const tool of [
    'typescript',
    'jest',
    'eslint',
    'playwright-core',
    'drizzle-kit',
    'ts-jest',
    'prettier',
    '@tierlink/sandbox',
    'axe-core',
  ]) {
    expect([tool, fs.existsSync(path.join(modules, tool))]).toEqual([tool, false]);
  }
  expect(fs.existsSync(path.join(modules, 'discord.js'))).toBe(true);
  expect(fs.existsSync(path.join(installed, 'node_modules', '.bin', 'tsc'))).toBe(false);
});

test('node dist/src/cli/start.js --version prints the release and exits 0', () => {
  const result = sh(process.execPath, ['dist/src/cli/start.js', '--version'], installed, { PATH: process.env.PATH });
  expect(result.stdout).toBe(`tierlink ${manifest.version}\n`);
});

/** The Dockerfile's HEALTHCHECK command (its exec form), run here with the image's PORT. */
function healthcheck(port: number): number | null {
  const match = /HEALTHCHECK[^\n]*\\\n\s*CMD (\[.*\])/.exec(dockerfile);
  const command = JSON.parse(match![1]!) as string[];
  expect(command[0]).toBe('node');
  return spawnSync(process.execPath, command.slice(1), { env: { PORT: String(port), PATH: process.env.PATH }, timeout: 20_000 }).status;
}

test('installed, `npm start` runs against the stand-ins and links a patron; the health check answers; SIGTERM stops it with 0', async () => {
  const ownerId = '100000000000000099';
  const { guildId } = discord.createGuild({ name: 'Release Club', ownerId });
  const gold = discord.createRole(guildId, { name: 'Gold', position: 1 }).id;
  const tier = patreon.createTier(patreon.campaignId, { title: 'Gold', amountCents: 1000, chatRoleIds: [gold] }).id;
  const port = await freePort();
  const dataDir = path.join(work, 'data');
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? work,
    ...standInEnvironment(patreon, discord, guildId),
    PORT: String(port),
    DATA_DIR: dataDir,
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    PATREON_CREATOR_ACCESS_TOKEN: patreon.creatorTokens.accessToken,
    PATREON_CREATOR_REFRESH_TOKEN: patreon.creatorTokens.refreshToken,
  };
  // The image's CMD.
  expect(/^CMD \["npm", "start"\]$/m.test(dockerfile)).toBe(true);
  const child = spawn('npm', ['start'], { cwd: installed, env });
  children.push(child);
  const lines: Array<Record<string, unknown>> = [];
  let buffer = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    for (const part of parts) {
      try {
        lines.push(JSON.parse(part) as Record<string, unknown>);
      } catch {
        // npm's own lines ("> tierlink@… start").
      }
    }
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  for (let waited = 0; !lines.some((l) => l.msg === 'Tierlink is running'); waited += 200) {
    if (waited > 120_000) throw new Error(`not running: ${stderr.slice(-2000)} ${JSON.stringify(lines.slice(-5))}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const url = String(lines.find((l) => l.msg === 'Tierlink is running')!.url);
  patreon.registerRedirectUri(`${url}/oauth/callback`);
  discord.registerRedirectUri(`${url}/discord/callback`);
  expect(healthcheck(port)).toBe(0);

  const member = discord.addMember(guildId, { username: 'rhea' }).userId;
  const patron = patreon.createUser({ fullName: 'Rhea Release' });
  patreon.setMembership(
    patron.id,
    patreon.campaignId,
    { patronStatus: 'active_patron', tierIds: [tier], lastChargeDate: new Date(), lastChargeStatus: 'Paid' },
    { deliver: false },
  );
  for (let waited = 0; !lines.some((l) => l.msg === 'creator connected from the environment'); waited += 200) {
    if (waited > 60_000) throw new Error('the creator was not connected');
    await new Promise((r) => setTimeout(r, 200));
  }
  const page = await linkPatron({ discord, patreon, guildId }, member, patron.id);
  expect(page.status).toBe(200);
  await discord.waitForMemberRole(guildId, member, gold, { present: true, timeoutMs: 30_000 });

  // npm passes the signal on to the service, which stops gracefully.
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
  expect(lines.at(-1)).toMatchObject({ msg: 'stopped' });
  expect(healthcheck(port)).toBe(1);
  expect(stderr).toBe('');
}, 300_000);

test('every RUN step of the Dockerfile is a command this test or CI runs; the runtime runs as an unprivileged user with /data as its volume', () => {
  const steps = [...dockerfile.matchAll(/^RUN ((?:.*\\\n)*.*)$/gm)].map((m) => m[1]!.replace(/\\\n\s*/g, ' ').trim());
  const commands = steps.flatMap((s) => s.split('&&').map((c) => c.trim()));
  expect(commands).toEqual([
    // CI's install (.ci/run) and this test's package step.
    'npm ci --no-audit --no-fund',
    'npm run package',
    // This test's install step, then housekeeping of the image.
    'sh /tmp/release/install-release.sh /tmp/release/tierlink-*.tar.gz /app',
    'rm -rf /tmp/release',
    'npm cache clean --force',
    'mkdir -p /data',
    'chown node:node /data',
  ]);
  expect(fs.readFileSync(path.join(root, '.ci/run'), 'utf8')).toContain('npm ci --no-audit --no-fund');
  expect(dockerfile).toMatch(/^FROM node:20-bookworm-slim AS package$/m);
  expect(dockerfile).toMatch(/^FROM node:20-bookworm-slim AS runtime$/m);
  expect(dockerfile).toMatch(/^USER node$/m);
  expect(dockerfile).toMatch(/^VOLUME \["\/data"\]$/m);
  expect(dockerfile).toMatch(/DATA_DIR=\/data/);
  expect(dockerfile).toMatch(/PORT=3000/);
});

test('compose.yml builds this Dockerfile, keeps DATA_DIR in a volume, and Caddy forwards the domain to the port Tierlink listens on', () => {
  const compose = fs.readFileSync(path.join(root, 'compose.yml'), 'utf8');
  expect(compose).toMatch(/^ {4}build: \.$/m);
  expect(compose).toMatch(/^ {6}DATA_DIR: \/data$/m);
  expect(compose).toMatch(/^ {6}- tierlink-data:\/data$/m);
  expect(compose).toMatch(/^ {6}PORT: '3000'$/m);
  expect(compose).toContain('command: caddy reverse-proxy --from ${TIERLINK_DOMAIN:?set TIERLINK_DOMAIN in .env} --to tierlink:3000');
  expect(compose).toMatch(/^ {6}PUBLIC_URL: https:\/\/\$\{TIERLINK_DOMAIN/m);
  expect(compose).toMatch(/^ {4}profiles: \['postgres'\]$/m);
});

(fs.existsSync('/usr/bin/systemd-analyze') ? test : test.skip)(
  'the systemd unit passes systemd-analyze verify without a warning (where systemd is installed)',
  () => {
    const result = spawnSync('systemd-analyze', ['verify', path.join(root, 'deploy/tierlink.service')], { encoding: 'utf8' });
    expect(`${result.stdout}${result.stderr}`).toBe('');
    expect(result.status).toBe(0);
  },
);

const composeCli = ['/usr/bin/docker-compose', '/usr/local/bin/docker-compose'].find((p) => fs.existsSync(p));
(composeCli ? test : test.skip)(
  'docker-compose validates compose.yml, and refuses it without TIERLINK_DOMAIN (where docker-compose is installed)',
  () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-compose-'));
    try {
      fs.copyFileSync(path.join(root, 'compose.yml'), path.join(dir, 'compose.yml'));
      fs.writeFileSync(path.join(dir, '.env'), 'TIERLINK_DOMAIN=tierlink.example.com\n');
      const services = (profile: string[]) => {
        const result = spawnSync(composeCli!, ['-f', 'compose.yml', ...profile, 'config', '--services'], { cwd: dir, encoding: 'utf8' });
        expect(result.status).toBe(0);
        return result.stdout.split('\n').filter(Boolean).sort();
      };
      // docker-compose 1.x lists a profile's services whether or not the profile is on; `config` fails on any schema error.
      expect(services([])).toEqual(['caddy', 'postgres', 'tierlink']);
      expect(services(['--profile', 'postgres'])).toEqual(['caddy', 'postgres', 'tierlink']);
      fs.writeFileSync(path.join(dir, '.env'), '');
      const unset = spawnSync(composeCli!, ['-f', 'compose.yml', 'config'], { cwd: dir, encoding: 'utf8' });
      expect(unset.status).not.toBe(0);
      expect(unset.stderr).toContain('set TIERLINK_DOMAIN in .env');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);
