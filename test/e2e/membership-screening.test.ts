import { formatSyncReport } from '../../src/core/sync-report';
import { DashboardBrowser, signIn } from '../support/dashboard-client';
import { type E2E, pageText, startE2E } from '../support/e2e';
import { activePatron, userOption } from '../support/e2e-admin';
import { eventually } from '../support/eventually';

/**
 * A server with Membership Screening (rules a joiner accepts before taking part). Discord adds
 * joiners as `pending` and tells the bot when they accept (GUILD_MEMBER_UPDATE, `pending: false`);
 * a role given to a pending member lets them skip the rules, and the Discord stand-in does that
 * too (it clears `pending` on a role added), so every test here would see a skip. Tierlink gives
 * a pending member nothing, from any trigger, and gives their roles the moment they accept, under
 * Discord's real limits (the stand-ins' defaults).
 */

const ADMINISTRATOR = 1n << 3n;

let e: E2E;
beforeAll(async () => {
  e = await startE2E({ connected: true });
  e.discord.registerRedirectUri(`${e.url}/join/callback`);
  e.discord.setScreening(e.guildId, true);
}, 60_000);
afterAll(() => e?.stop());

const patron = (fullName: string, tierIds: string[]) => activePatron(e, fullName, tierIds);

const pendingOf = (userId: string) => e.discord.members(e.guildId).find((m) => m.userId === userId)?.pending;
const rolesOf = (userId: string) => e.discord.memberRoles(e.guildId, userId);
const sync = () => e.tierlink.services.runSync({ guildId: e.guildId, dryRun: false, force: false, trigger: 'manual' });

test('a linked patron who rejoins is given nothing while pending, by the join, a reconcile or a full sync; their roles come when they accept the rules', async () => {
  const user = patron('Rita Rules', [e.tiers.silver]);
  const member = e.discord.addMember(e.guildId, { username: 'rita', pending: false });
  await e.link(member.userId, user.id);
  expect(rolesOf(member.userId)).toEqual([e.roles.silver]);

  e.discord.removeMember(e.guildId, member.userId);
  e.discord.addMember(e.guildId, { userId: member.userId, username: 'rita' });
  expect(pendingOf(member.userId)).toBe(true);
  // The gateway's GUILD_MEMBER_ADD (pending) is in: its own reconcile has run or is running.
  await eventually('the join heard', () => e.tierlink.services.discord.memberRoles.peek(e.guildId, member.userId) === 'pending', 5_000, 20);

  const outcome = await e.tierlink.services.reconciler.reconcileMember(e.guildId, member.userId, { trigger: 'recheck' });
  expect(outcome).toMatchObject({ inGuild: false, pending: true });
  expect(outcome.result?.applied ?? []).toEqual([]);
  const report = await sync();
  if ('skipped' in report) throw new Error(`the sync did not run: ${report.reason}`);
  expect(report.guilds[0]?.pendingMembers).toBe(1);
  expect(formatSyncReport(report)).toContain("(1 not through the server's rules yet)");
  expect(rolesOf(member.userId)).toEqual([]);
  expect(pendingOf(member.userId)).toBe(true);
  const status = await e.command(e.ownerId, 'status', [userOption('member', member.userId)], ADMINISTRATOR);
  expect(status.content).toContain('They have not accepted this server’s rules yet; their roles arrive when they do.');
  const doctor = await e.command(e.ownerId, 'doctor', [], ADMINISTRATOR);
  expect(doctor.content).toContain('✅ **Membership Screening**: on: members get their roles once they accept the server’s rules');

  const accepted = Date.now();
  e.discord.completeScreening(e.guildId, member.userId);
  await e.discord.waitForMemberRole(e.guildId, member.userId, e.roles.silver, { present: true, timeoutMs: 5_000 });
  expect(Date.now() - accepted).toBeLessThan(1_000);
  const add = e.discord
    .roleEvents()
    .filter((r) => r.userId === member.userId && r.op === 'add')
    .at(-1)!;
  expect(add).toMatchObject({ roleId: e.roles.silver, via: 'rest' });
});

