import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/edges/outbound/store/database';
import { DAY } from '../../src/shared/clock';
import { type E2E, startE2E } from '../support/e2e';
import { EVERYONE, MANAGE_ROLES, boolOption, runCommand } from '../support/e2e-admin';

/**
 * Messages to patrons, end to end through both stand-ins (real HTTP, a real database): a declined
 * payment sends the linked patron one direct message with the date their roles go and where to
 * update the payment, once per decline whatever redelivers it; closed DMs (Discord's 50007) are
 * noted and never stop the role changes; nothing is sent unless the server turned messages on, nor
 * to a patron who turned them off with `/privacy`.
 */

let e: E2E;
const records = () => e.tierlink.services.repos.directMessages;
const settled = () => e.tierlink.services.patronMessages.settled();
const settings = (userId: string, on: boolean, memberPermissions = MANAGE_ROLES) =>
  runCommand(e, { userId, name: 'settings', options: [boolOption('patron_messages', on)], memberPermissions }).reply();

beforeAll(async () => {
  e = await startE2E({ connected: true });
}, 60_000);
afterAll(() => e?.stop());

/** A patron of Silver, linked to a new member of the server, who holds the Silver role. */
async function linkedPatron(name: string) {
  const patron = e.patreon.createUser({ fullName: name });
  e.patreon.setMembership(
    patron.id,
    e.patreon.campaignId,
    { patronStatus: 'active_patron', tierIds: [e.tiers.silver], lastChargeDate: e.clock.now(), lastChargeStatus: 'Paid' },
    { deliver: false },
  );
  const userId = e.discord.addMember(e.guildId, { username: name.toLowerCase().replace(/\W/g, '') }).userId;
  await e.link(userId, patron.id);
  expect(e.discord.memberRoles(e.guildId, userId)).toContain(e.roles.silver);
  return { patronId: patron.id, userId };
}

/** Patreon declines the patron's payment now and delivers the webhook; resolves when Tierlink has acted on it. */
async function decline(patronId: string): Promise<Date> {
  // Past the member-role bucket's window (Discord's 10 per 10 s): every change applies at once.
  e.clock.advance(11_000);
  const at = e.clock.now();
  e.patreon.setMembership(
    patronId,
    e.patreon.campaignId,
    { patronStatus: 'declined_patron', tierIds: [e.tiers.silver], lastChargeDate: at, lastChargeStatus: 'Declined' },
    { trigger: ['members:pledge:update'] },
  );
  await e.patreon.flushDeliveries();
  await waitForInbox();
  await settled();
  return at;
}

/** Until every webhook delivery received has been acted on. */
async function waitForInbox(): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const rows = await queryRows<{ n: number }>(
      e.db.database.db,
      sql`select count(*)::int as n from webhook_inbox where status = 'pending'`,
    );
    if (rows[0]?.n === 0) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the webhook inbox did not drain');
}

/** Tierlink has the decline: the member's own status says so, and their role is kept. */
async function expectDeclineSeen(userId: string): Promise<void> {
  const status = await e.command(userId, 'status');
  expect(status.content).toMatch(/payment declined/);
  expect(e.discord.memberRoles(e.guildId, userId)).toContain(e.roles.silver);
}

test('turning messages to patrons on needs Manage Server, and /settings shows the switch', async () => {
  const botPosition = () => e.discord.guild(e.guildId).roles.find((r) => r.id === e.discord.guild(e.guildId).botRoleId)!.position;
  const modRole = e.discord.createRole(e.guildId, { name: 'Moderator', permissions: MANAGE_ROLES, position: botPosition() }).id;
  const moderator = e.discord.addMember(e.guildId, { username: 'mod', roleIds: [modRole] }).userId;

  const refused = await settings(moderator, true, EVERYONE | MANAGE_ROLES);
  expect(refused.content).toContain('Turning messages to patrons on needs the Manage Server permission');
  expect(await e.tierlink.services.repos.guilds.patronMessages(e.guildId)).toBe(false);

  const shown = await runCommand(e, { userId: e.ownerId, name: 'settings', options: [], memberPermissions: MANAGE_ROLES }).reply();
  expect(shown.content).toMatch(/\*\*Messages to patrons\*\* \(.*\): off/);

  const saved = await runCommand(e, {
    userId: e.ownerId,
    name: 'settings',
    options: [boolOption('patron_messages', true)],
    memberPermissions: MANAGE_ROLES,
  }).until(/Settings saved/);
  expect(saved.content).toMatch(/\*\*Messages to patrons\*\* \(.*\): on/);
  expect(await e.tierlink.services.repos.guilds.patronMessages(e.guildId)).toBe(true);
});

