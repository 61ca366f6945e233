import { redactUrl } from '../../src/edges/outbound/observability/logger';
import { type E2E, startE2E } from '../support/e2e';

/**
 * Attack on the log: a one-time link's token (worth a patron's roles for 15 minutes) written in
 * clear because the path was not spelled as the redaction expected. Express routes `/Link/<token>`
 * to the link page, so it was followed and logged with the token. Refusal: the token is redacted
 * however the path is spelled (letter case, percent-encoding, repeated slashes), and so are the
 * OAuth parameters in any letter case.
 */

test.each([
  ['/link/AbCdEf0123456789xyz', '/link/[redacted]'],
  ['/Link/AbCdEf0123456789xyz', '/Link/[redacted]'],
  ['/CONNECT/AbCdEf0123456789xyz', '/CONNECT/[redacted]'],
  ['/%6Cink/AbCdEf0123456789xyz', '/link/[redacted]'],
  ['/link/%41bCdEf0123456789xyz', '/link/[redacted]'],
  ['//link//AbCdEf0123456789xyz', '/link/[redacted]'],
  ['/connect/choose', '/connect/choose'],
  ['/join/fan-club', '/join/fan-club'],
])('%s is logged as %s', (url, logged) => {
  expect(redactUrl(url)).toBe(logged);
});

test('OAuth parameters are redacted in any letter case; other parameters stay', () => {
  expect(redactUrl('/oauth/callback?Code=secret-code&STATE=secret-state&next=%2Fdashboard')).toBe(
    '/oauth/callback?Code=%5Bredacted%5D&STATE=%5Bredacted%5D&next=%2Fdashboard',
  );
});

describe('the running service', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E({ connected: true });
  }, 60_000);
  afterAll(() => e?.stop());

  test('a one-time link followed as /Link/<token> works and its token is in no log line', async () => {
    const member = e.discord.addMember(e.guildId, { username: 'casey' }).userId;
    const reply = await e.command(member, 'link');
    const url = new URL(reply.urls[0]!);
    const token = url.pathname.split('/')[2]!;
    const answer = await fetch(`${e.url}/Link/${token}`, { redirect: 'manual' });
    expect(answer.status).toBe(302);
    for (const path of [`/LINK/${token}`, `/%6Cink/${token}`, `/connect/${token.toLowerCase()}`]) await fetch(`${e.url}${path}`);
    await new Promise((r) => setTimeout(r, 100));
    const text = e.log.text();
    expect(text).toContain('/Link/[redacted]');
    expect(text).not.toContain(token);
    expect(text).not.toContain(token.toLowerCase());
  });
});
