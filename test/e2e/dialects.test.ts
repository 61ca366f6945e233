import { type E2E, pageText, startE2E } from '../support/e2e';
import { MANAGE_ROLES, activePatron, connectIn, runCommand } from '../support/e2e-admin';

/**
 * The core flows against a membership service that speaks the spec's dialect, and one that speaks
 * Patreon's documented one (`discord_server_id`, `discord_role_ids`, `page[count]`, the spec's
 * names refused with 400): connecting from the environment's tokens, `/link` right after
 * start-up, a webhook upgrade, a full sync, `/connect` and `/doctor`. The stand-in's host is not
 * Patreon's, so Tierlink has to learn the dialect, which it does once, at start-up, and stores.
 */
describe.each(['spec', 'patreon'] as const)('in the %s dialect', (dialect) => {
  let e: E2E;
  beforeAll(async () => {
    e = await startE2E({ dialect, creatorTokensInEnv: true });
  }, 60_000);
  afterAll(() => e?.stop());

  const refused = () => e.patreon.requests().filter((r) => r.status === 400);

  test('the environment’s creator tokens connect the campaign at start-up, with its tiers’ Discord roles and its webhook', async () => {
    const { repos } = e.tierlink.services;
    expect(await repos.guilds.campaignsOf(e.guildId)).toEqual([e.patreon.campaignId]);
    const tiers = await repos.campaigns.tiersOf([e.patreon.campaignId]);
    expect(tiers.find((t) => t.id === e.tiers.gold)?.roleIds.everywhere).toEqual([e.roles.gold]);
    expect(e.patreon.webhooks()).toHaveLength(1);
    // Learned once and stored: the spec's dialect is the first guess, so only Patreon's pays one refused request.
    expect(refused()).toHaveLength(dialect === 'patreon' ? 1 : 0);
    expect(await repos.appState.get(`service-dialect:${e.patreon.url}`)).toBe(dialect);
  });

  test('/link right after start-up gives the patron the tier’s role', async () => {
    const member = e.discord.addMember(e.guildId, { username: 'ada' });
    const page = await e.link(member.userId, activePatron(e, 'Ada Lovelace', [e.tiers.gold]).id);
    expect(page.status).toBe(200);
    expect(pageText(page.html)).toContain("You're all set");
    expect(e.discord.memberRoles(e.guildId, member.userId)).toEqual([e.roles.gold]);
  });

  test('a webhook upgrade moves the roles', async () => {
    const member = e.discord.addMember(e.guildId, { username: 'uma' });
    const uma = activePatron(e, 'Uma Upgrade', [e.tiers.silver]);
    await e.link(member.userId, uma.id);
    expect(e.discord.memberRoles(e.guildId, member.userId)).toEqual([e.roles.silver]);

    e.patreon.setMembership(
      uma.id,
      e.patreon.campaignId,
      { patronStatus: 'active_patron', tierIds: [e.tiers.gold], lastChargeDate: e.clock.now(), lastChargeStatus: 'Paid' },
      { trigger: 'members:pledge:update' },
    );
    await e.patreon.flushDeliveries();
    await e.discord.waitForMemberRole(e.guildId, member.userId, e.roles.gold, { present: true, timeoutMs: 5_000 });
    await e.discord.waitForMemberRole(e.guildId, member.userId, e.roles.silver, { present: false, timeoutMs: 5_000 });
  });

  test('a full sync links a patron through their Discord connection and grants the role, one page of members', async () => {
    const member = e.discord.addMember(e.guildId, { username: 'sid' });
    const sid = e.patreon.createUser({ fullName: 'Sid Sync', discordUserId: member.userId });
    e.patreon.setMembership(
      sid.id,
      e.patreon.campaignId,
      { patronStatus: 'active_patron', tierIds: [e.tiers.bronze], lastChargeDate: e.clock.now(), lastChargeStatus: 'Paid' },
      { deliver: false },
    );
    const before = e.patreon.requests().length;
    const reply = await runCommand(e, { userId: e.ownerId, name: 'sync', memberPermissions: MANAGE_ROLES }).reply();
    expect(reply.content).toMatch(/^Full sync: ok/);
    expect(e.discord.memberRoles(e.guildId, member.userId)).toEqual([e.roles.bronze]);
    const pages = e.patreon
      .requests()
      .slice(before)
      .filter((r) => r.path === `/api/oauth2/v2/campaigns/${e.patreon.campaignId}/members`);
    expect(pages).toHaveLength(1);
    expect(pages[0]!.query['page[count]']).toBe(dialect === 'patreon' ? '1000' : undefined);
    expect(pages[0]!.query['fields[tier]']?.split(',')).toContain(dialect === 'patreon' ? 'discord_role_ids' : 'chat_role_ids');
  });

  test('/connect connects the campaign again', async () => {
    const result = await connectIn(e, e.guildId, e.ownerId);
    expect(result.status).toBe(200);
    expect(pageText(result.html)).toContain('Your campaign is connected');
    expect(e.patreon.webhooks()).toHaveLength(1);
  });

  test('/doctor finds everything in place', async () => {
    const reply = await runCommand(e, { userId: e.ownerId, name: 'doctor', memberPermissions: MANAGE_ROLES }).reply();
    expect(reply.content.split('\n')[0]).toBe('**All good.** Everything Tierlink needs is in place.');
    expect(reply.content).toContain('✅ **Casey Creator: Patreon connection**: the creator token works');
    expect(reply.content).toContain('✅ **Casey Creator: webhook**: registered and delivering');
  });

  test('after start-up, no request was refused', () => {
    expect(refused()).toHaveLength(dialect === 'patreon' ? 1 : 0);
    expect(e.patreon.requests().length).toBeGreaterThan(20);
  });
});
