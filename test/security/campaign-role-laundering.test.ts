import { PermissionFlagsBits } from 'discord.js';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/edges/outbound/store/database';
import { Browser } from '../support/browser';
import { type E2E, pageText, startE2E } from '../support/e2e';
import { signIn } from '../support/dashboard-client';
import { EVERYONE, MANAGE_GUILD, MANAGE_ROLES, activePatron, boolOption, roleOption, runCommand } from '../support/e2e-admin';

/**
 * Role laundering through `/connect`: a member with only Manage Server connects his own campaign,
 * one of whose tiers names the server's Administrator role in `chat_role_ids`; his second account
 * pledges to that tier and runs `/link`. Before: it was given the Administrator role. Now:
 * connecting needs the server owner or an administrator, and a role with dangerous permissions that
 * a tier names is granted only once the owner or an administrator allowed it by name (`/allow-role`).
 * The whole service runs against the stand-ins; every step goes through Discord's and Patreon's pages.
 */

let e: E2E;
const role = { admins: '', kickers: '', managers: '', moderators: '' };
let mallory: string;
let malloryAlt: string;
let moderator: string;
let insider: string;

const roles = (userId: string) => e.discord.memberRoles(e.guildId, userId);
const rows = <T extends Record<string, unknown>>(query: ReturnType<typeof sql>) => queryRows<T>(e.db.database.db, query);
const asOwner = (name: string, options: Array<Record<string, unknown>> = []) =>
  runCommand(e, { userId: e.ownerId, name, options, memberPermissions: EVERYONE });

beforeAll(async () => {
  e = await startE2E();
  const botPosition = () => e.discord.guild(e.guildId).roles.find((r) => r.id === e.discord.guild(e.guildId).botRoleId)!.position;
  // Below the bot, so that Discord would let the bot give them: only Tierlink's own rules stand in the way.
  const below = (name: string, permissions = 0n) => e.discord.createRole(e.guildId, { name, permissions, position: botPosition() }).id;
  role.admins = below('Admins', PermissionFlagsBits.Administrator);
  role.kickers = below('Kickers', PermissionFlagsBits.KickMembers);
  role.managers = below('Managers', PermissionFlagsBits.ManageGuild);
  role.moderators = below('Moderators', PermissionFlagsBits.ManageRoles);
  mallory = e.discord.addMember(e.guildId, { username: 'mallory', roleIds: [role.managers] }).userId;
  malloryAlt = e.discord.addMember(e.guildId, { username: 'mallory-alt' }).userId;
  moderator = e.discord.addMember(e.guildId, { username: 'moderator', roleIds: [role.moderators] }).userId;
  // His campaign: a cheap tier whose Discord role on Patreon is the server's Administrator role.
  insider = e.patreon.createTier(e.patreon.campaignId, { title: 'Insider', amountCents: 100, chatRoleIds: [role.admins] }).id;
}, 60_000);
afterAll(() => e?.stop());

test('a member with only Manage Server cannot connect a campaign: his second account gets no Administrator role', async () => {
  const reply = await runCommand(e, { userId: mallory, name: 'connect', memberPermissions: EVERYONE | MANAGE_GUILD }).reply();
  // Today's code handed him a link here; the attack then runs to its end whatever the reply was.
  if (reply.urls[0]) {
    const browser = new Browser();
    const step = await e.followToService(browser, reply.urls[0], mallory);
    if (step.kind === 'service') await browser.get(await e.patreon.approveAuthorization(step.url, e.patreon.creatorUserId));
  }
  const alt = activePatron(e, 'Mallory Alt', [insider]);
  const link = await runCommand(e, { userId: malloryAlt, name: 'link', memberPermissions: EVERYONE }).reply();
  if (link.urls[0]) {
    const browser = new Browser();
    const step = await e.followToService(browser, link.urls[0], malloryAlt);
    if (step.kind === 'service') await browser.get(await e.patreon.approveAuthorization(step.url, alt.id));
  }

  expect(roles(malloryAlt)).not.toContain(role.admins);
  expect(await rows(sql`select * from role_grants where role_id = ${role.admins}`)).toEqual([]);
  expect(reply.urls).toEqual([]);
  expect(reply.content).toBe(
    'Only the server owner or an administrator can connect a Patreon campaign: every role its tiers name is given to their ' +
      'patrons. Ask one of them to run /connect.',
  );
  expect(await e.tierlink.services.repos.guilds.campaignsOf(e.guildId)).toEqual([]);
  expect(link.content).toMatch(/^This server is not connected to a Patreon campaign yet/);
});

