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

describe('codes: an error code stays readable, an OAuth code does not', () => {
  test('the errno of a failed DNS lookup or connection is logged as it is', () => {
    const { log, logger } = logged();
    logger.error({ err: Object.assign(new Error('getaddrinfo ENOTFOUND db.example'), { code: 'ENOTFOUND' }) }, 'x');
    logger.error({ err: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }) }, 'y');
    logger.error({ err: Object.assign(new Error('password authentication failed'), { code: '28P01' }) }, 'z');
    const codes = log.lines.map((l) => (JSON.parse(l) as { err: { code: string } }).err.code);
    expect(codes).toEqual(['ENOTFOUND', 'ECONNREFUSED', '28P01']);
  });

  test("Discord's numeric codes, gateway close codes and Tierlink's problem kinds are logged as they are", () => {
    const { log, logger } = logged();
    logger.warn({ code: 4014, shard: 0 }, 'gateway disconnected');
    logger.warn({ code: 'missing_permissions' }, 'role change failed');
    logger.warn({ problem: { code: 50013 } }, 'nested');
    expect(log.lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toMatchObject([
      { code: 4014 },
      { code: 'missing_permissions' },
      { problem: { code: 50013 } },
    ]);
  });

  test('an OAuth authorization code is redacted wherever it is logged', () => {
    const { log, logger } = logged();
    const oauthCode = 'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1';
    logger.info({ code: oauthCode }, 'a');
    logger.info({ query: { code: oauthCode } }, 'b');
    logger.info({ callback: { code: oauthCode, state: 'x' } }, 'c');
    expect(log.text()).not.toContain(oauthCode);
    expect(log.lines).toHaveLength(3);
  });
});
