import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/edges/outbound/store/database';
import { DAY } from '../../src/shared/clock';
import { type E2E, pageText, startE2E } from '../support/e2e';
import { pressButton, runCommand, unlinkConfirmed } from '../support/e2e-admin';

/**
 * After the link: `/status` (why each role is or is not there), `/unlink`, the roles coming back
 * when a linked patron rejoins the server, and the link made from the Discord account on the
 * patron's service profile (`social_connections`), which `/link` always overrides.
 */

const ADMIN = 1n << 3n;
const MISSING_ROLE = '999999999999999999';

let e: E2E;
let tiers: { copper: string; ghost: string; diamond: string };
beforeAll(async () => {
  e = await startE2E({
    raisedLimits:
      "every test of the file changes roles in one server within seconds of the last; the claims are links, /status, /unlink and rejoins, not Discord's 10 per 10 s",
  });
  // A tier that grants no role here, and one whose chat_role_ids names a role the server lacks.
  tiers = {
    copper: e.patreon.createTier(e.patreon.campaignId, { title: 'Copper', amountCents: 100 }).id,
    ghost: e.patreon.createTier(e.patreon.campaignId, { title: 'Ghost', amountCents: 200, chatRoleIds: [MISSING_ROLE] }).id,
    // Diamond grants VIP, which sits above the bot's role.
    diamond: e.patreon.createTier(e.patreon.campaignId, { title: 'Diamond', amountCents: 2000, chatRoleIds: [e.roles.vip] }).id,
  };
  const connected = await e.connect();
  if (connected.status !== 200) throw new Error(`connect failed: ${pageText(connected.html)}`);
  // Gold also grants Staff, through /map.
  const mapped = await e.command(
    e.ownerId,
    'map',
    [
      { name: 'tier', type: 3, value: 'Gold' },
      { name: 'role', type: 8, value: e.roles.staff },
    ],
    ADMIN,
  );
  if (!/now grants/.test(mapped.content)) throw new Error(`map failed: ${mapped.content}`);
}, 60_000);
afterAll(() => e?.stop());

type Pledge = { status: 'active_patron' | 'declined_patron' | 'former_patron' | null; tiers?: string[]; chargedDaysAgo?: number };

function patron(fullName: string, pledge?: Pledge, discordUserId?: string) {
  const user = e.patreon.createUser({ fullName, ...(discordUserId ? { discordUserId } : {}) });
  if (pledge) setPledge(user.id, pledge, false);
  return user;
}

function setPledge(userId: string, pledge: Pledge, deliver: boolean) {
  return e.patreon.setMembership(
    userId,
    e.patreon.campaignId,
    {
      patronStatus: pledge.status,
      tierIds: pledge.tiers ?? [],
      lastChargeDate: pledge.chargedDaysAgo === undefined ? null : new Date(e.clock.now().getTime() - pledge.chargedDaysAgo * DAY),
      lastChargeStatus: pledge.status === 'declined_patron' ? 'Declined' : pledge.status ? 'Paid' : null,
    },
    { deliver },
  );
}

const mention = (roleId: string) => `<@&${roleId}>`;

