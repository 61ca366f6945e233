import { type E2E, pageText, startE2E } from '../support/e2e';
import { onPostgres } from '../support/test-database';

/**
 * The creator's whole setup is `/connect`: only the Discord and client credentials are configured
 * (plus where the sandboxes listen, a free port and a data directory for this test; SECRET_KEY only
 * where PostgreSQL requires it). No DISCORD_GUILD_ID, creator tokens, campaign id, webhook secret
 * or public URL.
 */
let e: E2E;
beforeAll(async () => {
  e = await startE2E({ env: { DISCORD_GUILD_ID: '', ...(onPostgres() ? {} : { SECRET_KEY: '' }) } });
}, 60_000);
afterAll(() => e?.stop());

test('nothing but the Discord and client credentials is configured', () => {
  expect(e.config.discord.guildId).toBeUndefined();
  expect(e.config.patreon).toMatchObject({
    creatorAccessToken: undefined,
    creatorRefreshToken: undefined,
    campaignId: undefined,
    webhookSecret: undefined,
  });
  expect(e.config.publicUrl).toBeUndefined();
  if (!onPostgres()) expect(e.config.secretKey).toBeUndefined();
  // The commands are there for every server (global registration).
  expect(e.discord.commands().map((c) => c.name)).toEqual(expect.arrayContaining(['connect', 'link']));
});

test('/connect on a fresh database, then a patron’s /link, gives the patron their role before the page returns', async () => {
  expect(await e.tierlink.services.repos.guilds.campaignsOf(e.guildId)).toEqual([]);
  const connected = await e.connect();
  expect(connected.status).toBe(200);
  const setup = pageText(connected.html);
  expect(setup).toContain('Your campaign is connected');
  expect(setup).toContain('Gold');
  expect(setup).toContain('Live updates are on');

  const user = e.patreon.createUser({ fullName: 'Ada Patron' });
  e.patreon.setMembership(
    user.id,
    e.patreon.campaignId,
    { patronStatus: 'active_patron', tierIds: [e.tiers.gold], lastChargeDate: e.clock.now(), lastChargeStatus: 'Paid' },
    { deliver: false },
  );
  const member = e.discord.addMember(e.guildId, { username: 'ada' });

  const page = await e.link(member.userId, user.id);
  // No waiting: the role is there when the page is.
  expect(e.discord.memberRoles(e.guildId, member.userId)).toEqual([e.roles.gold]);
  expect(page.status).toBe(200);
  expect(pageText(page.html)).toMatch(/Ada Patron/);

  // The webhook /connect registered keeps the role in step: a downgrade swaps it, with no sync.
  e.patreon.setMembership(user.id, e.patreon.campaignId, {
    patronStatus: 'active_patron',
    tierIds: [e.tiers.silver],
    lastChargeDate: e.clock.now(),
    lastChargeStatus: 'Paid',
  });
  await e.discord.waitForMemberRole(e.guildId, member.userId, e.roles.silver, { present: true });
  await e.discord.waitForMemberRole(e.guildId, member.userId, e.roles.gold, { present: false });
  expect(e.discord.memberRoles(e.guildId, member.userId)).toEqual([e.roles.silver]);
});
