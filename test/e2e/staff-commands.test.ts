import { Permission } from '@tierlink/sandbox/discord';
import { type E2E, pageText, startE2E } from '../support/e2e';
import { EVERYONE, MANAGE_ROLES, activePatron, runCommand } from '../support/e2e-admin';

/**
 * `/status member:` and `/audit member:` for staff. Who is staff is read from the server (the
 * member's roles, the owner, Administrator), not from the interaction's permissions, which are the
 * channel's and which a server can relax per command.
 */

let e: E2E;
let moderator: string;
let plain: string;
let mira: string;

beforeAll(async () => {
  e = await startE2E({ connected: true });
  const moderators = e.discord.createRole(e.guildId, { name: 'Moderators', permissions: Permission.ManageRoles }).id;
  moderator = e.discord.addMember(e.guildId, { username: 'mod', roleIds: [moderators] }).userId;
  plain = e.discord.addMember(e.guildId, { username: 'plain' }).userId;
  mira = e.discord.addMember(e.guildId, { username: 'mira' }).userId;
  const patron = activePatron(e, 'Mira Okonkwo', [e.tiers.gold]);
  const linked = await e.link(mira, patron.id);
  if (linked.status !== 200) throw new Error(`link failed: ${pageText(linked.html)}`);
  await e.discord.waitForMemberRole(e.guildId, mira, e.roles.gold, { present: true });
}, 60_000);
afterAll(() => e?.stop());

const member = (userId: string) => ({ name: 'member', type: 6, value: userId });

test('staff see another member’s status; the member’s own /status is unchanged', async () => {
  const other = await runCommand(e, {
    userId: moderator,
    name: 'status',
    options: [member(mira)],
    memberPermissions: MANAGE_ROLES,
  }).reply();
  expect(other.ephemeral).toBe(true);
  expect(other.content).toContain(`**Status of <@${mira}>**`);
  expect(other.content).toContain('**Linked** to Patreon');
  expect(other.content).toContain(`<@&${e.roles.gold}>`);

  const own = await runCommand(e, { userId: mira, name: 'status', memberPermissions: EVERYONE }).reply();
  expect(own.content).not.toContain('Status of');
  expect(own.content).toContain('**Linked** to Patreon');
  const self = await runCommand(e, { userId: plain, name: 'status', options: [member(plain)], memberPermissions: EVERYONE }).reply();
  expect(self.content).toContain('**Not linked.** Run /link');
});

test('a member without Manage Roles on the server is refused, even when the interaction claims it', async () => {
  // The channel-level permissions in the interaction say Manage Roles; the member's roles do not.
  const status = await runCommand(e, { userId: plain, name: 'status', options: [member(mira)], memberPermissions: MANAGE_ROLES }).reply();
  expect(status.content).toContain('You need the **Manage Roles** permission in this server to use /status member');
  expect(status.content).not.toContain('Linked');
  const audit = await runCommand(e, { userId: plain, name: 'audit', options: [member(mira)], memberPermissions: MANAGE_ROLES }).reply();
  expect(audit.content).toContain(
    'You need the **Manage Roles** permission to use /audit. Tierlink reads it from your roles in this server',
  );
  // Without the permission in the interaction either, the answer is the same guild-level refusal.
  const denied = await runCommand(e, { userId: plain, name: 'audit', options: [member(mira)], memberPermissions: EVERYONE }).reply();
  expect(denied.content).toBe(audit.content);
});

test('/audit lists the member’s last role changes, newest first, with outcome, trigger and reason', async () => {
  const reply = await runCommand(e, { userId: moderator, name: 'audit', options: [member(mira)], memberPermissions: MANAGE_ROLES }).reply();
  expect(reply.ephemeral).toBe(true);
  expect(reply.content).toContain(`**Last role changes of <@${mira}>**`);
  expect(reply.content).toMatch(new RegExp(`UTC: gave <@&${e.roles.gold}> · \\/link · Gold tier \\(active patron`));
  const nobody = await runCommand(e, {
    userId: e.ownerId,
    name: 'audit',
    options: [member(plain)],
    memberPermissions: MANAGE_ROLES,
  }).reply();
  expect(nobody.content).toBe(`Tierlink has not changed any role of <@${plain}> in this server.`);
});
