import { PermissionFlagsBits } from 'discord.js';
import { type E2E, startE2E } from '../support/e2e';
import { MANAGE_ROLES, activePatron, boolOption, intOption, roleOption, runCommand, tierOption } from '../support/e2e-admin';

let e: E2E;
const doctor = async () => {
  const reply = await runCommand(e, { userId: e.ownerId, name: 'doctor', memberPermissions: MANAGE_ROLES }).reply();
  expect(reply.ephemeral).toBe(true);
  return reply.content;
};
/** The problem lines ("❌ …" and its fix) of a /doctor reply. */
const problems = (content: string) => content.split('\n').filter((l) => l.startsWith('❌') || l.trim().startsWith('**Fix:**'));
const ALL_GOOD = '**All good.** Everything Tierlink needs is in place.';
const creatorTokens = async () => (await e.tierlink.services.repos.credentials.load(e.patreon.creatorUserId))!;

beforeAll(async () => {
  e = await startE2E();
}, 60_000);
afterAll(() => e?.stop());

test('before /connect, /doctor says no campaign is connected and how to connect one', async () => {
  const content = await doctor();
  expect(content.split('\n')[0]).toBe('**1 problem found**');
  expect(problems(content)).toEqual([
    '❌ **Campaign**: no Patreon campaign is connected to this server',
    '   **Fix:** Run /connect and sign in as the creator.',
  ]);
});

test('after /connect with patrons linked, /doctor says all good and what it checked', async () => {
  await e.connect();
  for (const name of ['Ada', 'Bob']) {
    const member = e.discord.addMember(e.guildId, { username: name.toLowerCase() });
    await e.link(member.userId, activePatron(e, name, [e.tiers.gold]).id);
  }
  const content = await doctor();
  expect(content.split('\n')[0]).toBe(ALL_GOOD);
  expect(content).toContain('✅ **Manage Roles permission**: Tierlink can manage roles');
  expect(content).toContain('✅ **Role positions**: all 3 mapped roles are below Tierlink’s role');
  expect(content).toContain('✅ **Server Members Intent**: members can be listed');
  expect(content).toContain('✅ **Casey Creator: Patreon connection**: the creator token works');
  expect(content).toContain('✅ **Casey Creator: webhook**: registered and delivering');
  expect(content).toContain('✅ **Last sync**');
});

test('a mapped role moved above the bot is found, with the fix', async () => {
  e.discord.updateRole(e.guildId, e.roles.gold, { position: 20 });
  const content = await doctor();
  expect(content.split('\n')[0]).toBe('**1 problem found**');
  expect(problems(content)).toEqual([
    "❌ **Role Gold**: Gold is at or above Tierlink, the bot's highest role, so Discord refuses to assign it.",
    '   **Fix:** Move the Tierlink role above Gold in Server Settings → Roles.',
  ]);
  e.discord.updateRole(e.guildId, e.roles.gold, { position: 2 });
  expect((await doctor()).split('\n')[0]).toBe(ALL_GOOD);
});

test('a mapped role that became managed by an integration is found, with the fix', async () => {
  await runCommand(e, {
    userId: e.ownerId,
    name: 'map',
    options: [tierOption('Gold'), roleOption('role', e.roles.staff)],
    memberPermissions: MANAGE_ROLES,
  }).until(/Updated/);
  e.discord.updateRole(e.guildId, e.roles.staff, { managed: true });
  const content = await doctor();
  expect(problems(content)).toEqual([
    '❌ **Role Staff**: Staff is managed by an integration (a bot, a booster or a subscription role); nobody can assign it by hand.',
    '   **Fix:** Create an ordinary role for the tier and map the tier to it instead of Staff.',
  ]);
  e.discord.updateRole(e.guildId, e.roles.staff, { managed: false });
  expect((await doctor()).split('\n')[0]).toBe(ALL_GOOD);
});

test('a bot role without Manage Roles is reported once, with the fix, and the role order is still checked', async () => {
  const botRole = e.discord.guild(e.guildId).botRoleId;
  e.discord.updateRole(e.guildId, botRole, { permissions: PermissionFlagsBits.CreateInstantInvite });
  e.discord.updateRole(e.guildId, e.roles.silver, { position: 20 });
  const content = await doctor();
  expect(content.split('\n')[0]).toBe('**3 problems found**');
  expect(problems(content)).toEqual([
    '❌ **Manage Roles permission**: Tierlink’s role lacks the Manage Roles permission',
    '   **Fix:** Server Settings → Roles → the Tierlink role → turn on Manage Roles.',
    "❌ **Role Silver**: Silver is at or above Tierlink, the bot's highest role, so Discord refuses to assign it.",
    '   **Fix:** Move the Tierlink role above Silver in Server Settings → Roles.',
    '❌ **Join page**: Tierlink’s role lacks Manage Roles, so people would join without their roles',
    '   **Fix:** Server Settings → Roles → the Tierlink role → turn on Manage Roles.',
  ]);
  e.discord.updateRole(e.guildId, botRole, { permissions: PermissionFlagsBits.ManageRoles | PermissionFlagsBits.CreateInstantInvite });
  e.discord.updateRole(e.guildId, e.roles.silver, { position: 2 });
  expect((await doctor()).split('\n')[0]).toBe(ALL_GOOD);
});

