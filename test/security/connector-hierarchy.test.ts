import { PermissionFlagsBits } from 'discord.js';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/edges/outbound/store/database';
import { signIn } from '../support/dashboard-client';
import { type E2E, pageText, startE2E } from '../support/e2e';
import { EVERYONE, MANAGE_ROLES, activePatron, boolOption, roleOption, runCommand, tierOption } from '../support/e2e-admin';

/**
 * Role laundering through a campaign an Administrator connects: Sam is an Administrator whose
 * highest role, Head Admin, sits below Council, a plain role (no dangerous permission, so no
 * allowance stands in the way). Discord would not let him give Council. He connects his own
 * campaign, whose Insider tier names Council and Crew on Patreon, and his second account pledges to
 * Insider. Before: the second account was given Council. Now: a role a tier names is given only
 * below the highest role of whoever connected the campaign, unless someone who may give it maps it
 * or connects the campaign again. The whole service runs against the stand-ins; every step goes
 * through Discord's and Patreon's pages and the real discord.js client.
 */

let e: E2E;
const role = { crew: '', headAdmin: '', council: '' };
let sam: string;
let samAlt: string;
/** An Insider patron who links while Sam is demoted. */
let newcomer: string;
let insider: string;

const roles = (userId: string) => e.discord.memberRoles(e.guildId, userId);
const rows = <T extends Record<string, unknown>>(query: ReturnType<typeof sql>) => queryRows<T>(e.db.database.db, query);
const asOwner = (name: string, options: Array<Record<string, unknown>> = []) =>
  runCommand(e, { userId: e.ownerId, name, options, memberPermissions: EVERYONE | MANAGE_ROLES });
const insiderRef = () => `${e.patreon.campaignId}:${insider}`;

beforeAll(async () => {
  e = await startE2E();
  const botPosition = () => e.discord.guild(e.guildId).roles.find((r) => r.id === e.discord.guild(e.guildId).botRoleId)!.position;
  // Each insert takes the bot's place and pushes the bot up: each role lands above the one before, all below the bot.
  const below = (name: string, permissions = 0n) => e.discord.createRole(e.guildId, { name, permissions, position: botPosition() }).id;
  role.crew = below('Crew');
  role.headAdmin = below('Head Admin', PermissionFlagsBits.Administrator);
  role.council = below('Council');
  sam = e.discord.addMember(e.guildId, { username: 'sam', roleIds: [role.headAdmin] }).userId;
  samAlt = e.discord.addMember(e.guildId, { username: 'sam-alt' }).userId;
  insider = e.patreon.createTier(e.patreon.campaignId, { title: 'Insider', amountCents: 100, chatRoleIds: [role.council, role.crew] }).id;
}, 60_000);
afterAll(() => e?.stop());

test('the roles are where the attack needs them: Council above Head Admin, Crew below it, all below the bot', () => {
  const position = (id: string) => e.discord.guild(e.guildId).roles.find((r) => r.id === id)!.position;
  expect(position(role.council)).toBeGreaterThan(position(role.headAdmin));
  expect(position(role.headAdmin)).toBeGreaterThan(position(role.crew));
  expect(position(e.discord.guild(e.guildId).botRoleId)).toBeGreaterThan(position(role.council));
});

test('an Administrator connects his campaign: the page names Council held back, and the binding keeps who connected it and his highest role', async () => {
  const connected = await e.connect(sam);
  expect(connected.status).toBe(200);
  const page = pageText(connected.html);
  expect(page).toContain('Connected, with 1 thing to fix');
  expect(page).toContain(
    'Council is held back: it is at or above Head Admin, the highest role of whoever connected this campaign, and Discord ' +
      'lets them give only roles below their own.',
  );
  expect(await rows(sql`select connected_by, connector_role_id from guild_campaigns`)).toEqual([
    { connected_by: sam, connector_role_id: role.headAdmin },
  ]);
});

test('his second account pledges to Insider and links: it gets Crew, never Council, and the page says why', async () => {
  const linked = await e.link(samAlt, activePatron(e, 'Sam Alt', [insider]).id);
  expect(linked.status).toBe(200);
  expect(roles(samAlt)).toContain(role.crew);
  expect(roles(samAlt)).not.toContain(role.council);
  expect(await rows(sql`select * from role_grants where role_id = ${role.council}`)).toEqual([]);
  expect(pageText(linked.html)).toContain('Council is held back: it is at or above Head Admin');
});

