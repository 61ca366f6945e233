import { DAY } from '../../src/shared/clock';
import { type E2E, pageText, startE2E } from '../support/e2e';
import { eventually } from '../support/eventually';

/**
 * What Tierlink sends Discord per change, end to end (the real discord.js client on the stand-in's
 * gateway): a reconcile of a member the gateway told it about reads nothing and sends exactly its
 * role requests; a member it never heard of is read once; and under Discord's member-role bucket
 * (10 per window per guild, a fixed window) a /link during a bulk apply gets its role before the
 * bulk's next window, with no 429.
 */

let e: E2E;
/** A member who was in the server before Tierlink started: no event mentioned them, the sync /connect runs listed them. */
let veteranId: string;
beforeAll(async () => {
  e = await startE2E({
    beforeStart: ({ discord, guildId }) => {
      veteranId = discord.addMember(guildId, { username: 'veteran' }).userId;
    },
  });
  const connected = await e.connect();
  if (connected.status !== 200) throw new Error(`connect failed: ${pageText(connected.html)}`);
}, 60_000);
afterAll(() => e?.stop());

function patron(fullName: string, tierId: string, deliver = false) {
  const user = e.patreon.createUser({ fullName });
  pledge(user.id, tierId, deliver);
  return user;
}

function pledge(userId: string, tierId: string, deliver: boolean) {
  e.patreon.setMembership(
    userId,
    e.patreon.campaignId,
    { patronStatus: 'active_patron', tierIds: [tierId], lastChargeDate: new Date(e.clock.now().getTime() - DAY), lastChargeStatus: 'Paid' },
    { deliver },
  );
}

/** Discord requests about one member (reads of them and their role changes), as the stand-in logged them. */
const requestsAbout = (userId: string) =>
  e.discord
    .requests()
    .filter((r) => r.path.startsWith(`/guilds/${e.guildId}/members/${userId}`))
    .map((r) => r.route);

/** The stand-in logs a request once its answer is written, just after the change it made: wait for the removal's entry. */
const removalLogged = (userId: string) =>
  eventually(
    'the role removal in the stand-in’s log',
    () => requestsAbout(userId).includes('DELETE /guilds/:g/members/:u/roles/:r'),
    10_000,
    5,
  );

