import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '../../src/edges/outbound/store/package-root';

const root = packageRoot();
const main = path.join(root, 'dist/src/cli/start.js');

/** Runs the built service as `npm start` does, from an empty folder (no .env) with only PATH set. */
function start(env: Record<string, string> = {}, args: string[] = [], script = main) {
  expect(fs.existsSync(main)).toBe(true); // `npm test` builds first
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-start-'));
  const result = spawnSync(process.execPath, [script, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 15_000,
  });
  fs.rmSync(cwd, { recursive: true, force: true });
  return result;
}

test('an empty environment stops start-up with one message naming every required variable, without a stack trace', () => {
  const result = start();
  expect(result.signal).toBeNull();
  expect(result.status).toBe(2);
  const problems = result.stderr.split('\n').filter((l) => l.startsWith('  - '));
  expect(problems.map((l) => l.slice(4).split(':')[0])).toEqual([
    'DISCORD_TOKEN',
    'DISCORD_APPLICATION_ID',
    'PATREON_CLIENT_ID',
    'PATREON_CLIENT_SECRET',
    'DISCORD_CLIENT_SECRET',
  ]);
  expect(result.stderr).toContain(
    '  - DISCORD_CLIENT_SECRET: required: the application’s OAuth2 client secret from the Developer Portal → OAuth2',
  );
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.stdout).toBe('');
});

test('a non-numeric PORT is named too, next to the missing ones', () => {
  const result = start({ PORT: 'eighty' });
  expect(result.status).toBe(2);
  expect(result.stderr).toContain('  - PORT: must be a port number between 0 and 65535');
  expect(result.stderr).toContain('6 problems');
});

test('npm run migrate needs only the database and applies the migrations into DATA_DIR', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tierlink-migrate-'));
  const result = spawnSync(process.execPath, [path.join(root, 'dist/src/cli/migrate.js')], {
    cwd: dataDir,
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'info' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(result.status).toBe(0);
  expect(result.stdout).toContain('migrations applied');
  expect(fs.existsSync(path.join(dataDir, 'pglite'))).toBe(true);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test.each(['start', 'migrate', 'sync'])(
  '%s --version prints the version of package.json and exits 0, with no configuration at all',
  (command) => {
    const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
    const result = start({}, ['--version'], path.join(root, `dist/src/cli/${command}.js`));
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`tierlink ${version}\n`);
    expect(result.stderr).toBe('');
  },
);
