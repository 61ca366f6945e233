import { type E2E, pageText, startE2E } from '../support/e2e';

/**
 * The first thing a creator tries is often `/link`, before `/connect`. A patron must then be told
 * why there is nothing to link yet, not sent through a consent page to be told "not a patron".
 */

let e: E2E;
beforeAll(async () => {
  e = await startE2E();
}, 60_000);
afterAll(() => e?.stop());

test('/link and /status before the server is connected say so, and /link works once it is', async () => {
  const user = e.patreon.createUser({ fullName: 'Early Bird' });
  e.patreon.setMembership(
    user.id,
    e.patreon.campaignId,
    { patronStatus: 'active_patron', tierIds: [e.tiers.silver], lastChargeDate: e.clock.now(), lastChargeStatus: 'Paid' },
    { deliver: false },
  );
  const member = e.discord.addMember(e.guildId, { username: 'early' });

  const early = await e.command(member.userId, 'link');
  expect(early.ephemeral).toBe(true);
  expect(early.urls).toEqual([]);
  expect(early.content).toMatch(/not connected to a Patreon campaign yet/);
  expect(early.content).toMatch(/\/connect/);
  const status = await e.command(member.userId, 'status');
  expect(status.content).toMatch(/not connected to a Patreon campaign yet/);

  const connected = await e.connect();
  expect(connected.status).toBe(200);

  const page = await e.link(member.userId, user.id);
  expect(page.status).toBe(200);
  expect(pageText(page.html)).toContain("You're all set");
  expect(e.discord.memberRoles(e.guildId, member.userId)).toEqual([e.roles.silver]);
});
