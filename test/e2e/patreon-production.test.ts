import { sql } from 'drizzle-orm';
import { PATREON_BOT_USER_ID } from '../../src/app/admin/membership-checks';
import { queryRows } from '../../src/edges/outbound/store/database';
import { DAY, MINUTE } from '../../src/shared/clock';
import { type E2E, dueWorkDone, startE2E } from '../support/e2e';
import { EVERYONE, MANAGE_ROLES, activePatron, boolOption, runCommand } from '../support/e2e-admin';

/**
 * The whole service against a stand-in that speaks Patreon's documented dialect: a member Patreon
 * answers with a `patron_status` Tierlink does not know, the grace period counted from the first
 * declined charge and ended by a scheduled check, Patreon's own bot beside Tierlink, and moving in
 * with `/sync adopt:true`.
 */
let e: E2E;
beforeAll(async () => {
  e = await startE2E({ dialect: 'patreon', creatorTokensInEnv: true });
}, 60_000);
afterAll(() => e?.stop());
// The stand-in counts requests per grant in windows of its (mocked) clock: each test starts in a fresh one.
beforeEach(() => e.clock.advance(MINUTE + 1000));

const command = (name: string, options: Array<Record<string, unknown>> = [], memberPermissions = MANAGE_ROLES) =>
  runCommand(e, { userId: e.ownerId, name, options, memberPermissions }).reply();

async function deliveriesProcessed(): Promise<void> {
  await e.patreon.flushDeliveries();
  for (let i = 0; i < 200; i++) {
    const [row] = await queryRows<{ n: number }>(
      e.db.database.db,
      sql`select count(*)::int as n from webhook_inbox where status = 'pending'`,
    );
    if (row?.n === 0) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('webhook deliveries still pending');
}

const metric = async (name: string): Promise<string[]> =>
  (await (await fetch(`${e.url}/metrics`)).text()).split('\n').filter((l) => l.startsWith(name));

describe('a member Patreon answers with an unknown patron_status', () => {
  let odd: { userId: string; memberId: string };

  test('the full sync completes, leaves its roles exactly as they are and counts it; it is logged once', async () => {
    const discordUser = e.discord.addMember(e.guildId, { username: 'odd', roleIds: [e.roles.staff] });
    const patron = activePatron(e, 'Odd Member', [e.tiers.gold]);
    await e.link(discordUser.userId, patron.id);
    const memberId = e.patreon.memberOf(patron.id, e.patreon.campaignId)!.id;
    odd = { userId: discordUser.userId, memberId };
    // Patreon now lists Silver, with a status this release has never seen: neither is acted on.
    e.patreon.setMembership(patron.id, e.patreon.campaignId, { tierIds: [e.tiers.silver] }, { deliver: false });
    e.patreon.overrideMemberAttributes(memberId, { patron_status: 'paused_patron' });

    for (let run = 0; run < 2; run++) {
      const reply = await command('sync');
      expect(reply.content).toMatch(/^Full sync: ok/);
      expect(reply.content).toContain('1 unreadable member (roles left as they are)');
      expect(reply.content).toContain(`Unreadable: member ${memberId}: patron_status is "paused_patron"`);
    }
    expect(e.discord.memberRoles(e.guildId, odd.userId).sort()).toEqual([e.roles.gold, e.roles.staff].sort());
    const logged = e.log.lines.filter((l) => l.includes('a member could not be read; its roles stay as they are'));
    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0]!)).toMatchObject({ memberId, attribute: 'patron_status', level: 40 });
    expect(await metric('tierlink_unreadable_members_total')).toEqual(['tierlink_unreadable_members_total{source="sync"} 2']);
  });

  test('a webhook for it re-reads it, keeps its roles, and counts it', async () => {
    e.patreon.setMembership(e.patreon.getMember(odd.memberId)!.userId, e.patreon.campaignId, { tierIds: [e.tiers.bronze] });
    await deliveriesProcessed();
    expect(e.discord.memberRoles(e.guildId, odd.userId).sort()).toEqual([e.roles.gold, e.roles.staff].sort());
    expect(await metric('tierlink_unreadable_members_total{source="webhook"}')).toEqual([
      'tierlink_unreadable_members_total{source="webhook"} 1',
    ]);
  });

  test('/doctor names it, with the attribute, and says why its roles wait', async () => {
    const reply = await command('doctor');
    expect(reply.content).toContain(
      `❌ **Unreadable members**: Patreon answered 1 member with values Tierlink cannot read, so its roles are left exactly as they are: member ${odd.memberId} (patron_status is "paused_patron"`,
    );
    expect(reply.content).toContain('**Fix:** Nothing is lost: Tierlink reads them again at every sync and webhook');
  });

  test('once Patreon answers a status Tierlink knows, the member is read again and its roles follow', async () => {
    e.patreon.overrideMemberAttributes(odd.memberId, null);
    await command('sync');
    expect(e.discord.memberRoles(e.guildId, odd.userId).sort()).toEqual([e.roles.bronze, e.roles.staff].sort());
    expect((await command('doctor')).content).not.toContain('Unreadable members');
  });
});

