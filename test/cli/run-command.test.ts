import { spawn } from 'node:child_process';
import path from 'node:path';
import { packageRoot } from '../../src/edges/outbound/store/package-root';

/**
 * A command finishes or fails loudly: a process whose `main` still waits on something that
 * cannot end it (here a wait on a timer that does not hold the event loop open, as the request
 * scheduler's once did) would otherwise exit 0 halfway, saying nothing.
 */
const cliSupport = path.join(packageRoot(), 'dist/src/cli/cli-support.js');

function run(body: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = `const { runCommand } = require(${JSON.stringify(cliSupport)});\n${body}`;
  const child = spawn(process.execPath, ['-e', script], { env: { PATH: process.env.PATH ?? '' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

test('a command whose work is left waiting on nothing that can finish it exits 1 and says so', async () => {
  const stalled = await run(`
    runCommand('npm run example', async () => {
      await new Promise((resolve) => setTimeout(resolve, 60_000).unref());
      process.stdout.write('report\\n');
    }, () => process.exit(9));
  `);
  expect(stalled.code).toBe(1);
  expect(stalled.stdout).toBe('');
  expect(stalled.stderr).toContain('npm run example stopped before its work was done');
});

test('a command that finishes exits as it says; one that throws goes to its error handler', async () => {
  expect(
    await run(
      `runCommand('ok', async () => { await new Promise((r) => setTimeout(r, 20)); process.stdout.write('done'); }, () => process.exit(9));`,
    ),
  ).toEqual({
    code: 0,
    stdout: 'done',
    stderr: '',
  });
  expect((await run(`runCommand('failing', async () => { throw new Error('no'); }, () => process.exit(9));`)).code).toBe(9);
});