describe('/status', () => {
  test('a user who never linked: not linked, and how to link', async () => {
    const member = e.discord.addMember(e.guildId, { username: 'newbie' });
    const status = await e.command(member.userId, 'status');
    expect(status.ephemeral).toBe(true);
    expect(status.content).toMatch(/^\*\*Not linked\.\*\* Run \/link/);
    expect(status.content).not.toMatch(/Roles from Tierlink/);
    expect(status.content).not.toMatch(/not a member of this campaign/);
  });

  test('an active patron: the tiers, each role granted and why, and each mapped role not granted and why', async () => {
    const user = patron('Stella Status', { status: 'active_patron', tiers: [e.tiers.gold, tiers.diamond], chargedDaysAgo: 4 });
    const member = e.discord.addMember(e.guildId, { username: 'stella' });
    const page = await e.link(member.userId, user.id);
    expect(page.status).toBe(200);
    // VIP is above the bot: the page says it is on hold, the owner's to fix.
    expect(pageText(page.html)).toMatch(/VIP On hold/);

    const status = await e.command(member.userId, 'status');

    expect(status.ephemeral).toBe(true);
    const text = status.content;
    expect(text).toMatch(/^\*\*Linked\*\* to Patreon\./);
    expect(text).toMatch(/— active patron: (Gold, Diamond|Diamond, Gold)/);
    expect(text).toContain(`${mention(e.roles.gold)} — Gold tier (active patron)`);
    expect(text).toContain(`${mention(e.roles.staff)} — Gold tier (active patron)`);
    // Theirs but above the bot: said, with why.
    expect(text).toMatch(new RegExp(`${mention(e.roles.vip)} — Diamond tier \\(active patron\\) — cannot be granted: VIP is at or above`));
    // Mapped but not theirs: the other tiers' roles, each with the reason.
    expect(text).toContain(`${mention(e.roles.bronze)} — Bronze is not one of your tiers`);
    expect(text).toContain(`${mention(e.roles.silver)} — Silver is not one of your tiers`);
    expect(e.discord.memberRoles(e.guildId, member.userId).sort()).toEqual([e.roles.gold, e.roles.staff].sort());
    // /status changes nothing.
    const events = e.discord.roleEvents().filter((r) => r.userId === member.userId).length;
    await e.command(member.userId, 'status');
    expect(e.discord.roleEvents().filter((r) => r.userId === member.userId)).toHaveLength(events);
  });

  test('a tier that grants no role here, and a tier whose role is missing, are each explained', async () => {
    const user = patron('Tia Tiers', { status: 'active_patron', tiers: [tiers.copper, tiers.ghost], chargedDaysAgo: 4 });
    const member = e.discord.addMember(e.guildId, { username: 'tia' });
    await e.link(member.userId, user.id);

    const status = await e.command(member.userId, 'status');

    expect(status.content).toMatch(/active patron: (Copper, Ghost|Ghost, Copper)/);
    expect(status.content).toMatch(/Copper tier grants no role in this server/);
    expect(status.content).toMatch(new RegExp(`role ${MISSING_ROLE} of the Ghost tier .*does not exist in this server`));
    expect(e.discord.memberRoles(e.guildId, member.userId)).toEqual([]);
  });

  test('a declined patron: declined on which date, and the roles kept until which date', async () => {
    const user = patron('Dora Declined', { status: 'declined_patron', tiers: [e.tiers.silver], chargedDaysAgo: 2 });
    const member = e.discord.addMember(e.guildId, { username: 'dora' });
    await e.link(member.userId, user.id);

    const status = await e.command(member.userId, 'status');

    expect(status.content).toContain('payment declined on 2026-11-18; roles kept until 2026-11-25 (7-day grace period)');
    expect(status.content).toContain(
      `${mention(e.roles.silver)} — Silver tier (payment declined on 2026-11-18; roles kept until 2026-11-25`,
    );
    expect(e.discord.memberRoles(e.guildId, member.userId)).toEqual([e.roles.silver]);
  });
});

