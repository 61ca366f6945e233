import { DAY } from '../../src/shared/clock';
import { type E2E, pageText, startE2E } from '../support/e2e';
import { MANAGE_ROLES, runCommand, roleOption, stringOption } from '../support/e2e-admin';
import { signIn } from '../support/dashboard-client';

/**
 * Roles by tenure and amount set with `/settings` and on the dashboard, and comps given and ended
 * on a member's page: the same services as the commands, the same authority.
 */
let e: E2E;
let veteran: string;
let big: string;
/** Ada: Gold patron for eight months, pledging $25 a month, linked. */
let ada: string;
/** Bo: Bronze patron since last week, pledging $3, linked. */
let bo: string;

const settings = (options: Array<Record<string, unknown>>, userId?: string) =>
  runCommand(e, { userId: userId ?? e.ownerId, name: 'settings', options, memberPermissions: MANAGE_ROLES });
const holds = (userId: string, roleId: string) => e.discord.memberRoles(e.guildId, userId).includes(roleId);

function patron(fullName: string, tierId: string, start: Date, amountCents: number): string {
  const user = e.patreon.createUser({ fullName });
  e.patreon.setMembership(
    user.id,
    e.patreon.campaignId,
    {
      patronStatus: 'active_patron',
      tierIds: [tierId],
      lastChargeDate: e.clock.now(),
      lastChargeStatus: 'Paid',
      pledgeRelationshipStart: start,
      currentlyEntitledAmountCents: amountCents,
    },
    { deliver: false },
  );
  return user.id;
}

beforeAll(async () => {
  e = await startE2E({ connected: true });
  veteran = e.discord.createRole(e.guildId, { name: 'Veteran' }).id;
  big = e.discord.createRole(e.guildId, { name: 'Big Supporter' }).id;
  ada = e.discord.addMember(e.guildId, { username: 'ada' }).userId;
  bo = e.discord.addMember(e.guildId, { username: 'bo' }).userId;
  await e.link(ada, patron('Ada', e.tiers.gold, new Date(e.clock.now().getTime() - 240 * DAY), 2500));
  await e.link(bo, patron('Bo', e.tiers.bronze, new Date(e.clock.now().getTime() - 7 * DAY), 300));
}, 60_000);
afterAll(() => e?.stop());

test('/settings rule_role with "6 months" gives the tenure role to the patrons of six months or more, and says so', async () => {
  const reply = await settings([roleOption('rule_role', veteran), stringOption('rule_at_least', '6 months')]).until(/Updated|failed/);
  expect(reply.content).toContain('**Roles by tenure and amount**');
  expect(reply.content).toContain(`<@&${veteran}> for patrons of 6 months or more`);
  expect(reply.content).toMatch(/Updated: 1 role change across \d+ members?\./);
  expect(holds(ada, veteran)).toBe(true);
  expect(holds(bo, veteran)).toBe(false);
  const status = await runCommand(e, { userId: ada, name: 'status' }).reply();
  expect(status.content).toMatch(/a patron for [78] months/);
});

test('/settings with an amount gives the amount role whatever the tier; a half-given rule changes nothing', async () => {
  const half = await settings([roleOption('rule_role', big)]).reply();
  expect(half.content).toMatch(/^Nothing was changed: give \*\*rule_role\*\* and \*\*rule_at_least\*\* together/);
  await settings([roleOption('rule_role', big), stringOption('rule_at_least', '20')]).until(/Updated|failed/);
  expect(holds(ada, big)).toBe(true);
  expect(holds(bo, big)).toBe(false);
  const shown = await settings([]).reply();
  expect(shown.content).toContain(`<@&${big}> for anyone entitled to 20.00 or more a month, whatever the tier`);
});

test('a moderator below the rule’s role cannot set or remove it', async () => {
  const mod = e.discord.addMember(e.guildId, { username: 'mod' }).userId;
  const modRole = e.discord.createRole(e.guildId, { name: 'Mods', position: 1, permissions: MANAGE_ROLES }).id;
  e.discord.setMemberRolesByHand(e.guildId, mod, [modRole]);
  const refused = await settings([roleOption('clear_rule_role', veteran)], mod).reply();
  expect(refused.content).toMatch(/^Nothing was changed: /);
  expect(holds(ada, veteran)).toBe(true);
});

test('the dashboard lists the rules and removes one; the role goes from those who had it by the rule', async () => {
  const { browser } = await signIn(e, e.ownerId);
  const page = await browser.get(`/dashboard/${e.guildId}/tiers`);
  const text = pageText(page.html);
  expect(text).toContain('Roles by tenure and amount');
  expect(text).toContain('patrons of 6 months or more');
  expect(text).toContain('20.00 or more a month, whatever the tier');
  const forged = await browser.post(`/dashboard/${e.guildId}/rules/remove`, { role: big });
  expect(forged.status).toBe(403);
  // The page shows what removing it would do first; nothing changes until Confirm.
  const shown = await browser.post(`/dashboard/${e.guildId}/rules/remove`, { role: big }, { csrfFrom: page.html });
  expect(shown.status).toBe(200);
  expect(pageText(shown.html)).toContain('Removes @Big Supporter from 1 member');
  expect(holds(ada, big)).toBe(true);
  const token = /name="token" value="([^"]+)"/.exec(shown.html)![1]!;
  const answer = await browser.post(`/dashboard/${e.guildId}/changes/confirm`, { token }, { csrfFrom: shown.html });
  expect(pageText((await browser.follow(answer)).html)).toContain('Rule removed.');
  expect(holds(ada, big)).toBe(false);
  expect(holds(ada, veteran)).toBe(true);
});

test('a comp given and ended on a member’s page, as /comp does', async () => {
  const cy = e.discord.addMember(e.guildId, { username: 'cy' }).userId;
  const { browser } = await signIn(e, e.ownerId);
  const page = await browser.get(`/dashboard/${e.guildId}/members/${cy}`);
  expect(pageText(page.html)).toContain('No comp in force.');
  const tierRef = /<option value="([^"]+)">Silver<\/option>/.exec(page.html)![1]!;
  const given = await browser.post(
    `/dashboard/${e.guildId}/members/${cy}/comps`,
    { action: 'grant', tier: tierRef, until: '2026-12-24', reason: 'helps with events' },
    { csrfFrom: page.html },
  );
  const after = pageText((await browser.follow(given)).html);
  expect(after).toContain('Silver given as a comp until 2026-12-25 00:00 UTC.');
  expect(after).toContain('helps with events');
  expect(holds(cy, e.roles.silver)).toBe(true);

  const again = await browser.get(`/dashboard/${e.guildId}/members/${cy}`);
  const ended = await browser.post(
    `/dashboard/${e.guildId}/members/${cy}/comps`,
    { action: 'revoke', tier: tierRef },
    { csrfFrom: again.html },
  );
  expect(pageText((await browser.follow(ended)).html)).toContain('The comp of Silver has ended.');
  expect(holds(cy, e.roles.silver)).toBe(false);
});
