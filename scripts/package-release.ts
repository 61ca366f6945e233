import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '../src/edges/outbound/store/package-root';

/**
 * `npm run package`: release/tierlink-<version>.tar.gz, what an operator installs
 * (docs/operating.md, "Install a release"):
 *
 *     tierlink-<version>/
 *       dist/src/…            the service, compiled (src only: no tests, benches, stand-ins, source maps)
 *       drizzle/              the migrations it applies at start (SQL and the journal)
 *       package.json          for running: start, migrate, sync, backup, restore; runtime dependencies only
 *       package-lock.json     the same versions the repository is tested with, for `npm ci`
 *       LICENSE
 *
 * Unpacked anywhere, `npm ci --omit=dev && npm start` runs it: no build step, no build or test
 * tooling installed. The lockfile is the repository's own, pruned by npm to the runtime
 * dependencies (`npm install --package-lock-only`), so the release runs the exact versions CI tested.
 */

const root = packageRoot();

interface Manifest {
  name: string;
  version: string;
  description?: string;
  license?: string;
  engines?: Record<string, string>;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
}

/**
 * The scripts an operator runs; each is the same command as in the repository's package.json.
 * Each starts with `exec`: npm runs a script under `sh -c`, and passes SIGTERM (docker stop, a
 * supervisor) to that shell only, which would die and leave Tierlink running without its
 * graceful stop; with `exec` the shell becomes Tierlink and the signal reaches it.
 */
export const RUNTIME_SCRIPTS = ['start', 'migrate', 'sync', 'backup', 'restore'] as const;

function run(command: string, args: string[], cwd: string): void {
  execFileSync(command, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
}

function releaseManifest(source: Manifest): Manifest & { private: boolean; main: string } {
  const scripts: Record<string, string> = {};
  for (const name of RUNTIME_SCRIPTS) {
    const script = source.scripts[name];
    if (!script) throw new Error(`package.json has no "${name}" script`);
    if (!script.startsWith('exec ')) throw new Error(`package.json's "${name}" script must start with exec (see RUNTIME_SCRIPTS)`);
    scripts[name] = script;
  }
  return {
    name: source.name,
    version: source.version,
    private: true,
    ...(source.description ? { description: source.description } : {}),
    ...(source.license ? { license: source.license } : {}),
    ...(source.engines ? { engines: source.engines } : {}),
    main: 'dist/src/main.js',
    scripts,
    dependencies: source.dependencies,
  };
}

function copyMigrations(into: string): void {
  const from = path.join(root, 'drizzle');
  fs.mkdirSync(path.join(into, 'meta'), { recursive: true });
  fs.copyFileSync(path.join(from, 'meta', '_journal.json'), path.join(into, 'meta', '_journal.json'));
  for (const name of fs.readdirSync(from)) if (name.endsWith('.sql')) fs.copyFileSync(path.join(from, name), path.join(into, name));
}

/** SOURCE_DATE_EPOCH when set, else the last commit's time, else now (a build without git, e.g. in Docker). */
function sourceDateEpoch(): string {
  if (process.env.SOURCE_DATE_EPOCH && /^\d+$/.test(process.env.SOURCE_DATE_EPOCH)) return process.env.SOURCE_DATE_EPOCH;
  try {
    const committed = execFileSync('git', ['log', '-1', '--format=%ct'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    if (/^\d+$/.test(committed)) return committed;
  } catch {
    // No git here.
  }
  return String(Math.floor(Date.now() / 1000));
}

export function packageRelease(options: { out?: string } = {}): string {
  const source = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as Manifest;
  const name = `tierlink-${source.version}`;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-package-'));
  const stage = path.join(work, name);
  try {
    fs.mkdirSync(stage);
    run(
      process.execPath,
      [
        path.join(root, 'node_modules/typescript/bin/tsc'),
        '-p',
        path.join(root, 'tsconfig.build.json'),
        '--outDir',
        path.join(stage, 'dist'),
        '--sourceMap',
        'false',
      ],
      root,
    );
    copyMigrations(path.join(stage, 'drizzle'));
    fs.writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(releaseManifest(source), null, 2)}\n`);
    // npm keeps every version the repository's lockfile pins and drops what the release does not use.
    fs.copyFileSync(path.join(root, 'package-lock.json'), path.join(stage, 'package-lock.json'));
    run('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], stage);
    fs.copyFileSync(path.join(root, 'LICENSE'), path.join(stage, 'LICENSE'));

    const out = options.out ?? path.join(root, 'release');
    fs.mkdirSync(out, { recursive: true });
    const tarball = path.join(out, `${name}.tar.gz`);
    // Owner, order and times fixed: the same commit packs to the same files.
    const epoch = sourceDateEpoch();
    run('tar', ['--sort=name', '--owner=0', '--group=0', '--numeric-owner', `--mtime=@${epoch}`, '-czf', tarball, '-C', work, name], root);
    return tarball;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

if (require.main === module) {
  // `--out <folder>`: somewhere else than release/ (the release test packs into a folder of its own).
  const at = process.argv.indexOf('--out');
  const tarball = packageRelease(at > 0 && process.argv[at + 1] ? { out: path.resolve(process.argv[at + 1]!) } : {});
  process.stdout.write(`${path.relative(process.cwd(), tarball)}\n`);
}