test('a link that an owner made still needs the owner or an administrator when it is used: the Manage Server member cannot use it', async () => {
  // The owner made a /connect link; Mallory got hold of it. Signing in with Discord shows who he is.
  const reply = await asOwner('connect').reply();
  const browser = new Browser();
  const step = await e.followToService(browser, reply.urls[0]!, mallory);
  expect(step.kind).toBe('page');
  expect(await e.tierlink.services.repos.guilds.campaignsOf(e.guildId)).toEqual([]);
});

describe('a campaign the owner connects whose tier names a role with dangerous permissions', () => {
  let patron: { id: string };
  let page: string;
  let ivy: string;

  beforeAll(async () => {
    const connected = await e.connect();
    expect(connected.status).toBe(200);
    page = pageText(connected.html);
    patron = activePatron(e, 'Ivy Insider', [insider]);
  });

  test('the connect page names the role held back and how to allow it', () => {
    expect(page).toContain('Connected, with 1 thing to fix');
    expect(page).toContain(
      'Insider To fix Admins is held back: it has the Administrator permission, and the server owner or an administrator has ' +
        'not allowed Tierlink to give it. The server owner or an administrator can allow it with /allow-role role:@Admins, or ' +
        'remove the permission from Admins.',
    );
  });

  test('a patron of that tier links and is not given the role; the page says why', async () => {
    ivy = e.discord.addMember(e.guildId, { username: 'ivy' }).userId;
    const linked = await e.link(ivy, patron.id);
    expect(linked.status).toBe(200);
    expect(roles(ivy)).not.toContain(role.admins);
    expect(await rows(sql`select * from role_grants where role_id = ${role.admins}`)).toEqual([]);
    expect(pageText(linked.html)).toContain('Admins');
    expect(pageText(linked.html)).toContain('held back');
  });

  test('/doctor and /tiers show the role held back with the fix', async () => {
    const doctor = (await runCommand(e, { userId: e.ownerId, name: 'doctor', memberPermissions: MANAGE_ROLES }).reply()).content;
    expect(doctor).toContain(
      '❌ **Role Admins**: held back: it has the Administrator permission, and no server owner or administrator has allowed ' +
        'Tierlink to give it (Insider’s Discord role on Patreon)',
    );
    expect(doctor).toContain(
      '**Fix:** If every patron of Insider should have that power, the server owner or an administrator runs /allow-role ' +
        'role:@Admins. Otherwise choose another role for Insider on Patreon, or remove the permission from Admins.',
    );
    const tiers = (await runCommand(e, { userId: e.ownerId, name: 'tiers', memberPermissions: MANAGE_ROLES }).reply()).content;
    expect(tiers).toMatch(/Admins.*held back/);
  });

  test('a moderator with Manage Roles cannot allow it; nothing is stored', async () => {
    const reply = await runCommand(e, {
      userId: moderator,
      name: 'allow-role',
      options: [roleOption('role', role.admins)],
      memberPermissions: EVERYONE | MANAGE_ROLES | PermissionFlagsBits.Administrator,
    }).reply();
    expect(reply.content).toMatch(/^Only the server owner or an administrator can allow Tierlink to give a role/);
    expect(await rows(sql`select * from role_allowances`)).toEqual([]);
    expect(roles(ivy)).not.toContain(role.admins);
  });

  test('the owner allows it by name: the patron gets the role, and the allowance is stored with who and what', async () => {
    const reply = await asOwner('allow-role', [roleOption('role', role.admins)]).until(/Updated|failed/);
    expect(reply.content).toMatch(/^Tierlink may now give \*\*Admins\*\* \(Administrator\) to the patrons of Insider\./);
    expect(reply.content).toMatch(/Updated: 1 role change/);
    expect(roles(ivy)).toContain(role.admins);
    const [stored] = await rows<{ guild_id: string; role_id: string; allowed_by: string; permissions: string }>(
      sql`select guild_id, role_id, allowed_by, permissions from role_allowances`,
    );
    expect(stored).toEqual({
      guild_id: e.guildId,
      role_id: role.admins,
      allowed_by: e.ownerId,
      permissions: String(PermissionFlagsBits.Administrator),
    });
  });

  test('taking the allowance back holds the role back again for new patrons', async () => {
    const reply = await asOwner('allow-role', [roleOption('role', role.admins), boolOption('allowed', false)]).reply();
    expect(reply.content).toMatch(/^Tierlink no longer gives \*\*Admins\*\*/);
    expect(await rows(sql`select * from role_allowances`)).toEqual([]);
    const late = activePatron(e, 'Late Insider', [insider]);
    const lateDiscord = e.discord.addMember(e.guildId, { username: 'late' }).userId;
    await e.link(lateDiscord, late.id);
    expect(roles(lateDiscord)).not.toContain(role.admins);
  });

  test('on the dashboard a moderator sees the role held back and cannot allow it; the owner allows it there', async () => {
    const tiersPage = `/dashboard/${e.guildId}/tiers`;
    const moderatorBrowser = (await signIn(e, moderator)).browser;
    const seen = await moderatorBrowser.get(tiersPage);
    expect(pageText(seen.html)).toContain(
      'Admins is held back: it has the Administrator permission, and the server owner or an administrator has not allowed Tierlink to give it. Everyone Tierlink gives it to would have that power',
    );
    const refused = await moderatorBrowser.post(`${tiersPage}/allow`, { role: role.admins }, { csrfFrom: seen.html });
    expect(refused.status).toBe(303);
    expect(pageText((await moderatorBrowser.follow(refused)).html)).toContain(
      'Nothing was allowed: Only the server owner or an administrator can allow Tierlink to give a role with powerful permissions',
    );
    expect(await rows(sql`select * from role_allowances`)).toEqual([]);

    const ownerBrowser = (await signIn(e, e.ownerId)).browser;
    const form = await ownerBrowser.get(tiersPage);
    const allowed = await ownerBrowser.post(`${tiersPage}/allow`, { role: role.admins }, { csrfFrom: form.html });
    const after = pageText((await ownerBrowser.follow(allowed)).html);
    expect(after).toContain('Tierlink may now give @Admins (Administrator) to the patrons of Insider.');
    expect(after).not.toContain('Admins is held back');
    expect(await rows(sql`select role_id, allowed_by from role_allowances`)).toEqual([{ role_id: role.admins, allowed_by: e.ownerId }]);
    // Without the form's token nothing is allowed (the dashboard's CSRF rule).
    await asOwner('allow-role', [roleOption('role', role.admins), boolOption('allowed', false)]).reply();
    const forged = await ownerBrowser.post(`${tiersPage}/allow`, { role: role.admins, _csrf: 'x' });
    expect(forged.status).toBe(403);
    expect(await rows(sql`select * from role_allowances`)).toEqual([]);
  });
});