test('a pending member who links is told to accept the rules first, and gets the roles when they do', async () => {
  const user = patron('Lena Later', [e.tiers.gold]);
  const member = e.discord.addMember(e.guildId, { username: 'lena' });
  expect(pendingOf(member.userId)).toBe(true);

  const page = await e.link(member.userId, user.id);
  expect(page.status).toBe(200);
  const text = pageText(page.html);
  expect(text).toContain('Linked! Now accept the server’s rules');
  expect(text).toContain('Open Fan Club and accept its rules. Your roles arrive when you do.');
  expect(rolesOf(member.userId)).toEqual([]);
  expect(pendingOf(member.userId)).toBe(true);
  // The creator's Members page says why Lena has no role.
  const { browser: owner } = await signIn(e, e.ownerId);
  const detail = pageText((await owner.get(`/dashboard/${e.guildId}/members/${member.userId}`)).html);
  expect(detail).toContain('Has not accepted this server’s rules yet: roles arrive when they do.');

  e.discord.completeScreening(e.guildId, member.userId);
  await e.discord.waitForMemberRole(e.guildId, member.userId, e.roles.gold, { present: true, timeoutMs: 5_000 });
  expect(pageText((await owner.get(`/dashboard/${e.guildId}/members/${member.userId}`)).html)).not.toContain('rules yet');
});

test('the join page adds a patron with no role, says the rules come first, and the roles follow their acceptance', async () => {
  const user = patron('Jo Joiner', [e.tiers.gold]);
  const person = e.discord.createUser({ username: 'jo', globalName: 'Jo' });
  e.discord.resetRequests();

  const browser = new DashboardBrowser(e.url);
  const start = await browser.get(`/join/${e.guildId}/start`);
  const afterService = await browser.get(await e.patreon.approveAuthorization(start.location!, user.id));
  const done = await browser.get(await e.discord.approveAuthorization(afterService.location!, person.id));

  expect(done.status).toBe(200);
  const text = pageText(done.html);
  expect(text).toContain('You’re in Fan Club: accept its rules next');
  expect(text).toContain('Fan Club asks new members to accept its rules first');
  expect(text).toContain('Open Fan Club in Discord and accept its rules.');
  expect(text).toMatch(/Gold After the rules/);
  // One Add Guild Member request, and no role came with it (a role given with the join would skip the rules).
  expect(e.discord.requests({ method: 'PUT' }).filter((r) => r.path.endsWith(`/members/${person.id}`))).toHaveLength(1);
  expect(e.discord.roleEvents().filter((r) => r.userId === person.id)).toEqual([]);
  expect(pendingOf(person.id)).toBe(true);
  expect(rolesOf(person.id)).toEqual([]);
  expect(await e.tierlink.services.repos.ledger.forUser(e.guildId, person.id)).toEqual([]);

  e.discord.completeScreening(e.guildId, person.id);
  await e.discord.waitForMemberRole(e.guildId, person.id, e.roles.gold, { present: true, timeoutMs: 5_000 });
  expect((await e.tierlink.services.repos.ledger.forUser(e.guildId, person.id)).map((g) => g.roleId)).toEqual([e.roles.gold]);
});

test('without screening, the join page still adds a patron with their roles in one request', async () => {
  e.discord.setScreening(e.guildId, false);
  try {
    expect((await e.command(e.ownerId, 'doctor', [], ADMINISTRATOR)).content).not.toContain('Membership Screening');
    const user = patron('Nia Now', [e.tiers.bronze]);
    const person = e.discord.createUser({ username: 'nia' });
    const browser = new DashboardBrowser(e.url);
    const start = await browser.get(`/join/${e.guildId}/start`);
    const afterService = await browser.get(await e.patreon.approveAuthorization(start.location!, user.id));
    const done = await browser.get(await e.discord.approveAuthorization(afterService.location!, person.id));
    expect(pageText(done.html)).toContain('You’re in Fan Club');
    expect(rolesOf(person.id)).toEqual([e.roles.bronze]);
    expect(pendingOf(person.id)).toBe(false);
  } finally {
    e.discord.setScreening(e.guildId, true);
  }
});
