import { type E2E, startE2E } from '../support/e2e';
import { MANAGE_ROLES, runCommand } from '../support/e2e-admin';

/**
 * Patreon's answers as they come, against the whole service in Patreon's dialect: the day Patreon
 * drops its deprecated member attributes, and a tier whose title and a patron whose name come back
 * null, `/link` and webhooks still read every member and set every role; `/doctor` says what
 * Patreon answered, and that roles are not affected.
 */
let e: E2E;
beforeAll(async () => {
  e = await startE2E({ dialect: 'patreon', connected: true });
  // Patreon drops what it marked deprecated: asking for it would now be refused.
  e.patreon.retireAttributes('member', ['is_follower', 'lifetime_support_cents']);
  e.patreon.overrideAttributes('tier', e.tiers.gold, { title: null });
}, 60_000);
afterAll(() => e?.stop());

const paid = () => ({ patronStatus: 'active_patron' as const, lastChargeStatus: 'Paid' as const, lastChargeDate: e.clock.now() });

test('a patron without a name, of a tier without a title, links and gets the role; a webhook moves it; /doctor reports the odd answers', async () => {
  const member = e.discord.addMember(e.guildId, { username: 'nameless' });
  const user = e.patreon.createUser({ fullName: 'Nameless' });
  const pledge = e.patreon.setMembership(user.id, e.patreon.campaignId, { tierIds: [e.tiers.silver], ...paid() }, { deliver: false });
  e.patreon.overrideAttributes('user', user.id, { full_name: null });
  e.patreon.overrideMemberAttributes(pledge.id, { full_name: null });

  // (Before it, the first request of the connect learned the dialect from one refusal.)
  const from = e.patreon.requests().length;
  const page = await e.link(member.userId, user.id);
  expect(page.status).toBe(200);
  expect(e.discord.memberRoles(e.guildId, member.userId)).toEqual([e.roles.silver]);

  // An upgrade to the tier without a title, delivered by Patreon: its re-read reads, the role follows.
  e.patreon.setMembership(user.id, e.patreon.campaignId, { tierIds: [e.tiers.gold], ...paid() });
  await e.discord.waitForMemberRole(e.guildId, member.userId, e.roles.gold, { present: true, timeoutMs: 10_000 });
  await e.discord.waitForMemberRole(e.guildId, member.userId, e.roles.silver, { present: false, timeoutMs: 10_000 });
  expect(
    e.patreon
      .requests()
      .slice(from)
      .filter((r) => r.status >= 400),
  ).toEqual([]);

  const reply = await runCommand(e, { userId: e.ownerId, name: 'doctor', memberPermissions: MANAGE_ROLES }).reply();
  const lines = reply.content.split('\n');
  const odd = lines.findIndex((l) => l.includes('Odd answers from Patreon'));
  expect(odd).toBeGreaterThanOrEqual(0);
  const said = lines.slice(odd, odd + 3).join('\n');
  expect(said).toContain(`tier ${e.tiers.gold}’s title as empty (null)`);
  expect(said).toContain('Roles are not affected');
  expect(said).not.toContain('Unreadable');
});