test('the nightly sync does not give it either; /doctor and /tiers name it with the fix', async () => {
  const synced = await e.tierlink.services.sync.runSync({ dryRun: false, force: false, trigger: 'manual' });
  expect(synced).not.toHaveProperty('skipped');
  expect(roles(samAlt)).not.toContain(role.council);
  expect(roles(samAlt)).toContain(role.crew);
  const doctor = (await asOwner('doctor').reply()).content;
  expect(doctor).toContain(
    '❌ **Role Council**: Council is held back: it is at or above Head Admin, the highest role of whoever connected this campaign',
  );
  expect(doctor).toContain(
    '**Fix:** The server owner, or someone whose highest role is above Council, can allow it with /allow-role role:@Council, ' +
      'connect the campaign again with /connect, or map the role to the tier with /map; or choose a lower role for the tier on Patreon.',
  );
  expect((await asOwner('tiers').reply()).content).toMatch(/Council.*held back/);
});

test('Sam cannot map Council himself: /map holds him to the same rule', async () => {
  const reply = await runCommand(e, {
    userId: sam,
    name: 'map',
    options: [tierOption(insiderRef()), roleOption('role', role.council)],
    memberPermissions: EVERYONE | PermissionFlagsBits.Administrator,
  }).reply();
  expect(reply.content).toContain('Council is at or above your highest role, Head Admin.');
  expect(roles(samAlt)).not.toContain(role.council);
});

test('the nightly sync judges Sam by the roles he holds now: promoted above Council his campaign gives it, demoted it holds it again', async () => {
  const botPosition = e.discord.guild(e.guildId).roles.find((r) => r.id === e.discord.guild(e.guildId).botRoleId)!.position;
  const elders = e.discord.createRole(e.guildId, { name: 'Elders', position: botPosition }).id;
  const sync = () => e.tierlink.services.sync.runSync({ dryRun: false, force: false, trigger: 'manual' });
  const stored = async () =>
    (await rows<{ connector_role_id: string }>(sql`select connector_role_id from guild_campaigns`))[0]!.connector_role_id;

  e.discord.setMemberRolesByHand(e.guildId, sam, [role.headAdmin, elders]);
  // A dry run changes nothing, the limit included.
  await e.tierlink.services.sync.runSync({ dryRun: true, force: false, trigger: 'manual' });
  expect(await stored()).toBe(role.headAdmin);
  await sync();
  expect(await stored()).toBe(elders);
  // The next plan judges Council against Elders: the patron gets it.
  await sync();
  expect(roles(samAlt)).toContain(role.council);

  // Demoted below Head Admin (only Crew left): the night after, Council is held for new patrons, and Crew too.
  e.discord.setMemberRolesByHand(e.guildId, sam, [role.crew]);
  await sync();
  expect(await stored()).toBe(role.crew);
  newcomer = e.discord.addMember(e.guildId, { username: 'newcomer' }).userId;
  await e.link(newcomer, activePatron(e, 'New Insider', [insider]).id);
  expect(roles(newcomer)).toEqual([]);
  // Who was given Council while Sam could give it keeps it (held back never removes).
  expect(roles(samAlt)).toContain(role.council);

  // Back to Head Admin for the steps below. The night judges Sam after it planned: the newcomer's
  // Crew waits for the next plan.
  e.discord.setMemberRolesByHand(e.guildId, sam, [role.headAdmin]);
  await sync();
  expect(await stored()).toBe(role.headAdmin);
  expect(roles(newcomer)).toEqual([]);
  e.discord.deleteRole(e.guildId, elders);
});

