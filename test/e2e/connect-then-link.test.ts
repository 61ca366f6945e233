import { type E2E, pageText, startE2E } from '../support/e2e';

let e: E2E;
beforeAll(async () => {
  e = await startE2E();
}, 60_000);
afterAll(() => e?.stop());

test('/connect on a fresh database, then a patron’s /link, gives the patron their role before the page returns', async () => {
  const connected = await e.connect();
  expect(connected.status).toBe(200);
  expect(pageText(connected.html)).toContain('Gold');

  const user = e.patreon.createUser({ fullName: 'Ada Patron' });
  e.patreon.setMembership(user.id, e.patreon.campaignId, { patronStatus: 'active_patron', tierIds: [e.tiers.gold], lastChargeDate: e.clock.now(), lastChargeStatus: 'Paid' }, { deliver: false });
  const member = e.discord.addMember(e.guildId, { username: 'ada' });

  const page = await e.link(member.userId, user.id);
  // No waiting: the role is there when the page is.
  expect(e.discord.memberRoles(e.guildId, member.userId)).toContain(e.roles.gold);
  expect(page.status).toBe(200);
  expect(pageText(page.html)).toMatch(/Ada Patron/);
});
