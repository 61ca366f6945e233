import { wireSync } from '../../support/sync-kit';
import { formatSyncReport } from '../../../src/core/sync-report';
import { type World, createWorld } from '../../support/world';

let world: World;
beforeAll(async () => {
  world = await createWorld({
    raisedLimits:
      "full syncs of dozens of members in one server; the claims are the plan, the guard and the report, not Discord's or Patreon's pace",
  });
});
afterAll(() => world.close());
beforeEach(() => world.reset());

/** More than STALE_SNAPSHOT_MARGIN_MS between runs: what a snapshot not refreshed by a run is older by. */
const LATER = 10 * 60_000;
const roleWrites = () => world.discord.sandbox.requests().filter((r) => r.route.includes('/roles/:r'));
const memberPages = () => world.patreon.requests().filter((r) => r.path.endsWith('/members'));
const has = (userId: string, roleId: string) => world.discord.sandbox.memberRoles(world.guildId, userId).includes(roleId);

test('heals drift both ways, links from social_connections, and a second run changes nothing and sends no role request', async () => {
  const { fullSync, syncRuns, repos } = wireSync(world, undefined, { guildPageSize: 2 });
  const kept = world.addPatron({ tier: 'gold', socialDiscord: true });
  const lapsed = world.addPatron({ tier: 'silver', socialDiscord: true });
  const stranger = world.discord.sandbox.addMember(world.guildId, { username: 'stranger' }).userId;
  world.discord.sandbox.setMemberRolesByHand(world.guildId, stranger, [world.roles.gold]);

  const first = await fullSync.run({ trigger: 'cli' });
  expect(first.status).toBe('ok');
  expect(has(kept.discordUserId, world.roles.gold)).toBe(true);
  expect(has(lapsed.discordUserId, world.roles.silver)).toBe(true);
  expect(await repos.links.byDiscordUser(kept.discordUserId, 'patreon')).toMatchObject({
    externalId: kept.patreonUserId,
    method: 'social',
  });
  expect(first.campaigns).toMatchObject([{ complete: true, pages: 1, members: 2, linksMade: 2 }]);

  // While the bot was down: a moderator took Gold away by hand, and the Silver pledge ended.
  world.discord.sandbox.setMemberRolesByHand(world.guildId, kept.discordUserId, []);
  world.patreon.setMembership(lapsed.patreonUserId, world.campaignId, { patronStatus: 'former_patron', tierIds: [] }, { deliver: false });
  world.clock.advance(LATER);
  world.discord.sandbox.resetRequests();

  const second = await fullSync.run({ trigger: 'schedule' });
  expect(second.status).toBe('ok');
  expect(has(kept.discordUserId, world.roles.gold)).toBe(true);
  expect(has(lapsed.discordUserId, world.roles.silver)).toBe(false);
  // A role Tierlink never granted stays (not strict).
  expect(has(stranger, world.roles.gold)).toBe(true);
  const [guild] = second.guilds;
  expect(guild).toMatchObject({ planned: { adds: 1, removes: 1 }, applied: { adds: 1, removes: 1 }, held: null, linkedMembers: 2 });
  expect(guild!.changes.map((c) => [c.userId, c.op, c.outcome])).toEqual(
    expect.arrayContaining([
      [kept.discordUserId, 'add', 'applied'],
      [lapsed.discordUserId, 'remove', 'applied'],
    ]),
  );
  expect(guild!.changes.find((c) => c.op === 'remove')?.reason).toMatch(/no longer entitled/);
  // Members listed 2 per page: the owner, the bot and three members make three pages.
  expect(guild!.discord).toEqual({ pages: 3, members: 5 });
  expect(
    roleWrites()
      .map((r) => r.method)
      .sort(),
  ).toEqual(['DELETE', 'PUT']);
  expect(roleWrites().find((r) => r.method === 'PUT')?.reason).toMatch(/^Tierlink \(sync\): /);
  expect(await repos.ledger.forUser(world.guildId, lapsed.discordUserId)).toEqual([]);

  world.clock.advance(LATER);
  world.discord.sandbox.resetRequests();
  world.patreon.resetRequests();
  const third = await fullSync.run({ trigger: 'schedule' });
  expect(third.guilds[0]).toMatchObject({ status: 'ok', planned: { adds: 0, removes: 0, forgets: 0 }, changes: [] });
  expect(roleWrites()).toEqual([]);
  expect(memberPages()).toHaveLength(1);
  expect(world.discord.sandbox.requests({ route: 'GET /guilds/:g/members' })).toHaveLength(3);

  const row = await syncRuns.get(third.guilds[0]!.runId!);
  expect(row).toMatchObject({
    trigger: 'schedule',
    guildId: world.guildId,
    status: 'ok',
    dryRun: false,
    pagesRead: 4,
    membersSeen: 2,
    links: 2,
    plannedAdds: 0,
    plannedRemoves: 0,
    appliedAdds: 0,
    errors: [],
    heldReason: null,
  });
  expect(row!.finishedAt).not.toBeNull();
  expect(row!.apiCalls).toMatchObject({ 'patreon GET /api/oauth2/v2/campaigns/:id/members': 1, 'discord GET /guilds/:id/members': 3 });
  expect(Object.keys(row!.apiCalls).some((k) => k.includes('/roles/'))).toBe(false);
});