describe('/unlink', () => {
  test('forgets the link, removes only the roles Tierlink granted, and says which', async () => {
    const user = patron('Una Link', { status: 'active_patron', tiers: [e.tiers.gold], chargedDaysAgo: 3 });
    // Staff and Silver were given by a moderator: not ours to take.
    const member = e.discord.addMember(e.guildId, { username: 'una', roleIds: [e.roles.staff, e.roles.silver] });
    await e.link(member.userId, user.id);
    expect(e.discord.memberRoles(e.guildId, member.userId).sort()).toEqual([e.roles.gold, e.roles.silver, e.roles.staff].sort());
    // Gold also grants Staff (through /map), but the moderator gave it first: it is not in the ledger.

    const reply = await unlinkConfirmed(e, member.userId);

    expect(reply.ephemeral).toBe(true);
    expect(reply.content).toMatch(/Your Patreon membership is unlinked\./);
    expect(reply.content).toContain(`Removed here: ${mention(e.roles.gold)}.`);
    expect(reply.content).not.toContain(mention(e.roles.silver));
    expect(reply.content).not.toContain(mention(e.roles.staff));
    expect(reply.content).toMatch(/Run \/link any time/);
    expect(e.discord.memberRoles(e.guildId, member.userId).sort()).toEqual([e.roles.silver, e.roles.staff].sort());
    const removal = e.discord.roleEvents().find((r) => r.userId === member.userId && r.op === 'remove')!;
    expect(removal.reason).toMatch(/unlinked/);

    const status = await e.command(member.userId, 'status');
    expect(status.content).toMatch(/Not linked.*You unlinked on 2026-11-20/);
    expect(status.content).not.toMatch(/Roles from Tierlink/);

    // A webhook for the unlinked patron brings nothing back.
    setPledge(user.id, { status: 'active_patron', tiers: [e.tiers.gold, e.tiers.bronze], chargedDaysAgo: 0 }, true);
    await e.patreon.flushDeliveries();
    await waitForInbox();
    expect(e.discord.memberRoles(e.guildId, member.userId)).not.toContain(e.roles.gold);

    const again = await unlinkConfirmed(e, member.userId);
    expect(again.content).toMatch(/You had no linked Patreon membership/);
    expect(again.buttons).toEqual([]);
  });

  test('asks first: it says which roles would go, and nothing changes until the member presses Unlink', async () => {
    const user = patron('Ask First', { status: 'active_patron', tiers: [e.tiers.gold], chargedDaysAgo: 3 });
    const member = e.discord.addMember(e.guildId, { username: 'askfirst' });
    await e.link(member.userId, user.id);
    const asked = runCommand(e, { userId: member.userId, name: 'unlink', memberPermissions: null });
    const preview = await asked.reply();
    expect(preview.ephemeral).toBe(true);
    expect(preview.content).toContain('Unlink your Patreon membership?');
    expect(preview.content).toContain(`Tierlink would remove here: ${mention(e.roles.gold)}`);
    expect(preview.buttons.map((b) => b.label)).toEqual(['Unlink']);
    // Nothing changed yet.
    expect(e.discord.memberRoles(e.guildId, member.userId)).toContain(e.roles.gold);
    expect(await e.tierlink.services.repos.links.byDiscordUser(member.userId, 'patreon')).not.toBeNull();
    // The reply is ephemeral (only its member sees the button); the press also checks who pressed it.
    const done = await (await pressButton(e, asked, 'Unlink')).reply();
    expect(done.content).toMatch(/Your Patreon membership is unlinked\./);
    expect(done.buttons).toEqual([]);
    expect(e.discord.memberRoles(e.guildId, member.userId)).not.toContain(e.roles.gold);
  });

  test('a role Tierlink granted that a moderator already took away is not reported as removed', async () => {
    const user = patron('Mo Derated', { status: 'active_patron', tiers: [e.tiers.bronze], chargedDaysAgo: 3 });
    const member = e.discord.addMember(e.guildId, { username: 'mo' });
    await e.link(member.userId, user.id);
    e.discord.setMemberRolesByHand(e.guildId, member.userId, []);

    const reply = await unlinkConfirmed(e, member.userId);

    expect(reply.content).toMatch(/Your Patreon membership is unlinked\./);
    expect(reply.content).not.toContain(mention(e.roles.bronze));
  });
});

