import { type E2E, startE2E } from '../support/e2e';

/**
 * Attack: strip TLS between a patron and Tierlink (a downgrade to http), or run Tierlink on a plain
 * http address without knowing it. Refusals: with an https PUBLIC_URL every answer carries
 * Strict-Transport-Security; a plain-http PUBLIC_URL that is not loopback is warned about at start.
 */

describe('PUBLIC_URL https', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E({ env: { PUBLIC_URL: 'https://tierlink.example.com' } });
  }, 60_000);
  afterAll(() => e?.stop());

  test('every answer carries Strict-Transport-Security, and nothing is said about plain http', async () => {
    for (const path of ['/', '/link/unknown', '/healthz']) {
      const res = await fetch(`http://127.0.0.1:${e.port}${path}`);
      expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000');
    }
    expect(e.log.text()).not.toContain('is plain http');
  });
});

describe('PUBLIC_URL plain http on a public name', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E({ env: { PUBLIC_URL: 'http://tierlink.example.com' } });
  }, 60_000);
  afterAll(() => e?.stop());

  test('a warning at start-up, and no Strict-Transport-Security (it would be ignored over http)', async () => {
    const warning = e.log.lines.map((l) => JSON.parse(l) as { level: number; msg: string }).find((l) => /is plain http/.test(l.msg));
    expect(warning).toMatchObject({ level: 40 });
    expect(warning!.msg).toContain('PUBLIC_URL http://tierlink.example.com is plain http');
    expect((await fetch(`http://127.0.0.1:${e.port}/`)).headers.get('strict-transport-security')).toBeNull();
  });
});