test('a dry run shows each change with its reason and changes nothing: no role, no ledger row, no link', async () => {
  const { fullSync, syncRuns, repos } = wireSync(world);
  const patrons = Array.from({ length: 22 }, () => world.addPatron({ tier: 'bronze', socialDiscord: true }));

  const report = await fullSync.run({ trigger: 'manual', dryRun: true });
  expect(report.dryRun).toBe(true);
  // Patrons of earlier tests (members of other servers) are in the campaign too.
  expect(report.campaigns[0]!.linksMade).toBeGreaterThanOrEqual(22);
  expect(report.campaigns[0]!.complete).toBe(true);
  expect(report.guilds[0]).toMatchObject({ planned: { adds: 22, removes: 0 }, applied: { adds: 0 }, linkedMembers: 22 });
  expect(report.guilds[0]!.changes.every((c) => c.outcome === 'planned' && c.op === 'add' && /Bronze/.test(c.reason))).toBe(true);
  expect(roleWrites()).toEqual([]);
  expect(await repos.links.count()).toBe(0);
  expect(await repos.ledger.countInGuild(world.guildId)).toBe(0);
  for (const p of patrons) expect(has(p.discordUserId, world.roles.bronze)).toBe(false);
  expect(await syncRuns.get(report.guilds[0]!.runId!)).toMatchObject({ dryRun: true, plannedAdds: 22, appliedAdds: 0, status: 'ok' });

  const text = formatSyncReport(report, { limit: 20, maxLength: 2000 });
  expect(text).toMatch(/dry run \(nothing was changed\)/);
  expect(text).toMatch(/Would change: 22 to add, 0 to remove/);
  expect(text).toMatch(/Changes \(first 20 of 22\)/);
  expect(text).toMatch(/\n {2}\+ Bronze to patron\d+ \(\d+\): Bronze \d+ tier \(active patron\)\n/);
  expect(text.length).toBeLessThanOrEqual(2000);
  expect(JSON.parse(formatSyncReport(report, { json: true }))).toEqual(JSON.parse(JSON.stringify(report)));
});

test('a mass removal above the threshold is held (additions still made) until forced', async () => {
  const { fullSync, syncRuns, repos } = wireSync(world);
  const patrons = Array.from({ length: 30 }, () => world.addPatron({ tier: 'bronze', socialDiscord: true }));
  await fullSync.run({ trigger: 'cli' });
  expect(await repos.ledger.countInGuild(world.guildId)).toBe(30);

  // The service now reads everyone as a former patron (a bad day, or a real exodus).
  for (const p of patrons)
    world.patreon.setMembership(p.patreonUserId, world.campaignId, { patronStatus: 'former_patron', tierIds: [] }, { deliver: false });
  const newcomer = world.addPatron({ tier: 'gold', socialDiscord: true });
  world.clock.advance(LATER);

  const held = await fullSync.run({ trigger: 'schedule' });
  expect(held.status).toBe('held');
  const guild = held.guilds[0]!;
  expect(guild).toMatchObject({
    status: 'held',
    ourGrants: 30,
    planned: { adds: 1, removes: 30 },
    applied: { adds: 1, removes: 0 },
    held: { removals: 30 },
  });
  expect(guild.held!.reason).toMatch(/30 removals \(100\.0% of 30 grants\).*force/);
  for (const p of patrons) expect(has(p.discordUserId, world.roles.bronze)).toBe(true);
  expect(has(newcomer.discordUserId, world.roles.gold)).toBe(true);
  expect(await syncRuns.get(guild.runId!)).toMatchObject({
    status: 'held',
    heldRemovals: 30,
    heldReason: guild.held!.reason,
    forced: false,
  });
  const audit = await repos.ledger.recentAudit(world.guildId, patrons[0]!.discordUserId);
  expect(audit[0]).toMatchObject({ action: 'remove', outcome: 'held', trigger: 'sync' });
  expect(formatSyncReport(held)).toMatch(/HELD/);

  world.clock.advance(LATER);
  const forced = await fullSync.run({ trigger: 'manual', force: true });
  expect(forced.guilds[0]).toMatchObject({ status: 'ok', applied: { removes: 30 }, held: null });
  for (const p of patrons) expect(has(p.discordUserId, world.roles.bronze)).toBe(false);
  expect(await syncRuns.get(forced.guilds[0]!.runId!)).toMatchObject({ forced: true, appliedRemoves: 30, status: 'ok' });
});