test('a role that gains a dangerous permission after it was allowed is held back again until allowed for that too', async () => {
  const helpers = e.discord.createRole(e.guildId, { name: 'Helpers', permissions: PermissionFlagsBits.ManageNicknames }).id;
  const silver = e.tiers.silver;
  e.patreon.updateTier(silver, { chatRoleIds: [helpers] });
  // The owner allows it with Kick Members; later someone gives it Ban Members as well.
  e.discord.updateRole(e.guildId, helpers, { permissions: PermissionFlagsBits.KickMembers });
  await asOwner('allow-role', [roleOption('role', helpers)]).until(/Updated|failed/);
  e.discord.updateRole(e.guildId, helpers, { permissions: PermissionFlagsBits.KickMembers | PermissionFlagsBits.BanMembers });
  const patron = activePatron(e, 'Sid Silver', [silver]);
  const sid = e.discord.addMember(e.guildId, { username: 'sid' }).userId;
  await e.link(sid, patron.id);
  expect(roles(sid)).not.toContain(helpers);
  const doctor = (await runCommand(e, { userId: e.ownerId, name: 'doctor', memberPermissions: MANAGE_ROLES }).reply()).content;
  expect(doctor).toContain(
    '❌ **Role Helpers**: held back: it gained the Ban Members permission since the server owner or an administrator allowed it (Silver’s Discord role on Patreon)',
  );
  await asOwner('allow-role', [roleOption('role', helpers)]).until(/Updated|failed/);
  expect(roles(sid)).toContain(helpers);
});