test('Sam cannot allow Council with /allow-role; the owner can, and taking it back holds it again for new patrons', async () => {
  const refused = await runCommand(e, {
    userId: sam,
    name: 'allow-role',
    options: [roleOption('role', role.council)],
    memberPermissions: EVERYONE | PermissionFlagsBits.Administrator,
  }).reply();
  expect(refused.content).toContain('Council is at or above your highest role, Head Admin.');
  expect(await rows(sql`select * from role_allowances`)).toEqual([]);

  const allowed = await asOwner('allow-role', [roleOption('role', role.council)]).until(/Updated|failed/);
  expect(allowed.content).toMatch(
    /^Tierlink may now give \*\*Council\*\* to the patrons of Insider, though whoever connected the campaign is below it\./,
  );
  // The newcomer: Council by the owner's allowance; Crew, below Head Admin again, at this first plan since the night judged Sam.
  expect(allowed.content).toMatch(/Updated: 2 role changes/);
  expect(roles(newcomer)).toEqual(expect.arrayContaining([role.council, role.crew]));
  expect(await rows(sql`select role_id, allowed_by, permissions from role_allowances`)).toEqual([
    { role_id: role.council, allowed_by: e.ownerId, permissions: '0' },
  ]);

  const withdrawn = await asOwner('allow-role', [roleOption('role', role.council), boolOption('allowed', false)]).reply();
  expect(withdrawn.content).toMatch(/^Tierlink no longer gives \*\*Council\*\*/);
  const later = e.discord.addMember(e.guildId, { username: 'later' }).userId;
  await e.link(later, activePatron(e, 'Later Insider', [insider]).id);
  expect(roles(later)).toEqual([role.crew]);
  // Who was given it keeps it.
  expect(roles(newcomer)).toContain(role.council);
});

test('on the dashboard Council shows held back with an Allow button; Sam’s press of it is refused by the same rule', async () => {
  const tiersPage = `/dashboard/${e.guildId}/tiers`;
  const owner = (await signIn(e, e.ownerId)).browser;
  const html = (await owner.get(tiersPage)).html;
  expect(pageText(html)).toContain(
    'Council is held back: it is at or above Head Admin, the highest role of whoever connected this campaign',
  );
  expect(html).toMatch(new RegExp(`name="role" value="${role.council}"><button class="btn" type="submit">`));

  const samBrowser = (await signIn(e, sam)).browser;
  const seen = await samBrowser.get(tiersPage);
  const refused = await samBrowser.post(`${tiersPage}/allow`, { role: role.council }, { csrfFrom: seen.html });
  expect(refused.status).toBe(303);
  expect(pageText((await samBrowser.follow(refused)).html)).toContain(
    'Nothing was allowed: Council is at or above your highest role, Head Admin.',
  );
  expect(await rows(sql`select * from role_allowances`)).toEqual([]);
});

test('the owner maps Council to Insider: whoever may give it decided, and the patron gets it', async () => {
  const reply = await asOwner('map', [tierOption(insiderRef()), roleOption('role', role.council)]).until(/Updated|failed/);
  expect(reply.content).toMatch(/^\*\*Insider\*\* now grants \*\*Council\*\*\. Updated: 1 role change/);
  expect(roles(samAlt)).toContain(role.council);
  const doctor = (await asOwner('doctor').reply()).content;
  expect(doctor).not.toContain('Council is held back');
});

test('the owner connects the campaign again: the limit goes with the old connector', async () => {
  await asOwner('unmap', [tierOption(insiderRef()), roleOption('role', role.council)]).until(/Updated|failed|Nothing/);
  const connected = await e.connect();
  expect(connected.status).toBe(200);
  expect(pageText(connected.html)).not.toContain('Council is held back');
  expect(await rows(sql`select connected_by, connector_role_id from guild_campaigns`)).toEqual([
    { connected_by: e.ownerId, connector_role_id: null },
  ]);
  const late = e.discord.addMember(e.guildId, { username: 'late' }).userId;
  await e.link(late, activePatron(e, 'Late Insider', [insider]).id);
  expect(roles(late)).toEqual(expect.arrayContaining([role.council, role.crew]));
});

test('Sam connects again and is then made the server’s owner: the night after, his campaign gives Council again', async () => {
  const connector = async () => rows(sql`select connected_by, connector_role_id from guild_campaigns`);
  expect((await e.connect(sam)).status).toBe(200);
  expect(await connector()).toEqual([{ connected_by: sam, connector_role_id: role.headAdmin }]);
  const held = e.discord.addMember(e.guildId, { username: 'held' }).userId;
  await e.link(held, activePatron(e, 'Held Insider', [insider]).id);
  expect(roles(held)).not.toContain(role.council);

  e.discord.transferOwnership(e.guildId, sam);
  await e.tierlink.services.sync.runSync({ dryRun: false, force: false, trigger: 'manual' });
  expect(await connector()).toEqual([{ connected_by: sam, connector_role_id: null }]);
  await e.tierlink.services.sync.runSync({ dryRun: false, force: false, trigger: 'manual' });
  expect(roles(held)).toContain(role.council);
});