test('strict mode removes a managed role from anyone not entitled; other roles and other servers’ roles stay', async () => {
  const { fullSync } = wireSync(world);
  const stranger = world.discord.sandbox.addMember(world.guildId, { username: 'stranger' }).userId;
  world.discord.sandbox.setMemberRolesByHand(world.guildId, stranger, [world.roles.gold, world.roles.staff]);
  const patron = world.addPatron({ tier: 'gold', socialDiscord: true });
  const settings = await world.repos.guilds.settings(world.guildId);
  await world.repos.guilds.saveSettings(world.guildId, { ...settings, strict: true });

  const report = await fullSync.run({ trigger: 'cli' });
  expect(report.guilds[0]!.changes.find((c) => c.userId === stranger)).toMatchObject({
    op: 'remove',
    outcome: 'applied',
    reason: expect.stringMatching(/strict mode/),
  });
  expect(world.discord.sandbox.memberRoles(world.guildId, stranger)).toEqual([world.roles.staff]);
  expect(has(patron.discordUserId, world.roles.gold)).toBe(true);
});

test('a Discord member-list error removes nothing and says why', async () => {
  const { fullSync, syncRuns } = wireSync(world);
  const patron = world.addPatron({ tier: 'gold', socialDiscord: true });
  await fullSync.run({ trigger: 'cli' });
  world.patreon.setMembership(patron.patreonUserId, world.campaignId, { patronStatus: 'former_patron', tierIds: [] }, { deliver: false });
  world.discord.sandbox.injectFault({ method: 'GET', route: '/guilds/:g/members', status: 403, code: 50001, message: 'Missing Access' });
  world.clock.advance(LATER);
  world.discord.sandbox.resetRequests();

  const report = await fullSync.run({ trigger: 'schedule' });
  expect(report.status).toBe('failed');
  expect(report.guilds[0]!.errors).toEqual([expect.stringMatching(/Server Members Intent/)]);
  expect(roleWrites()).toEqual([]);
  expect(has(patron.discordUserId, world.roles.gold)).toBe(true);
  expect(await syncRuns.get(report.guilds[0]!.runId!)).toMatchObject({ status: 'failed', pagesRead: report.campaigns[0]!.pages });
});

test('a run for one guild covers only that guild; a guild that serves nothing is reported, not synced', async () => {
  const { fullSync } = wireSync(world);
  const other = world.discord.sandbox.createGuild({ name: 'Elsewhere' }).guildId;
  world.addPatron({ tier: 'gold', socialDiscord: true });
  const one = await fullSync.run({ trigger: 'manual', guildId: world.guildId });
  expect(one.guilds.map((g) => g.guildId)).toEqual([world.guildId]);
  const none = await fullSync.run({ trigger: 'manual', guildId: other });
  expect(none).toMatchObject({ status: 'failed', guilds: [], errors: [expect.stringMatching(/serves no campaign/)] });
  expect(formatSyncReport(none)).toMatch(/serves no campaign/);
});

test('a change on a role above the bot is counted as blocked with its fix and sends no request', async () => {
  const { fullSync } = wireSync(world);
  const vip = world.discord.sandbox.createRole(world.guildId, { name: 'VIP', position: 10 }).id;
  await world.repos.mappings.add(world.guildId, { campaignId: world.campaignId, tierId: world.tiers.gold, roleId: vip }, 'test');
  const patron = world.addPatron({ tier: 'gold', socialDiscord: true });
  world.discord.sandbox.resetRequests();

  const report = await fullSync.run({ trigger: 'cli' });
  const guild = report.guilds[0]!;
  expect(guild).toMatchObject({ status: 'ok', planned: { adds: 1, blocked: 1 }, applied: { adds: 1 } });
  expect(guild.changes.find((c) => c.roleId === vip)).toMatchObject({
    userId: patron.discordUserId,
    op: 'add',
    outcome: 'blocked',
    problem: expect.stringMatching(/VIP/),
  });
  expect(roleWrites().map((r) => r.path)).toEqual([`/guilds/${world.guildId}/members/${patron.discordUserId}/roles/${world.roles.gold}`]);
  expect(formatSyncReport(report)).toMatch(/1 blocked/);
});