test('the Server Members Intent switched off is found, with the fix', async () => {
  e.discord.setMembersIntentEnabled(false);
  try {
    const content = await doctor();
    expect(problems(content)).toEqual([
      '❌ **Server Members Intent**: Discord refused to list the server members: the Server Members Intent is off for this bot.',
      '   **Fix:** Turn on "Server Members Intent" in the Discord Developer Portal → your application → Bot → Privileged Gateway Intents, then restart Tierlink.',
    ]);
  } finally {
    e.discord.setMembersIntentEnabled(true);
  }
});

test('a webhook the service paused is found at once, with the fix; Tierlink’s next check un-pauses it', async () => {
  const [hook] = e.patreon.webhooks();
  e.patreon.pauseWebhook(hook!.id);
  const content = await doctor();
  expect(content.split('\n')[0]).toBe('**1 problem found**');
  expect(problems(content)).toEqual([
    '❌ **Casey Creator: webhook**: Patreon paused the webhook after 3 failed deliveries; pledge changes are held until it is un-paused',
    '   **Fix:** Make sure PUBLIC_URL/webhooks/patreon is reachable from the internet; Tierlink then un-pauses the webhook and resyncs within 15 minutes.',
  ]);

  // The 15-minute registration check, run now.
  await e.tierlink.services.registration.ensure(e.patreon.campaignId);
  expect(e.patreon.webhooks()[0]!.paused).toBe(false);
  expect((await doctor()).split('\n')[0]).toBe(ALL_GOOD);
});

test('an expired creator token that refreshes is fine; one that cannot refresh is found, with the fix', async () => {
  e.patreon.expireAccessToken((await creatorTokens()).accessToken);
  expect(await doctor()).toContain('✅ **Casey Creator: Patreon connection**: the creator token works');

  const tokens = await creatorTokens();
  e.patreon.expireAccessToken(tokens.accessToken);
  e.patreon.revokeRefreshToken(tokens.refreshToken);
  const content = await doctor();
  expect(problems(content)).toEqual([
    '❌ **Casey Creator: Patreon connection**: the creator token is no longer accepted and refreshing it failed (2026-11-20 12:00 UTC)',
    '   **Fix:** Run /connect again and sign in as the creator.',
  ]);
  // The webhook cannot be read live without a token: its last known state is shown, and not as a problem.
  expect(content).toMatch(/✅ \*\*Casey Creator: webhook\*\*: registered and delivering \(as last checked, 2026-11-20 12:00 UTC\)/);

  // Following the fix.
  expect((await e.connect()).status).toBe(200);
  expect((await doctor()).split('\n')[0]).toBe(ALL_GOOD);
});

test('a last sync that held removals back is found, with the fix', async () => {
  const settings = await runCommand(e, {
    userId: e.ownerId,
    name: 'settings',
    options: [intOption('removal_threshold_percent', 10), intOption('removal_threshold_min', 1)],
    memberPermissions: MANAGE_ROLES,
  }).reply();
  expect(settings.content).toContain('at least 1');
  // Both patrons' pledges end without a webhook: only a full sync can notice.
  for (const member of e.discord.members(e.guildId)) {
    const link = await e.tierlink.services.repos.links.byDiscordUser(member.userId, 'patreon');
    if (link)
      e.patreon.setMembership(link.externalId, e.patreon.campaignId, { patronStatus: 'former_patron', tierIds: [] }, { deliver: false });
  }
  const sync = await runCommand(e, { userId: e.ownerId, name: 'sync', memberPermissions: MANAGE_ROLES }).reply();
  expect(sync.content).toContain('HELD');

  const content = await doctor();
  expect(content.split('\n')[0]).toBe('**1 problem found**');
  const [problem, fix] = problems(content);
  expect(problem).toMatch(/^❌ \*\*Last sync\*\*: 2026-11-20 12:00 UTC: 4 role removals were held back by the mass-removal guard — /);
  expect(fix).toBe(
    '   **Fix:** Check them with /sync dry_run:true, then apply them with /sync force:true (or raise the guard with /settings removal_threshold_percent).',
  );

  const forced = await runCommand(e, {
    userId: e.ownerId,
    name: 'sync',
    options: [boolOption('force', true)],
    memberPermissions: MANAGE_ROLES,
  }).reply();
  expect(forced.content).toContain('Applied: 0 added, 4 removed');
  expect((await doctor()).split('\n')[0]).toBe(ALL_GOOD);
});