describe('rejoin', () => {
  test('a linked patron who leaves and rejoins gets their roles back at once', async () => {
    const user = patron('Ray Joiner', { status: 'active_patron', tiers: [e.tiers.silver], chargedDaysAgo: 3 });
    const member = e.discord.addMember(e.guildId, { username: 'ray' });
    await e.link(member.userId, user.id);
    expect(e.discord.memberRoles(e.guildId, member.userId)).toEqual([e.roles.silver]);

    e.discord.removeMember(e.guildId, member.userId);
    e.discord.addMember(e.guildId, { userId: member.userId, username: 'ray' });

    await e.discord.waitForMemberRole(e.guildId, member.userId, e.roles.silver, { present: true, timeoutMs: 5_000 });
    const event = e.discord
      .roleEvents()
      .filter((r) => r.userId === member.userId && r.op === 'add')
      .at(-1)!;
    expect(event.reason).toMatch(/Silver/);
  });

  test('an unlinked user, or one whose grace period ended while away, gets nothing on rejoin', async () => {
    const lapsing = patron('Lee Lapsing', { status: 'declined_patron', tiers: [e.tiers.bronze], chargedDaysAgo: 5 });
    const linked = e.discord.addMember(e.guildId, { username: 'lee' });
    await e.link(linked.userId, lapsing.id);
    expect(e.discord.memberRoles(e.guildId, linked.userId)).toEqual([e.roles.bronze]);
    const stranger = e.discord.addMember(e.guildId, { username: 'stranger' });

    e.discord.removeMember(e.guildId, linked.userId);
    e.discord.removeMember(e.guildId, stranger.userId);
    const start = e.clock.now();
    e.clock.advance(3 * DAY);
    try {
      await rejoin(linked.userId, 'lee');
      await rejoin(stranger.userId, 'stranger');
      const status = await e.command(linked.userId, 'status');

      expect(e.discord.memberRoles(e.guildId, linked.userId)).toEqual([]);
      expect(e.discord.memberRoles(e.guildId, stranger.userId)).toEqual([]);
      expect(status.content).toMatch(/grace period ended on 2026-11-22/);
    } finally {
      e.clock.set(start);
    }
  });
});

