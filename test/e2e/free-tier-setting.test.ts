import { Permission } from '@tierlink/sandbox/discord';
import { signIn } from '../support/dashboard-client';
import { type E2E, pageText, startE2E } from '../support/e2e';
import { MANAGE_ROLES, boolOption, runCommand } from '../support/e2e-admin';

/**
 * Whether a free tier grants its roles (every kind of member): a per-guild setting, yes by
 * default, changed with `/settings free_tiers_grant_roles:` or on the dashboard's Tiers-and-roles
 * page. Turning it off takes the free tier's role from its free members through the one apply path
 * (ledger row gone, audit row with the settings trigger); on gives it back. A moderator whose
 * highest role is below the free tier's role may not change it either way.
 */

let e: E2E;
let freeRole: string;
let freeTier: string;
/** Fiona: a free member of the campaign (no pledge, the free tier listed), linked. */
let fiona: string;
let moderator: string;

const roles = (userId: string) => e.discord.memberRoles(e.guildId, userId).sort();
const stored = async () => (await e.tierlink.services.repos.guilds.settings(e.guildId)).freeTiersGrantRoles;
const ledgerRoles = async (userId: string) =>
  (await e.tierlink.services.repos.ledger.forUser(e.guildId, userId)).map((entry) => entry.roleId);
const settings = (userId: string, options: Array<Record<string, unknown>> = []) =>
  runCommand(e, { userId, name: 'settings', options, memberPermissions: MANAGE_ROLES });

/** The dashboard's settings form as the page sends it, with the free-tier box ticked or not. */
const settingsForm = (freeTiers: boolean): Record<string, string> => ({
  grace_days: '7',
  mode: 'stack',
  former_role: '',
  follower_role: '',
  removal_threshold_percent: '10',
  removal_threshold_min: '25',
  ...(freeTiers ? { free_tiers_grant_roles: 'on' } : {}),
});

beforeAll(async () => {
  e = await startE2E({
    connected: true,
    beforeStart: (world) => {
      freeRole = world.discord.createRole(world.guildId, { name: 'Free Members' }).id;
      freeTier = world.patreon.createTier(world.patreon.campaignId, { title: 'Free', amountCents: 0, chatRoleIds: [freeRole] }).id;
    },
  });
  const moderators = e.discord.createRole(e.guildId, { name: 'Moderators', position: 1, permissions: Permission.ManageRoles }).id;
  moderator = e.discord.addMember(e.guildId, { username: 'mod', roleIds: [moderators] }).userId;
  const guildRoles = e.discord.guild(e.guildId).roles;
  const position = (id: string) => guildRoles.find((r) => r.id === id)!.position;
  // Free Members: above the moderator's highest role, below the bot's (only the moderator's rank refuses it).
  if (!(position(moderators) < position(freeRole) && position(freeRole) < position(e.discord.guild(e.guildId).botRoleId)))
    throw new Error('unexpected role order');

  fiona = e.discord.addMember(e.guildId, { username: 'fiona' }).userId;
  const free = e.patreon.createUser({ fullName: 'Fiona Free' });
  e.patreon.setMembership(
    free.id,
    e.patreon.campaignId,
    { patronStatus: null, tierIds: [freeTier], lastChargeDate: null, lastChargeStatus: null },
    { deliver: false },
  );
  await e.link(fiona, free.id);
  await e.discord.waitForMemberRole(e.guildId, fiona, freeRole, { present: true });
}, 60_000);
afterAll(() => e?.stop());

test('by default a free tier grants its role, and /settings says so', async () => {
  expect(await stored()).toBe(true);
  expect(roles(fiona)).toEqual([freeRole]);
  expect(await ledgerRoles(fiona)).toEqual([freeRole]);
  expect((await settings(e.ownerId).reply()).content).toContain(
    '• **Free tiers grant their roles**: yes (a free tier’s mapped roles go to its free members)',
  );
});

