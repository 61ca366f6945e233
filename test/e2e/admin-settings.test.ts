import { type E2E, startE2E } from '../support/e2e';
import { MANAGE_ROLES, activePatron, boolOption, intOption, pressButton, roleOption, runCommand, stringOption } from '../support/e2e-admin';

let e: E2E;
/** Gus: Bronze, linked; his payment was declined 10 days ago. */
let gus: string;
/** Ada: Silver and Gold, linked. Dora: was Bronze, now a former patron, linked. Finn: follows without pledging, linked. Hal: no patron, Gold by hand. */
let ada: string;
let dora: string;
let finn: string;
let hal: string;
let alumni: string;
let fans: string;

const settings = (options: Array<Record<string, unknown>> = []) =>
  runCommand(e, { userId: e.ownerId, name: 'settings', options, memberPermissions: MANAGE_ROLES });
const roles = (userId: string) => e.discord.memberRoles(e.guildId, userId).sort();

beforeAll(async () => {
  e = await startE2E();
  alumni = e.discord.createRole(e.guildId, { name: 'Alumni' }).id;
  fans = e.discord.createRole(e.guildId, { name: 'Fans' }).id;
  await e.connect();
  const member = (name: string) => e.discord.addMember(e.guildId, { username: name }).userId;
  ada = member('ada');
  await e.link(ada, activePatron(e, 'Ada', [e.tiers.silver, e.tiers.gold]).id);
  dora = member('dora');
  const doraPatron = activePatron(e, 'Dora', [e.tiers.bronze]);
  await e.link(dora, doraPatron.id);
  e.patreon.setMembership(doraPatron.id, e.patreon.campaignId, { patronStatus: 'former_patron', tierIds: [] });
  await e.discord.waitForMemberRole(e.guildId, dora, e.roles.bronze, { present: false });
  finn = member('finn');
  const follower = e.patreon.createUser({ fullName: 'Finn Follower' });
  e.patreon.setMembership(follower.id, e.patreon.campaignId, { patronStatus: null, isFollower: true, tierIds: [] }, { deliver: false });
  await e.link(finn, follower.id);
  gus = member('gus');
  const gusPatron = e.patreon.createUser({ fullName: 'Gus' });
  const paid = new Date(e.clock.now().getTime() - 10 * 24 * 3600_000);
  e.patreon.setMembership(
    gusPatron.id,
    e.patreon.campaignId,
    { patronStatus: 'active_patron', tierIds: [e.tiers.bronze], lastChargeDate: paid, lastChargeStatus: 'Paid' },
    { deliver: false },
  );
  await e.link(gus, gusPatron.id);
  e.patreon.setMembership(gusPatron.id, e.patreon.campaignId, {
    patronStatus: 'declined_patron',
    tierIds: [e.tiers.bronze],
    lastChargeDate: paid,
    lastChargeStatus: 'Declined',
  });
  await e.discord.waitForMemberRole(e.guildId, gus, e.roles.bronze, { present: false });
  hal = member('hal');
  e.discord.setMemberRolesByHand(e.guildId, hal, [e.roles.gold]);
}, 60_000);
afterAll(() => e?.stop());

test('/settings without options shows the server’s settings', async () => {
  const reply = await settings().reply();
  expect(reply.ephemeral).toBe(true);
  expect(reply.content).toBe(
    [
      '**Settings of this server**',
      '• **Grace period** after a declined payment: 7 days',
      '• **Mode**: stack (every entitled tier’s roles)',
      '• **Former-patron role**: none',
      '• **Follower role**: none',
      '• **Free tiers grant their roles**: yes (a free tier’s mapped roles go to its free members)',
      '• **Strict**: off (only roles Tierlink granted are ever removed)',
      '• **Mass-removal guard**: a sync holds removals above 10% of Tierlink’s grants when they are at least 25',
      `• **Join page**: ${e.url}/join/casey (the default; choose one with join_slug)`,
      '• **Who may join there**: patrons whose tier gives a role here',
      '• **Joiner role** (joined without a tier role): none',
      '• **Mod-log channel** (Tierlink’s role changes, batched): off',
      '• **New-patrons channel** (a welcome when a pledge begins): off',
      '• **New-posts channel** (each new post of the campaign): off',
      '• **Messages to patrons** (a direct message when a payment is declined, with the date the roles go): off',
      '• **Message to a newly linked patron** (a direct message when a patron links here): off',
      '• **How welcomes name new patrons**: their Discord mention, which pings nobody (only members who are in the server and linked are ever named)',
      '• **Ask first**: /map, /unmap and /settings show what they would do, and wait for **Confirm**, when they change 10 roles or more',
      '• **Roles by tenure and amount**: none (set one with rule_role and rule_at_least)',
    ].join('\n'),
  );
  expect(roles(ada)).toEqual([e.roles.silver, e.roles.gold].sort());
});

test('grace days are validated (0–60), saved and echoed', async () => {
  const refused = await settings([intOption('grace_days', 61)]).reply();
  expect(refused.content).toBe('Nothing was changed:\n• grace_days must be a whole number from 0 to 60 (got 61)');
  expect((await settings().reply()).content).toContain('Grace period** after a declined payment: 7 days');

  // 14 days of grace cover Gus's payment declined 10 days ago: his Bronze comes back.
  const saved = await settings([intOption('grace_days', 14)]).until(/Updated|failed/);
  expect(saved.content).toContain('**Settings saved**');
  expect(saved.content).toContain('• **Grace period** after a declined payment: 14 days');
  expect(saved.content).toMatch(/Updated: 1 role change across \d+ members\.$/);
  expect(roles(gus)).toEqual([e.roles.bronze]);
  expect((await settings().reply()).content).toContain('Grace period** after a declined payment: 14 days');

  const none = await settings([intOption('grace_days', 0)]).until(/Updated|failed/);
  expect(none.content).toContain('payment: 0 days');
  expect(roles(gus)).toEqual([]);
});

