import { Permission } from '@tierlink/sandbox/discord';
import { signIn } from '../support/dashboard-client';
import { type E2E, startE2E } from '../support/e2e';

/**
 * Attack: anyone can sign in to the dashboard with Discord; each page of a server then cost Tierlink
 * one read of that person from Discord (and the menu one per server), out of the budget every
 * command and role change shares. Refusal: a session's standing in a server is read once and kept
 * for its pages a while; a form that changes something still reads it again, so a moderator who
 * lost their role changes nothing.
 */

let e: E2E;
beforeAll(async () => {
  e = await startE2E({ connected: true });
}, 60_000);
afterAll(() => e?.stop());

const memberReads = (userId: string) =>
  e.discord.requests({ method: 'GET' }).filter((r) => r.path.endsWith(`/guilds/${e.guildId}/members/${userId}`)).length;

test('a stranger’s 30 page views cost one member read', async () => {
  const stranger = e.discord.createUser({ username: 'stranger' }).id;
  const { browser } = await signIn(e, stranger);
  const before = memberReads(stranger);
  for (let i = 0; i < 30; i++) expect((await browser.get(`/dashboard/${e.guildId}`)).status).toBe(403);
  expect(memberReads(stranger) - before).toBe(1);
});

test('a moderator’s pages are served from the kept standing; a form after losing the role is refused', async () => {
  const moderators = e.discord.createRole(e.guildId, { name: 'Moderators', position: 1, permissions: Permission.ManageRoles }).id;
  const moderator = e.discord.addMember(e.guildId, { username: 'mod', roleIds: [moderators] }).userId;
  const before = memberReads(moderator);
  const { browser } = await signIn(e, moderator);
  let tiers = await browser.get(`/dashboard/${e.guildId}/tiers`);
  for (let i = 0; i < 10; i++) tiers = await browser.get(`/dashboard/${e.guildId}/tiers`);
  expect(tiers.status).toBe(200);
  // The sign-in's menu and eleven pages: at most one read (none when the gateway's member cache knew the member).
  expect(memberReads(moderator) - before).toBeLessThanOrEqual(1);

  e.discord.setMemberRolesByHand(e.guildId, moderator, []);
  const answer = await browser.post(`/dashboard/${e.guildId}/tiers/map`, { tier: 'Gold', role: e.roles.staff }, { csrfFrom: tiers.html });
  expect(answer.status).toBe(403);
  expect(await e.tierlink.services.repos.mappings.of(e.guildId)).toEqual([]);
});
