import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/edges/outbound/store/database';
import { type E2E, pageText, startE2E } from '../support/e2e';

/**
 * Charge day at a small scale, with Patreon's and Discord's real limits (nothing raised) and
 * Patreon's dialect (docs/decisions.md §22): Patreon sends a `members:update` for every charge, and
 * allows 100 requests a minute per token. A charge that changes no role must cost no read, so an
 * upgrade delivered in the middle of the charges is read at once and gets its role, and a `/link`
 * meanwhile too. The clock stands still here: had each charge cost a read, Patreon's budget would
 * be spent after 100 of them and the upgrade behind them would wait for a minute that never comes.
 */

const CHARGES = 600;

let e: E2E;
let memberUserIds: string[] = [];
let upgrader: { discordUserId: string; patreonUserId: string };
let linker: { discordUserId: string; patreonUserId: string };
/** A patron in the server whose role a moderator took away by hand: their charge puts it back. */
let keeper: { discordUserId: string; patreonUserId: string };

beforeAll(async () => {
  e = await startE2E({
    dialect: 'patreon',
    beforeStart: ({ patreon, discord, guildId }) => {
      // Active patrons, about 60 % with a Discord account on their profile (linked from it), none in the server.
      memberUserIds = patreon.generateMembers({
        campaignId: patreon.campaignId,
        count: CHARGES,
        seed: 'charge-day-test',
        mix: { active: 1, declined: 0, former: 0, follower: 0, never: 0 },
      }).userIds;
      const u = discord.addMember(guildId, { username: 'upgrader' }).userId;
      upgrader = { discordUserId: u, patreonUserId: patreon.createUser({ fullName: 'Una Upgrade', discordUserId: u }).id };
      const k = discord.addMember(guildId, { username: 'keeper' }).userId;
      keeper = { discordUserId: k, patreonUserId: patreon.createUser({ fullName: 'Kai Keeper', discordUserId: k }).id };
      linker = {
        discordUserId: discord.addMember(guildId, { username: 'linker' }).userId,
        patreonUserId: patreon.createUser({ fullName: 'Lin Link' }).id,
      };
    },
  });
  const tiers = e.tiers;
  e.patreon.setMembership(upgrader.patreonUserId, e.patreon.campaignId, { tierIds: [tiers.silver] }, { deliver: false });
  e.patreon.setMembership(keeper.patreonUserId, e.patreon.campaignId, { tierIds: [tiers.silver] }, { deliver: false });
  e.patreon.setMembership(linker.patreonUserId, e.patreon.campaignId, { tierIds: [tiers.gold] }, { deliver: false });
  // /connect registers the webhook; the night's sync reads every member and links the profiles.
  const connected = await e.connect();
  if (connected.status !== 200) throw new Error(`connect failed: ${pageText(connected.html)}`);
  const synced = await e.tierlink.services.sync.runSync({ dryRun: false, force: false, trigger: 'manual' });
  if ('skipped' in synced) throw new Error(`the sync did not run: ${synced.reason}`);
  await e.discord.waitForMemberRole(e.guildId, upgrader.discordUserId, e.roles.silver, { present: true, timeoutMs: 60_000 });
  await e.discord.waitForMemberRole(e.guildId, keeper.discordUserId, e.roles.silver, { present: true, timeoutMs: 60_000 });
  await e.patreon.flushDeliveries();
}, 120_000);
afterAll(() => e?.stop());

const openDeliveries = async () =>
  (await queryRows<{ n: number }>(e.db.database.db, sql`select count(*)::int as n from webhook_inbox where status <> 'done'`))[0]!.n;

test(`${CHARGES} charges that change no role cost no read; an upgrade and a /link among them get their roles`, async () => {
  const { patreon, discord, guildId, roles, tiers } = e;
  const deliveredBefore = patreon.deliveries().length;
  patreon.resetRequests();
  discord.resetRequests();
  const chargedAt = e.clock.now();
  const charge = (userId: string) =>
    patreon.setMembership(userId, patreon.campaignId, {
      patronStatus: 'active_patron',
      lastChargeDate: chargedAt,
      lastChargeStatus: 'Paid',
    });

  discord.setMemberRolesByHand(guildId, keeper.discordUserId, []);
  const half = CHARGES / 2;
  for (const userId of memberUserIds.slice(0, half)) charge(userId);
  charge(keeper.patreonUserId);
  patreon.setMembership(upgrader.patreonUserId, patreon.campaignId, { tierIds: [tiers.gold] });
  for (const userId of memberUserIds.slice(half)) charge(userId);

  // The /link while the deliveries are still arriving and being worked.
  const linked = await e.link(linker.discordUserId, linker.patreonUserId);
  expect(linked.status).toBe(200);
  expect(discord.memberRoles(guildId, linker.discordUserId)).toEqual([roles.gold]);

  await discord.waitForMemberRole(guildId, upgrader.discordUserId, roles.gold, { present: true, timeoutMs: 60_000 });
  await discord.waitForMemberRole(guildId, upgrader.discordUserId, roles.silver, { present: false, timeoutMs: 60_000 });

  await patreon.flushDeliveries();
  const sent = patreon.deliveries().slice(deliveredBefore);
  expect(sent).toHaveLength(CHARGES + 2);
  expect(sent.filter((d) => !d.ok)).toEqual([]);
  for (let waited = 0; (await openDeliveries()) > 0; waited += 100) {
    if (waited > 60_000) throw new Error(`${await openDeliveries()} deliveries still open after 60 s`);
    await new Promise((r) => setTimeout(r, 100));
  }

  // Counted by the stand-in: the upgrade's read, the /link's read, and at most 1 % of the deliveries besides.
  const memberReads = patreon.requests().filter((r) => r.method === 'GET' && /\/members\/[^/]+$/.test(r.path));
  expect(memberReads.length).toBeLessThanOrEqual(2 + Math.floor((CHARGES + 2) / 100));
  expect(patreon.requests().filter((r) => r.status === 429)).toEqual([]);
  // No charge moved a role, nor asked Discord about a patron who is not in the server (most of
  // them on charge day; their reads would queue under Discord's global limit ahead of the upgrade):
  // Discord saw the upgrade's two changes, the /link's one and the keeper's role put back (a charge
  // plans a member the gateway knows again from the stored read), and no member read.
  const memberRequests = discord.requests().filter((r) => r.route.startsWith('GET /guilds/:g/members/:u') || r.route.includes('/roles/'));
  expect(memberRequests.map((r) => r.route).sort()).toEqual([
    'DELETE /guilds/:g/members/:u/roles/:r',
    'PUT /guilds/:g/members/:u/roles/:r',
    'PUT /guilds/:g/members/:u/roles/:r',
    'PUT /guilds/:g/members/:u/roles/:r',
  ]);
  expect(discord.memberRoles(guildId, keeper.discordUserId)).toEqual([roles.silver]);
}, 180_000);