test('mode highest keeps only the highest tier’s roles; stack gives them all back', async () => {
  const highest = await settings([stringOption('mode', 'highest')]).until(/Updated|failed/);
  expect(highest.content).toContain('• **Mode**: highest (only the highest tier’s roles)');
  expect(highest.content).toMatch(/Updated: 1 role change across \d+ members\.$/);
  expect(roles(ada)).toEqual([e.roles.gold]);

  const stack = await settings([stringOption('mode', 'stack')]).until(/Updated|failed/);
  expect(stack.content).toContain('• **Mode**: stack (every entitled tier’s roles)');
  expect(roles(ada)).toEqual([e.roles.silver, e.roles.gold].sort());
});

test('a former-patron role the bot cannot manage is refused with the fix; a good one is granted to former patrons', async () => {
  const refused = await settings([roleOption('former_role', e.roles.vip)]).reply();
  expect(refused.content).toBe(
    "Nothing was changed:\n• The former-patron role cannot be used: VIP is at or above Tierlink, the bot's highest role, so Discord refuses to assign it. **Fix:** Move the Tierlink role above VIP in Server Settings → Roles.",
  );

  const saved = await settings([roleOption('former_role', alumni)]).until(/Updated|failed/);
  expect(saved.content).toContain(`• **Former-patron role**: <@&${alumni}>`);
  // Dora (former patron) and Gus (declined, no grace left) get it; Ada (active) and Finn (never pledged) do not.
  expect(saved.content).toMatch(/Updated: 2 role changes across/);
  expect(roles(dora)).toEqual([alumni]);
  expect(roles(gus)).toEqual([alumni]);
  expect(roles(ada)).not.toContain(alumni);
  expect(roles(finn)).toEqual([]);

  const cleared = await settings([boolOption('clear_former_role', true)]).until(/Updated|failed/);
  expect(cleared.content).toContain('• **Former-patron role**: none');
  expect(roles(dora)).toEqual([]);
  expect(roles(gus)).toEqual([]);
});

test('the follower role goes to followers who never pledged, and must differ from the former-patron role', async () => {
  const same = await settings([roleOption('former_role', alumni), roleOption('follower_role', alumni)]).reply();
  expect(same.content).toBe('Nothing was changed:\n• the former-patron role and the follower role must be different roles');

  const saved = await settings([roleOption('follower_role', fans)]).until(/Updated|failed/);
  expect(saved.content).toContain(`• **Follower role**: <@&${fans}>`);
  expect(roles(finn)).toEqual([fans]);
  expect(roles(dora)).toEqual([]);

  await settings([boolOption('clear_follower_role', true)]).until(/Updated|failed/);
  expect(roles(finn)).toEqual([]);
});

test('strict removes mapped roles from members who are not entitled, even roles given by hand, once confirmed', async () => {
  expect(roles(hal)).toEqual([e.roles.gold]);
  const asked = settings([boolOption('strict', true)]);
  const preview = await asked.reply();
  // Nothing yet: what strict mode would remove, and a button to confirm it.
  expect(preview.content).toContain('• **Strict**: off');
  expect(preview.content).toContain('**Strict mode is not on yet.**');
  expect(preview.content).toContain('Right now it would remove, from 1 member:\n• **Gold** from 1 member\nFor example: hal.');
  expect(preview.buttons.map((b) => b.label)).toEqual(['Turn strict mode on']);
  expect((await e.tierlink.services.repos.guilds.settings(e.guildId)).strict).toBe(false);
  expect(roles(hal)).toEqual([e.roles.gold]);

  const strict = await (await pressButton(e, asked, 'Turn strict mode on')).until(/Updated|failed/);
  expect(strict.content).toMatch(/^\*\*Strict mode is on\.\*\*\nUpdated: 1 role change/);
  expect(strict.buttons).toEqual([]);
  expect((await settings().reply()).content).toContain(
    '• **Strict**: on (mapped roles are removed from anyone not entitled, even if given by hand)',
  );
  expect(roles(hal)).toEqual([]);
  expect(roles(ada)).toEqual([e.roles.silver, e.roles.gold].sort());
  await settings([boolOption('strict', false)]).until(/Updated|failed/);
});

test('the removal threshold is validated and echoed, and changes nobody’s roles', async () => {
  const refused = await settings([intOption('removal_threshold_percent', 0)]).reply();
  expect(refused.content).toBe('Nothing was changed:\n• removal_threshold_percent must be a whole number from 1 to 100 (got 0)');

  const saved = settings([intOption('removal_threshold_percent', 50), intOption('removal_threshold_min', 3)]);
  const reply = await saved.reply();
  expect(reply.content).toContain(
    '• **Mass-removal guard**: a sync holds removals above 50% of Tierlink’s grants when they are at least 3',
  );
  expect(saved.contents().join('\n')).not.toContain('Updating');
  expect((await settings().reply()).content).toContain('above 50% of Tierlink’s grants when they are at least 3');
});