test('a declined patron whose charge is retried on days 3 and 6 loses the role 7 days after the first decline, by a scheduled check', async () => {
  const discordUser = e.discord.addMember(e.guildId, { username: 'dee' });
  const patron = activePatron(e, 'Dee Declined', [e.tiers.gold]);
  await e.link(discordUser.userId, patron.id);
  const firstDecline = e.clock.now();
  const decline = () =>
    e.patreon.setMembership(patron.id, e.patreon.campaignId, {
      patronStatus: 'declined_patron',
      tierIds: [],
      lastChargeDate: e.clock.now(),
      lastChargeStatus: 'Declined',
    });
  decline();
  await deliveriesProcessed();
  for (const days of [3, 6]) {
    e.clock.set(new Date(firstDecline.getTime() + days * DAY));
    decline(); // Patreon retries the charge: last_charge_date moves to today.
    await deliveriesProcessed();
    expect(e.discord.memberRoles(e.guildId, discordUser.userId)).toEqual([e.roles.gold]);
  }
  const status = await runCommand(e, { userId: discordUser.userId, name: 'status' }).reply();
  const graceEnd = new Date(firstDecline.getTime() + 7 * DAY);
  expect(status.content).toContain(`roles kept until ${graceEnd.toISOString().slice(0, 10)} (7-day grace period)`);

  // A minute before the end: the check is not due, the role stays (the queue sweeps every 200 ms here).
  e.clock.set(new Date(graceEnd.getTime() - MINUTE));
  await dueWorkDone(e);
  expect(e.discord.memberRoles(e.guildId, discordUser.userId)).toEqual([e.roles.gold]);

  // At the end: the scheduled check removes it, with no sync and no webhook.
  e.clock.set(graceEnd);
  await e.discord.waitForMemberRole(e.guildId, discordUser.userId, e.roles.gold, { present: false, timeoutMs: 5_000 });
  // The audit row is written once Discord has answered.
  let removal;
  for (let i = 0; i < 100 && removal?.action !== 'remove'; i++) {
    [removal] = await e.tierlink.services.repos.ledger.recentAudit(e.guildId, discordUser.userId, 1);
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(removal).toMatchObject({ action: 'remove', outcome: 'applied', trigger: 'grace', at: graceEnd });
  expect(removal!.reason).toMatch(/grace period ended/);
});

test('the grace end reads the member first: a patron whose payment went through minutes before it keeps the role, without a webhook', async () => {
  const discordUser = e.discord.addMember(e.guildId, { username: 'paula' });
  const patron = activePatron(e, 'Paula Paid Late', [e.tiers.gold]);
  await e.link(discordUser.userId, patron.id);
  const firstDecline = e.clock.now();
  e.patreon.setMembership(patron.id, e.patreon.campaignId, {
    patronStatus: 'declined_patron',
    tierIds: [],
    lastChargeDate: firstDecline,
    lastChargeStatus: 'Declined',
  });
  await deliveriesProcessed();
  expect(e.discord.memberRoles(e.guildId, discordUser.userId)).toEqual([e.roles.gold]);
  const graceEnd = new Date(firstDecline.getTime() + 7 * DAY);
  // Minutes before the end the charge goes through; its webhook never arrives.
  e.clock.set(new Date(graceEnd.getTime() - 5 * MINUTE));
  e.patreon.setMembership(
    patron.id,
    e.patreon.campaignId,
    { patronStatus: 'active_patron', tierIds: [e.tiers.gold], lastChargeDate: e.clock.now(), lastChargeStatus: 'Paid' },
    { deliver: false },
  );
  e.patreon.resetRequests();
  e.clock.set(graceEnd);
  const memberId = e.patreon.memberOf(patron.id, e.patreon.campaignId)!.id;
  let reads = 0;
  for (let i = 0; i < 200 && reads === 0; i++) {
    await new Promise((r) => setTimeout(r, 25));
    reads = e.patreon.requests().filter((r) => r.path === `/api/oauth2/v2/members/${memberId}`).length;
  }
  expect(reads).toBe(1);
  // The job finishes after the read: wait for it, then the role is still there.
  for (let i = 0; i < 100; i++) {
    const [row] = await queryRows<{ n: number }>(
      e.db.database.db,
      sql`select count(*)::int as n from jobs where kind = 'grace-end' and status = 'pending' and run_at <= ${graceEnd}`,
    );
    if (row?.n === 0) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  expect(e.discord.memberRoles(e.guildId, discordUser.userId)).toEqual([e.roles.gold]);
  expect(await e.tierlink.services.repos.snapshots.get('patreon', e.patreon.campaignId, memberId)).toMatchObject({
    patronStatus: 'active_patron',
  });
});

describe('beside Patreon’s own Discord bot', () => {
  test('/doctor warns when Patreon’s bot is in the server and the tiers carry Discord roles, and says how to split the work', async () => {
    e.discord.addMember(e.guildId, { userId: PATREON_BOT_USER_ID, username: 'Patreon', bot: true });
    const reply = await command('doctor');
    expect(reply.content).toContain(
      '❌ **Patreon’s Discord bot**: Patreon’s own bot is in this server and manages the Discord roles set on Patreon’s tiers (Bronze, Silver, Gold)',
    );
    expect(reply.content).toContain(
      '**Fix:** Split the work: Patreon’s integration links patrons’ Discord accounts, Tierlink manages the roles. Map each tier to its role with /map, remove the Discord roles from the tiers on Patreon, then run /sync adopt:true',
    );
  });

  test('once the tiers carry no Discord role on Patreon, the two no longer overlap', async () => {
    for (const [tier, role] of [
      [e.tiers.bronze, e.roles.bronze],
      [e.tiers.silver, e.roles.silver],
      [e.tiers.gold, e.roles.gold],
    ] as const) {
      const title = e.patreon.updateTier(tier, { chatRoleIds: null }).title;
      await runCommand(e, {
        userId: e.ownerId,
        name: 'map',
        options: [
          { name: 'tier', type: 3, value: title },
          { name: 'role', type: 8, value: role },
        ],
        memberPermissions: MANAGE_ROLES,
      }).until(/Updated|failed/);
    }
    await command('tiers');
    const reply = await command('doctor');
    expect(reply.content).toContain(
      '✅ **Patreon’s Discord bot**: Patreon’s own bot is in this server, but no tier sets a Discord role on Patreon',
    );
  });
});

describe('moving in: /sync adopt:true', () => {
  const patrons: Array<{ userId: string; patreonUserId: string }> = [];

  test('on a server where 100 entitled patrons hold their roles by hand, the dry run says 100 and the run records 100 grants with no role request', async () => {
    for (let i = 0; i < 100; i++) {
      const member = e.discord.addMember(e.guildId, { username: `held${i}`, roleIds: [e.roles.gold] });
      const user = e.patreon.createUser({ fullName: `Held ${i}`, discordUserId: member.userId });
      e.patreon.setMembership(
        user.id,
        e.patreon.campaignId,
        { patronStatus: 'active_patron', tierIds: [e.tiers.gold], lastChargeDate: e.clock.now(), lastChargeStatus: 'Paid' },
        { deliver: false },
      );
      patrons.push({ userId: member.userId, patreonUserId: user.id });
    }
    const { ledger } = e.tierlink.services.repos;
    const grantsBefore = await ledger.countInGuild(e.guildId);

    const refused = await runCommand(e, {
      userId: patrons[0]!.userId,
      name: 'sync',
      options: [boolOption('adopt', true)],
      memberPermissions: EVERYONE,
    }).reply();
    expect(refused.content).toMatch(/^You need the \*\*Manage Roles\*\* permission to use \/sync\./);

    const dry = await command('sync', [boolOption('dry_run', true), boolOption('adopt', true)]);
    expect(dry.content).toContain('Would adopt: 100 roles entitled patrons already hold');
    expect(await ledger.countInGuild(e.guildId)).toBe(grantsBefore);

    e.discord.resetRequests();
    const run = await command('sync', [boolOption('adopt', true)]);
    expect(run.content).toMatch(/^Full sync: ok/);
    expect(run.content).toContain('Adopted: 100 roles entitled patrons already held');
    expect(await ledger.countInGuild(e.guildId)).toBe(grantsBefore + 100);
    expect(e.discord.requests().filter((r) => r.route.endsWith('/roles/:r'))).toEqual([]);
    const [audited] = await queryRows<{ n: number }>(
      e.db.database.db,
      sql`select count(*)::int as n from audit_log where trigger = 'adopt' and action = 'adopt' and outcome = 'applied'`,
    );
    expect(audited?.n).toBe(100);
  }, 60_000);

  test('after 50 of them cancel, the next sync removes those 50 roles (past the mass-removal guard with force) and keeps the others', async () => {
    for (const p of patrons.slice(0, 50)) {
      e.patreon.setMembership(
        p.patreonUserId,
        e.patreon.campaignId,
        { patronStatus: 'former_patron', tierIds: [], lastChargeStatus: 'Deleted' },
        { deliver: false },
      );
    }
    const held = await command('sync');
    expect(held.content).toContain('Held 50 removals');
    e.discord.setRateLimit({
      route: 'member-role',
      limit: 10_000,
      windowMs: 1_000,
      raised: 'fifty removals inside one /sync reply (Discord waits 10 s for it); the claim is the guard and the adoption, not the pace',
    });
    try {
      const forced = await command('sync', [boolOption('force', true)]);
      expect(forced.content).toContain('Applied: 0 added, 50 removed');
    } finally {
      e.discord.setRateLimit({ route: 'member-role', limit: 10, windowMs: 10_000 });
    }
    expect(patrons.filter((p) => e.discord.memberRoles(e.guildId, p.userId).includes(e.roles.gold))).toEqual(patrons.slice(50));
  }, 60_000);
});
