import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/edges/outbound/store/database';
import { DashboardBrowser } from '../support/dashboard-client';
import { type E2E, pageText, startE2E } from '../support/e2e';

/**
 * Attack: anyone may open a join page, so `GET /join/<slug>/start` in a loop (3,000 in 23 s were
 * measured) wrote a row each. Refusal: the start writes nothing; the flow lives in the browser's
 * sealed cookie until the service's consent comes back to that browser. The flow keeps its
 * guarantees: a consent forwarded to another browser moves nothing, a callback replayed finds it spent.
 */

let e: E2E;
beforeAll(async () => {
  e = await startE2E({ connected: true });
  e.discord.registerRedirectUri(`${e.url}/join/callback`);
}, 60_000);
afterAll(() => e?.stop());

const flows = async () => (await queryRows<{ n: number }>(e.db.database.db, sql`select count(*)::int as n from link_tokens`))[0]!.n;

function patron(fullName: string) {
  const user = e.patreon.createUser({ fullName });
  e.patreon.setMembership(
    user.id,
    e.patreon.campaignId,
    { patronStatus: 'active_patron', tierIds: [e.tiers.gold], lastChargeDate: e.clock.now(), lastChargeStatus: 'Paid' },
    { deliver: false },
  );
  return user;
}

test('a hundred anonymous starts write no row; each only sets its own sealed cookie', async () => {
  const before = await flows();
  for (let i = 0; i < 100; i++) {
    const start = await new DashboardBrowser(e.url).get(`/join/${e.guildId}/start`);
    expect(start.status).toBe(302);
    const cookie = start.headers.getSetCookie().find((c) => c.includes('tierlink_flow_'))!;
    // Sealed: neither the guild nor the PKCE verifier can be read from it.
    expect(cookie).toMatch(/=v2\./);
    expect(cookie).not.toContain(e.guildId);
  }
  expect(await flows()).toBe(before);
});

test('the consent coming back to the browser that started writes the flow once; another browser gets nothing, a replay is refused', async () => {
  const user = patron('Ada Stateless');
  const person = e.discord.createUser({ username: 'ada-stateless' });
  const browser = new DashboardBrowser(e.url);
  const start = await browser.get(`/join/${e.guildId}/start`);
  const callback = await e.patreon.approveAuthorization(start.location!, user.id);
  const before = await flows();

  // Forwarded to someone else: refused, nothing written.
  const other = await new DashboardBrowser(e.url).get(callback);
  expect(pageText(other.html)).toMatch(/another browser|different browser|started/i);
  expect(await flows()).toBe(before);

  const afterService = await browser.get(callback);
  expect(afterService.status).toBe(302);
  expect(await flows()).toBe(before + 1);
  // The same callback again: the flow is spent.
  const replay = await browser.get(callback);
  expect(replay.status).not.toBe(302);
  expect(await flows()).toBe(before + 1);

  const done = await browser.get(await e.discord.approveAuthorization(afterService.location!, person.id));
  expect(done.status).toBe(200);
  expect(e.discord.memberRoles(e.guildId, person.id)).toEqual([e.roles.gold]);
});