describe('social auto-link', () => {
  test('a patron whose service profile carries their Discord account is linked (source social) by a webhook, without /link', async () => {
    const member = e.discord.addMember(e.guildId, { username: 'sonia' });
    const user = patron('Sonia Social', undefined, member.userId);

    setPledge(user.id, { status: 'active_patron', tiers: [e.tiers.bronze], chargedDaysAgo: 0 }, true);
    await e.patreon.flushDeliveries();

    await e.discord.waitForMemberRole(e.guildId, member.userId, e.roles.bronze, { present: true, timeoutMs: 5_000 });
    const status = await e.command(member.userId, 'status');
    expect(status.content).toMatch(/\*\*Linked\*\* to Patreon \(through the Discord connection on your Patreon account\)/);
    expect(status.content).toContain(`${mention(e.roles.bronze)} — Bronze tier`);
  });

  test('after /unlink, neither a webhook nor /sync links them again from their profile; /link does', async () => {
    const member = e.discord.addMember(e.guildId, { username: 'una' });
    const user = patron('Una Optout', undefined, member.userId);
    setPledge(user.id, { status: 'active_patron', tiers: [e.tiers.bronze], chargedDaysAgo: 0 }, true);
    await e.patreon.flushDeliveries();
    await e.discord.waitForMemberRole(e.guildId, member.userId, e.roles.bronze, { present: true, timeoutMs: 5_000 });

    const unlinked = await unlinkConfirmed(e, member.userId);
    expect(unlinked.content).toContain('Your Patreon membership is unlinked.');
    setPledge(user.id, { status: 'active_patron', tiers: [e.tiers.silver], chargedDaysAgo: 0 }, true);
    await e.patreon.flushDeliveries();
    await e.tierlink.services.processor.sweep();
    await e.command(e.ownerId, 'sync', [], ADMIN);
    expect(e.discord.memberRoles(e.guildId, member.userId)).toEqual([]);
    expect((await e.command(member.userId, 'status')).content).toMatch(/\*\*Not linked\.\*\* You unlinked on/);

    await e.link(member.userId, user.id);
    expect(e.discord.memberRoles(e.guildId, member.userId)).toEqual([e.roles.silver]);
  });

  test('a patron whose service profile carries their Discord account is linked by /sync', async () => {
    const member = e.discord.addMember(e.guildId, { username: 'sid' });
    patron('Sid Sync', { status: 'active_patron', tiers: [e.tiers.silver], chargedDaysAgo: 0 }, member.userId);

    e.patreon.resetRequests();
    const sync = await e.command(e.ownerId, 'sync', [], ADMIN);

    expect(sync.content).not.toMatch(/fail/i);
    const pages = e.patreon.requests().filter((r) => r.path === `/api/oauth2/v2/campaigns/${e.patreon.campaignId}/members`);
    expect(pages.length).toBeGreaterThan(0);
    for (const page of pages) expect(page.query['fields[user]']?.split(',')).toContain('social_connections');
    expect(e.discord.memberRoles(e.guildId, member.userId)).toEqual([e.roles.silver]);
    const status = await e.command(member.userId, 'status');
    expect(status.content).toMatch(/through the Discord connection on your Patreon account/);
  });

  test('/link wins: it moves a social link to the account that ran /link, and later reads never move it back', async () => {
    const socialMember = e.discord.addMember(e.guildId, { username: 'old-account' });
    const user = patron('Wynn Link', undefined, socialMember.userId);
    setPledge(user.id, { status: 'active_patron', tiers: [e.tiers.gold], chargedDaysAgo: 0 }, true);
    await e.patreon.flushDeliveries();
    await e.discord.waitForMemberRole(e.guildId, socialMember.userId, e.roles.gold, { present: true, timeoutMs: 5_000 });

    const linkMember = e.discord.addMember(e.guildId, { username: 'new-account' });
    const page = await e.link(linkMember.userId, user.id);

    expect(page.status).toBe(200);
    expect(e.discord.memberRoles(e.guildId, linkMember.userId)).toContain(e.roles.gold);
    expect(e.discord.memberRoles(e.guildId, socialMember.userId)).not.toContain(e.roles.gold);

    // The profile still names the old account; neither a webhook nor a full sync moves the link back.
    setPledge(user.id, { status: 'active_patron', tiers: [e.tiers.gold, e.tiers.bronze], chargedDaysAgo: 0 }, true);
    await e.patreon.flushDeliveries();
    await e.discord.waitForMemberRole(e.guildId, linkMember.userId, e.roles.bronze, { present: true, timeoutMs: 5_000 });
    await e.command(e.ownerId, 'sync', [], ADMIN);
    expect(e.discord.memberRoles(e.guildId, socialMember.userId)).toEqual([]);
    const status = await e.command(socialMember.userId, 'status');
    expect(status.content).toMatch(/linked to another Discord account/);
  });

  test('a social connection never takes the place of a Discord user’s own /link to another account', async () => {
    const member = e.discord.addMember(e.guildId, { username: 'two-patreons' });
    const own = patron('Own Account', { status: 'active_patron', tiers: [e.tiers.bronze], chargedDaysAgo: 0 });
    await e.link(member.userId, own.id);
    const other = patron('Other Account', undefined, member.userId);

    setPledge(other.id, { status: 'active_patron', tiers: [e.tiers.gold], chargedDaysAgo: 0 }, true);
    await e.patreon.flushDeliveries();
    await waitForInbox();
    await e.command(e.ownerId, 'sync', [], ADMIN);

    expect(e.discord.memberRoles(e.guildId, member.userId)).toEqual([e.roles.bronze]);
  });
});

/**
 * Adds a user back to the guild and waits until Tierlink has handled the join: its reconcile looks
 * the member's roles up (from the gateway-kept cache, which the join itself filled; nothing else
 * looks up a member meanwhile).
 */
async function rejoin(userId: string, username: string): Promise<void> {
  const lookups = async () => (await e.tierlink.services.metrics.discordMemberLookups.get()).values.reduce((sum, v) => sum + v.value, 0);
  const before = await lookups();
  e.discord.addMember(e.guildId, { userId, username });
  for (let i = 0; i < 200 && (await lookups()) === before; i++) await new Promise((r) => setTimeout(r, 10));
  if ((await lookups()) === before) throw new Error(`the join of ${userId} was not handled`);
}

/** Waits until the webhook inbox has nothing pending (the deliveries so far were processed). */
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
