import { spawn } from 'node:child_process';
import path from 'node:path';
import { packageRoot } from '../../src/edges/outbound/store/package-root';

/**
 * A rejection nothing handled: Node's default ends the process. In a real process with
 * `npm start`'s handler installed (dist/src/cli/process-faults.js), it is logged and the process
 * goes on serving.
 */

const dist = (file: string) => JSON.stringify(path.join(packageRoot(), 'dist/src', file));

function run(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['-e', script], { env: { PATH: process.env.PATH ?? '' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

const program = (install: boolean) => `
  const http = require('node:http');
  const { createLogger } = require(${dist('edges/outbound/observability/logger.js')});
  const { handleUnhandledRejections } = require(${dist('cli/process-faults.js')});
  const logger = createLogger({ level: 'info' });
  let count = 0;
  if (${install}) handleUnhandledRejections({ process, logger, count: () => count++ });
  const server = http.createServer((req, res) => res.end('still serving'));
  server.listen(0, '127.0.0.1', async () => {
    Promise.reject(new Error('a background task failed'));
    await new Promise((r) => setTimeout(r, 100));
    const answer = await (await fetch('http://127.0.0.1:' + server.address().port)).text();
    logger.info({ answer, count }, 'after the rejection');
    server.close();
  });
`;

test('with the handler: the rejection is logged and counted, and the process keeps serving', async () => {
  const { code, stdout } = await run(program(true));
  expect(code).toBe(0);
  const lines = stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { level: number; msg: string; err?: { message: string }; answer?: string; count?: number });
  expect(lines[0]).toMatchObject({ level: 50, err: { message: 'a background task failed' } });
  expect(lines[0]!.msg).toMatch(/nothing handled it; Tierlink logs it and keeps serving/);
  expect(lines[1]).toMatchObject({ msg: 'after the rejection', answer: 'still serving', count: 1 });
});

test('without it (Node’s default), the same rejection ends the process', async () => {
  const { code, stderr } = await run(program(false));
  expect(code).not.toBe(0);
  expect(stderr).toContain('a background task failed');
});