test('the owner naming a role with a dangerous permission in /map allows it, and says so', async () => {
  const mods = e.discord.createRole(e.guildId, { name: 'Mods', permissions: PermissionFlagsBits.ModerateMembers }).id;
  const reply = await asOwner('map', [
    { name: 'tier', type: 3, value: `${e.patreon.campaignId}:${e.tiers.bronze}` },
    roleOption('role', mods),
  ]).until(/Updated|failed/);
  expect(reply.content).toMatch(
    /^\*\*Bronze\*\* now grants \*\*Mods\*\*\. It has Moderate Members: every patron of Bronze gets that power \(you allowed it by mapping it;/,
  );
  expect(await rows(sql`select allowed_by from role_allowances where role_id = ${mods}`)).toEqual([{ allowed_by: e.ownerId }]);
});

test('a tier refresh that names a role with a dangerous permission holds it back as well', async () => {
  // The creator's tier on Patreon changes its Discord role to Kickers; a patron's webhook refreshes the tiers.
  const gold = e.tiers.gold;
  e.patreon.updateTier(gold, { chatRoleIds: [role.kickers] });
  const golden = activePatron(e, 'Gail Gold', [gold]);
  const gail = e.discord.addMember(e.guildId, { username: 'gail' }).userId;
  await e.link(gail, golden.id);
  const tier = (await e.tierlink.services.repos.campaigns.tiersOf([e.patreon.campaignId])).find((t) => t.id === gold)!;
  expect(tier.roleIds.everywhere).toEqual([role.kickers]);
  expect(roles(gail)).not.toContain(role.kickers);
  const doctor = (await runCommand(e, { userId: e.ownerId, name: 'doctor', memberPermissions: MANAGE_ROLES }).reply()).content;
  expect(doctor).toContain('❌ **Role Kickers**: held back: it has the Kick Members permission');
});

test('a role at or above the bot that a tier names is never granted, and cannot be allowed', async () => {
  const top = e.patreon.createTier(e.patreon.campaignId, { title: 'Top', amountCents: 9000, chatRoleIds: [e.roles.vip] }).id;
  const allowed = await asOwner('allow-role', [roleOption('role', e.roles.vip)]).reply();
  expect(allowed.content).toMatch(/^Nothing was allowed: VIP is at or above/);
  const patron = activePatron(e, 'Topper', [top]);
  const topper = e.discord.addMember(e.guildId, { username: 'topper' }).userId;
  await e.link(topper, patron.id);
  expect(roles(topper)).not.toContain(e.roles.vip);
});

describe('creator tokens in the environment', () => {
  let env: E2E;
  let admins: string;
  beforeAll(async () => {
    env = await startE2E({
      creatorTokensInEnv: true,
      beforeStart: ({ patreon, discord, guildId }) => {
        const botPosition = discord.guild(guildId).roles.find((r) => r.id === discord.guild(guildId).botRoleId)!.position;
        admins = discord.createRole(guildId, { name: 'Admins', permissions: PermissionFlagsBits.Administrator, position: botPosition }).id;
        patreon.createTier(patreon.campaignId, { title: 'Insider', amountCents: 100, chatRoleIds: [admins] });
      },
    });
  }, 60_000);
  afterAll(() => env?.stop());

  test('bind the campaign, and hold back the role with dangerous permissions its tier names until the owner allows it', async () => {
    expect(await env.tierlink.services.repos.guilds.campaignsOf(env.guildId)).toEqual([env.patreon.campaignId]);
    const tier = (await env.tierlink.services.repos.campaigns.tiersOf([env.patreon.campaignId])).find((t) => t.title === 'Insider')!;
    const patron = env.patreon.createUser({ fullName: 'Env Insider' });
    env.patreon.setMembership(
      patron.id,
      env.patreon.campaignId,
      { patronStatus: 'active_patron', tierIds: [tier.id], lastChargeDate: env.clock.now(), lastChargeStatus: 'Paid' },
      { deliver: false },
    );
    const member = env.discord.addMember(env.guildId, { username: 'insider' }).userId;
    await env.link(member, patron.id);
    expect(env.discord.memberRoles(env.guildId, member)).not.toContain(admins);
    const doctor = (await runCommand(env, { userId: env.ownerId, name: 'doctor', memberPermissions: MANAGE_ROLES }).reply()).content;
    expect(doctor).toContain('❌ **Role Admins**: held back: it has the Administrator permission');
  });
});