describe('member roles from the gateway', () => {
  test('a member who joined while Tierlink watched: /link and a tier change cost exactly their role requests', async () => {
    const member = e.discord.addMember(e.guildId, { username: 'newcomer' });
    const user = patron('Nia Newcomer', e.tiers.silver);
    e.discord.resetRequests();
    await e.link(member.userId, user.id);
    expect(e.discord.memberRoles(e.guildId, member.userId)).toEqual([e.roles.silver]);
    expect(requestsAbout(member.userId)).toEqual(['PUT /guilds/:g/members/:u/roles/:r']);

    e.discord.resetRequests();
    pledge(user.id, e.tiers.gold, true);
    await e.discord.waitForMemberRole(e.guildId, member.userId, e.roles.silver, { present: false, timeoutMs: 10_000 });
    await removalLogged(member.userId);
    expect(e.discord.memberRoles(e.guildId, member.userId)).toEqual([e.roles.gold]);
    expect(requestsAbout(member.userId)).toEqual(['PUT /guilds/:g/members/:u/roles/:r', 'DELETE /guilds/:g/members/:u/roles/:r']);
  });

  test('a member who was there before Tierlink started is known from the sync that /connect ran: no read', async () => {
    const user = patron('Vera Veteran', e.tiers.bronze);
    e.discord.resetRequests();
    await e.link(veteranId, user.id);
    expect(e.discord.memberRoles(e.guildId, veteranId)).toEqual([e.roles.bronze]);
    expect(requestsAbout(veteranId)).toEqual(['PUT /guilds/:g/members/:u/roles/:r']);
  });

  test('a member neither an event nor a listing mentioned is read once, then known', async () => {
    // Added without a GUILD_MEMBER_ADD, as if they joined while no session was connected.
    const [quietId] = e.discord.generateGuild({ guildId: e.guildId, members: 1, seed: 7 }).userIds;
    const user = patron('Quinn Quiet', e.tiers.bronze);
    e.discord.resetRequests();
    await e.link(quietId!, user.id);
    expect(e.discord.memberRoles(e.guildId, quietId!)).toEqual([e.roles.bronze]);
    expect(requestsAbout(quietId!)).toEqual(['GET /guilds/:g/members/:u', 'PUT /guilds/:g/members/:u/roles/:r']);

    e.discord.resetRequests();
    pledge(user.id, e.tiers.silver, true);
    await e.discord.waitForMemberRole(e.guildId, quietId!, e.roles.bronze, { present: false, timeoutMs: 10_000 });
    await removalLogged(quietId!);
    expect(requestsAbout(quietId!)).toEqual(['PUT /guilds/:g/members/:u/roles/:r', 'DELETE /guilds/:g/members/:u/roles/:r']);
  });

  test('a role given by hand is seen through the gateway: the next reconcile knows it without reading', async () => {
    const member = e.discord.addMember(e.guildId, { username: 'handy' });
    const user = patron('Hal Handy', e.tiers.gold);
    await e.link(member.userId, user.id);
    // A moderator gives Silver too; Tierlink's next plan must see it (it is not Tierlink's to remove).
    e.discord.setMemberRolesByHand(e.guildId, member.userId, [e.roles.gold, e.roles.silver]);
    e.discord.resetRequests();
    pledge(user.id, e.tiers.silver, true);
    await e.discord.waitForMemberRole(e.guildId, member.userId, e.roles.gold, { present: false, timeoutMs: 10_000 });
    await removalLogged(member.userId);
    // Silver was already there (by hand): only Gold's removal is sent.
    expect(requestsAbout(member.userId)).toEqual(['DELETE /guilds/:g/members/:u/roles/:r']);
    expect(e.discord.memberRoles(e.guildId, member.userId)).toEqual([e.roles.silver]);
  });
});

describe("Discord's member-role bucket", () => {
  test("a /link during a guild-wide bulk apply gets its role before the bulk's next window, and nothing is answered 429", async () => {
    // Discord's reported bucket, the stand-in's own: 10 per 10 s per guild, a fixed window (docs/discord-api-notes.md §6).
    {
      // 14 linked patrons whose roles went missing: the next sync grants them all, in the bulk lane.
      const bulk = await Promise.all(
        Array.from({ length: 14 }, async (_, i) => {
          const member = e.discord.addMember(e.guildId, { username: `bulk${i}` });
          const user = patron(`Bulk Patron ${i}`, e.tiers.bronze);
          await e.tierlink.services.repos.links.linkOauth('patreon', member.userId, user.id, e.clock.now());
          return member.userId;
        }),
      );
      const linker = e.discord.addMember(e.guildId, { username: 'linker' });
      const linkUser = patron('Lin Linker', e.tiers.gold);
      e.discord.clearRoleEvents();
      e.discord.resetRequests();

      // The same run as /sync (whose reply would outlast the test stand-in's 10 s wait for it).
      const sync = e.tierlink.services.runSync({ guildId: e.guildId, dryRun: false, force: false, trigger: 'manual' });
      const grants = () => e.discord.roleEvents().filter((r) => r.via === 'rest');
      for (let i = 0; i < 2_000 && grants().length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(grants().length).toBeGreaterThan(0);

      await e.link(linker.userId, linkUser.id);
      expect(e.discord.memberRoles(e.guildId, linker.userId)).toEqual([e.roles.gold]);
      const order = grants().map((g) => g.userId);
      const linkAt = order.indexOf(linker.userId);
      // The bucket's first window holds 10: the link's grant is among them.
      expect(linkAt).toBeGreaterThanOrEqual(1);
      expect(linkAt).toBeLessThan(10);

      expect(await sync).toMatchObject({ status: 'ok' });
      for (const userId of bulk) expect(e.discord.memberRoles(e.guildId, userId)).toEqual([e.roles.bronze]);
      expect(e.discord.rateLimitHits()).toEqual([]);
    }
  }, 60_000);
});
