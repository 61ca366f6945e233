import { DiscordAPIError } from '@discordjs/rest';
import { createLogger } from '../../../../src/edges/outbound/observability/logger';
import { MemoryLog } from '../../../support/e2e';

/** A log line stays small whatever text from outside it carries (headers, URLs, a service's error body). */

function logged() {
  const log = new MemoryLog();
  return { log, logger: createLogger({ level: 'debug', destination: log }) };
}

test('a 15 KiB header, URL or nested value becomes 200 characters and says how much was cut', () => {
  const { log, logger } = logged();
  const huge = 'A'.repeat(15 * 1024);
  logger.warn({ trigger: huge, nested: { url: `/x?${huge}`, list: Array.from({ length: 500 }, () => huge) } }, 'rejected');
  const line = JSON.parse(log.lines[0]!) as { trigger: string; nested: { url: string; list: string[] }; msg: string };
  expect(line.msg).toBe('rejected');
  expect(line.trigger).toBe(`${'A'.repeat(200)}…[${15 * 1024 - 200} more]`);
  expect(line.nested.url.length).toBeLessThan(230);
  expect(line.nested.list).toHaveLength(51);
  expect(log.lines[0]!.length).toBeLessThan(16 * 1024);
});

test('an error whose message quotes a huge service answer is logged bounded, stack frames kept', () => {
  const { log, logger } = logged();
  const error = new DiscordAPIError({ message: 'B'.repeat(20_000), code: 0 }, 0, 500, 'PUT', '/guilds/1/members/2/roles/3', {
    files: undefined,
    body: { note: 'C'.repeat(20_000) },
  });
  logger.error({ err: error }, 'role change failed');
  expect(log.lines[0]!.length).toBeLessThan(8 * 1024);
  const line = JSON.parse(log.lines[0]!) as { err: { message: string; stack: string; type: string } };
  expect(line.err.message.length).toBeLessThan(450);
  expect(line.err.stack.split('\n')[0]).toBe(`${line.err.type}: ${line.err.message}`);
  expect(line.err.stack).toMatch(/\n\s+at /);
});

test('secrets stay redacted after bounding', () => {
  const { log, logger } = logged();
  logger.info({ token: 'super-secret-token', nested: { accessToken: 'another-secret' } }, 'x');
  expect(log.lines[0]).not.toContain('super-secret-token');
  expect(log.lines[0]).not.toContain('another-secret');
});