test('a declined payment sends one direct message with the date the roles go and where to update the payment; its grace end one more', async () => {
  const { patronId, userId } = await linkedPatron('Dee Clined');
  const at = await decline(patronId);

  await expectDeclineSeen(userId);
  const dms = e.discord.directMessages(userId);
  expect(dms).toHaveLength(1);
  expect(await records().ofMember(e.guildId, userId)).toEqual([expect.objectContaining({ status: 'sent', lastError: null })]);
  // The default grace period: 7 days from the declined charge, as a Discord date in the reader's time zone.
  const graceEnd = Math.floor((at.getTime() + 7 * DAY) / 1000);
  expect(dms[0]!.content).toContain(`until <t:${graceEnd}:D>`);
  expect(dms[0]!.content).toContain('https://www.patreon.com/settings/memberships');
  expect(dms[0]!.content).toContain('could not take your last payment');
  expect(dms[0]!.mentions).toEqual({ users: [], roles: [], everyone: false });

  // The same decline again: another delivery of it, re-plans of the member. No second message.
  e.patreon.setMembership(
    patronId,
    e.patreon.campaignId,
    { patronStatus: 'declined_patron', tierIds: [e.tiers.silver], lastChargeDate: at, lastChargeStatus: 'Declined' },
    { trigger: ['members:pledge:update'] },
  );
  await e.patreon.flushDeliveries();
  await e.tierlink.services.reconciler.reconcileMember(e.guildId, userId, { trigger: 'recheck' });
  await e.tierlink.services.reconciler.reconcileUser(userId, { trigger: 'webhook' });
  await settled();
  expect(e.discord.directMessages(userId)).toHaveLength(1);

  // The grace period ends without a payment: the role goes, and one more message says so.
  e.clock.set(new Date(at.getTime() + 7 * DAY + 1000));
  await e.tierlink.services.reconciler.reconcileMember(e.guildId, userId, { trigger: 'grace' });
  await settled();
  expect(e.discord.memberRoles(e.guildId, userId)).not.toContain(e.roles.silver);
  await e.tierlink.services.reconciler.reconcileMember(e.guildId, userId, { trigger: 'recheck' });
  await settled();
  const after = e.discord.directMessages(userId);
  expect(after).toHaveLength(2);
  expect(after[1]!.content).toContain('were removed');
  expect(after[1]!.content).toContain('https://www.patreon.com/settings/memberships');
}, 60_000);

test('closed DMs (50007) are noted, never retried, and the roles still change', async () => {
  const { patronId, userId } = await linkedPatron('Closed Door');
  e.discord.setDirectMessagesClosed(userId, true);
  const at = await decline(patronId);

  expect(e.discord.directMessages(userId)).toHaveLength(0);
  expect(await records().ofMember(e.guildId, userId)).toEqual([
    {
      kind: 'payment_declined',
      subject: expect.stringContaining(`:${at.toISOString()}`),
      status: 'refused',
      lastError: expect.stringContaining('Cannot send messages to this user'),
    },
  ]);

  // Not retried: the member planned again sends nothing, even once their DMs open.
  e.discord.setDirectMessagesClosed(userId, false);
  await e.tierlink.services.reconciler.reconcileMember(e.guildId, userId, { trigger: 'recheck' });
  await settled();
  expect(e.discord.directMessages(userId)).toHaveLength(0);

  // The grace period ends: the role goes, whatever the message did.
  e.clock.set(new Date(at.getTime() + 7 * DAY + 1000));
  await e.tierlink.services.reconciler.reconcileMember(e.guildId, userId, { trigger: 'grace' });
  expect(e.discord.memberRoles(e.guildId, userId)).not.toContain(e.roles.silver);
}, 60_000);

test('a decline the nightly sync finds (its webhook never came) is told after the sync applies; a dry run tells nothing', async () => {
  const { patronId, userId } = await linkedPatron('Missed Hook');
  e.clock.advance(11_000);
  const at = e.clock.now();
  e.patreon.setMembership(
    patronId,
    e.patreon.campaignId,
    { patronStatus: 'declined_patron', tierIds: [e.tiers.silver], lastChargeDate: at, lastChargeStatus: 'Declined' },
    { deliver: false },
  );
  await e.tierlink.services.runSync({ guildId: e.guildId, dryRun: true, force: false, trigger: 'manual' });
  await settled();
  expect(e.discord.directMessages(userId)).toHaveLength(0);

  await e.tierlink.services.runSync({ guildId: e.guildId, dryRun: false, force: false, trigger: 'manual' });
  await settled();
  const dms = e.discord.directMessages(userId);
  expect(dms).toHaveLength(1);
  expect(dms[0]!.content).toContain(`<t:${Math.floor((at.getTime() + 7 * DAY) / 1000)}:D>`);
  expect(e.discord.memberRoles(e.guildId, userId)).toContain(e.roles.silver);

  // The next sync finds the same decline: nothing more.
  await e.tierlink.services.runSync({ guildId: e.guildId, dryRun: false, force: false, trigger: 'manual' });
  await settled();
  expect(e.discord.directMessages(userId)).toHaveLength(1);
}, 60_000);

test('a patron who turned direct messages off with /privacy gets none', async () => {
  const { patronId, userId } = await linkedPatron('Opted Out');
  const reply = await runCommand(e, {
    userId,
    name: 'privacy',
    options: [boolOption('direct_messages', false)],
    memberPermissions: EVERYONE,
  }).reply();
  expect(reply.content).toBeTruthy();
  await decline(patronId);
  await expectDeclineSeen(userId);
  await e.tierlink.services.reconciler.reconcileMember(e.guildId, userId, { trigger: 'recheck' });
  await settled();
  expect(e.discord.directMessages(userId)).toHaveLength(0);
  expect(await records().ofMember(e.guildId, userId)).toEqual([]);
}, 60_000);

test('with messages to patrons off in the server, a declined payment sends nothing', async () => {
  await settings(e.ownerId, false);
  expect(await e.tierlink.services.repos.guilds.patronMessages(e.guildId)).toBe(false);
  const { patronId, userId } = await linkedPatron('Quiet Server');
  await decline(patronId);
  await expectDeclineSeen(userId);
  await e.tierlink.services.reconciler.reconcileMember(e.guildId, userId, { trigger: 'recheck' });
  await settled();
  expect(e.discord.directMessages(userId)).toHaveLength(0);
  expect(await records().ofMember(e.guildId, userId)).toEqual([]);
}, 60_000);