test('a moderator below the free tier’s role may not turn it off or on, in Discord or on the dashboard', async () => {
  const refused = await settings(moderator, [boolOption('free_tiers_grant_roles', false)]).reply();
  expect(refused.content).toMatch(/^Nothing was changed:\n• Free tiers cannot stop granting Free Members: .*\*\*Fix:\*\*/);
  expect(await stored()).toBe(true);
  expect(roles(fiona)).toEqual([freeRole]);

  const { browser } = await signIn(e, moderator);
  const page = await browser.get(`/dashboard/${e.guildId}/tiers`);
  expect(page.html).toMatch(/name="free_tiers_grant_roles" value="on" checked/);
  const answer = await browser.post(`/dashboard/${e.guildId}/settings`, settingsForm(false), { csrfFrom: page.html });
  const after = pageText((await browser.follow(answer)).html);
  expect(after).toContain('Nothing was changed:');
  expect(after).toContain('Free tiers cannot stop granting Free Members');
  expect(await stored()).toBe(true);
  expect(roles(fiona)).toEqual([freeRole]);
});

test('off: the free member loses the role through the apply path; on: it is granted again', async () => {
  const off = await settings(e.ownerId, [boolOption('free_tiers_grant_roles', false)]).until(/Updated|failed/);
  expect(off.content).toContain('**Settings saved**');
  expect(off.content).toContain('• **Free tiers grant their roles**: no');
  expect(off.content).toMatch(/Updated: 1 role change across 1 member\.$/);
  expect(await stored()).toBe(false);
  expect(roles(fiona)).toEqual([]);
  expect(await ledgerRoles(fiona)).toEqual([]);
  const [removed] = await e.tierlink.services.repos.ledger.recentAudit(e.guildId, fiona, 1);
  expect(removed).toMatchObject({ roleId: freeRole, action: 'remove', outcome: 'applied', trigger: 'settings' });
  expect((await settings(e.ownerId).reply()).content).toContain('• **Free tiers grant their roles**: no');
  // The member is told why.
  const status = await runCommand(e, { userId: fiona, name: 'status' }).reply();
  expect(status.content).toContain('• Free is a free tier, and free tiers grant no role in this server');

  const on = await settings(e.ownerId, [boolOption('free_tiers_grant_roles', true)]).until(/Updated|failed/);
  expect(on.content).toMatch(/Updated: 1 role change across 1 member\.$/);
  expect(await stored()).toBe(true);
  expect(roles(fiona)).toEqual([freeRole]);
  expect(await ledgerRoles(fiona)).toEqual([freeRole]);
  const [granted] = await e.tierlink.services.repos.ledger.recentAudit(e.guildId, fiona, 1);
  expect(granted).toMatchObject({ roleId: freeRole, action: 'add', outcome: 'applied', trigger: 'settings' });
});

test('the owner turns it off and on again on the dashboard’s settings form', async () => {
  const { browser } = await signIn(e, e.ownerId);
  const post = async (freeTiers: boolean) => {
    const page = await browser.get(`/dashboard/${e.guildId}/tiers`);
    const shown = await browser.post(`/dashboard/${e.guildId}/settings`, settingsForm(freeTiers), { csrfFrom: page.html });
    // The page shows what the change would do first (src/app/sync/change-preview.ts); nothing is saved until Confirm.
    expect(shown.status).toBe(200);
    expect(pageText(shown.html)).toContain(freeTiers ? 'Gives @' : 'Removes @');
    expect(await stored()).toBe(!freeTiers);
    const token = /name="token" value="([^"]+)"/.exec(shown.html)![1]!;
    const answer = await browser.post(`/dashboard/${e.guildId}/changes/confirm`, { token }, { csrfFrom: shown.html });
    expect(answer.status).toBe(303);
    return pageText((await browser.follow(answer)).html);
  };
  // Without the form's CSRF token nothing is saved.
  const forged = await browser.post(`/dashboard/${e.guildId}/settings`, settingsForm(false));
  expect(forged.status).toBe(403);
  expect(await stored()).toBe(true);

  const off = await post(false);
  expect(off).toContain('Settings saved.');
  expect(off).toContain('Members’ roles updated: 1 role change');
  expect(await stored()).toBe(false);
  expect(roles(fiona)).toEqual([]);
  const page = await browser.get(`/dashboard/${e.guildId}/tiers`);
  expect(page.html).toMatch(/name="free_tiers_grant_roles" value="on"(?! checked)/);

  await post(true);
  expect(await stored()).toBe(true);
  expect(roles(fiona)).toEqual([freeRole]);
});
