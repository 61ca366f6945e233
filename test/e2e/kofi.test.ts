import { performance } from 'node:perf_hooks';
import { type KofiStandIn, createKofiStandIn } from '@tierlink/sandbox/kofi';
import { sql } from 'drizzle-orm';
import { Permission } from '@tierlink/sandbox/discord';
import { oneMonthAfter } from '../../src/edges/outbound/kofi/kofi-states';
import { DAY, MINUTE } from '../../src/shared/clock';
import { type E2E, dueWorkDone, startE2E } from '../support/e2e';
import { MANAGE_ROLES, activePatron, roleOption, runCommand, settingsChannel, tierOption } from '../support/e2e-admin';

/**
 * Ko-fi as a source, against the stand-ins over HTTP: Ko-fi's stand-in POSTs payments (form body,
 * JSON in `data`, the token inside) to `POST /webhooks/kofi`; the real discord.js client on the
 * sandbox's Discord. Only the clock is mocked.
 */
const TOKEN = 'kofi-verification-token-0123456789';
let e: E2E;
let kofi: KofiStandIn;
let coffeeRole: string;

const holds = (userId: string, roleId: string) => e.discord.memberRoles(e.guildId, userId).includes(roleId);
const mapping = (tier: string, roleId: string) =>
  runCommand(e, {
    userId: e.ownerId,
    name: 'map',
    options: [tierOption(tier), roleOption('role', roleId)],
    memberPermissions: MANAGE_ROLES,
  }).reply();
const count = async (table: string): Promise<number> => {
  const result = await e.db.database.db.execute(sql.raw(`select count(*)::int as n from ${table}`));
  const rows = (Array.isArray(result) ? result : (result as { rows: Array<{ n: number }> }).rows) as Array<{ n: number }>;
  return rows[0]!.n;
};

/**
 * How long a step may take before the test fails, where no test names a time: most take a few
 * hundred milliseconds, but a loaded two-core machine on PostgreSQL once took more than 5 s for one.
 */
const WAIT_MS = 15_000;
jest.setTimeout(90_000);

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return performance.now() - started;
}

/** The durable queue's sweep runs jobs due at the manual clock's time: wait for it (it polls every 200 ms here). */
const afterTheSweep = (check: () => boolean, what: string) => until(check, 10_000, what);
/** Nothing that should not happen happens: the payments stored and the jobs due by now are all worked. */
const settle = () => dueWorkDone(e);

beforeAll(async () => {
  e = await startE2E({ env: { KOFI_VERIFICATION_TOKEN: TOKEN } });
  const page = await e.connect();
  if (page.status !== 200) throw new Error(e.log.lines.filter((l) => l.includes('"level":50')).join('\n'));
  kofi = createKofiStandIn({ webhookUrl: `${e.url}/webhooks/kofi`, verificationToken: TOKEN, clock: e.clock });
  coffeeRole = e.discord.createRole(e.guildId, { name: 'Coffee Club', position: 1 }).id;
}, 60_000);
afterAll(() => e?.stop());

test('/map lists Ko-fi tiers seen in payments, and maps kofi:<tier name>', async () => {
  const before = await e.autocomplete(e.ownerId, 'map', [tierOption('ko-fi')], 'tier', MANAGE_ROLES);
  expect(before.map((c) => c.value).sort()).toEqual(['kofi:*', 'kofi:*donation']);
  // A payment from someone on no Discord account: kept, and its tier is now known.
  const paid = await kofi.pay({ email: 'Nobody@Example.com', tierName: 'Coffee Club', amount: '4.00' });
  expect(paid.status).toBe(200);
  await until(
    async () => (await e.autocomplete(e.ownerId, 'map', [tierOption('coffee')], 'tier', MANAGE_ROLES)).length > 0,
    WAIT_MS,
    'tier seen',
  );
  expect(await e.autocomplete(e.ownerId, 'map', [tierOption('coffee')], 'tier', MANAGE_ROLES)).toEqual([
    { name: 'Coffee Club — $4 a month (Ko-fi)', value: 'kofi:Coffee Club' },
  ]);
  const reply = await mapping('kofi:Coffee Club', coffeeRole);
  expect(reply.content).toMatch(/\*\*Coffee Club\*\* now grants \*\*Coffee Club\*\*/);
  const tiers = (await runCommand(e, { userId: e.ownerId, name: 'tiers', memberPermissions: MANAGE_ROLES }).reply()).content;
  expect(tiers).toContain('Coffee Club');
  expect(tiers).toContain('Gold');
});

test('a subscription payment naming a member’s Discord account grants the mapped role within 2 s; the same payment again changes nothing', async () => {
  const ada = e.discord.addMember(e.guildId, { username: 'ada' }).userId;
  const sent = performance.now();
  const paid = await kofi.pay({ email: 'ada@example.com', tierName: 'Coffee Club', discordUserId: ada, discordUsername: 'ada' });
  expect(paid.status).toBe(200);
  await until(() => holds(ada, coffeeRole), 2000, 'the Ko-fi role');
  const ms = performance.now() - sent;
  e.log.write(`kofi-grant-ms ${ms.toFixed(0)}\n`);
  process.stdout.write(`Ko-fi payment → role: ${ms.toFixed(0)} ms (answer ${paid.ms.toFixed(0)} ms)\n`);

  const link = await e.tierlink.services.repos.links.byDiscordUser(ada, 'kofi');
  expect(link).toMatchObject({ externalId: 'ada@example.com', method: 'social' });
  await until(async () => (await e.tierlink.services.repos.ledger.recentAudit(e.guildId, ada)).length > 0, WAIT_MS, 'the audit');
  const [grant] = await e.tierlink.services.repos.ledger.recentAudit(e.guildId, ada);
  expect(grant).toMatchObject({ roleId: coffeeRole, action: 'add', outcome: 'applied' });
  expect(grant!.reason).toMatch(/Ko-fi subscription \(Coffee Club/);

  const payments = await count('kofi_payments');
  const audit = (await e.tierlink.services.repos.ledger.recentAudit(e.guildId, ada)).length;
  const again = await kofi.deliver(paid.data);
  expect(again.status).toBe(200);
  expect(JSON.parse(again.body)).toMatchObject({ ok: true, duplicate: true });
  await settle();
  expect(await count('kofi_payments')).toBe(payments);
  expect((await e.tierlink.services.repos.ledger.recentAudit(e.guildId, ada)).length).toBe(audit);
  expect(holds(ada, coffeeRole)).toBe(true);

  const status = await runCommand(e, { userId: ada, name: 'status' }).reply();
  expect(status.content).toMatch(/Ko-fi/);
});

test('a wrong or missing token is refused with 401 and nothing is stored', async () => {
  const bea = e.discord.addMember(e.guildId, { username: 'bea' }).userId;
  const payments = await count('kofi_payments');
  kofi.useToken('not-the-token-at-all-000000000');
  const wrong = await kofi.pay({ email: 'bea@example.com', tierName: 'Espresso', discordUserId: bea });
  expect(wrong.status).toBe(401);
  kofi.useToken('');
  const missing = await kofi.pay({ email: 'bea@example.com', tierName: 'Espresso', discordUserId: bea });
  expect(missing.status).toBe(401);
  kofi.useToken(TOKEN);
  const noData = await fetch(`${e.url}/webhooks/kofi`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'nothing=here',
  });
  expect(noData.status).toBe(400);
  const huge = await fetch(`${e.url}/webhooks/kofi`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: `data=${'x'.repeat(64 * 1024)}`,
  });
  expect(huge.status).toBe(413);
  await settle();
  expect(await count('kofi_payments')).toBe(payments);
  expect(await e.tierlink.services.repos.links.byDiscordUser(bea, 'kofi')).toBeNull();
  expect(await e.autocomplete(e.ownerId, 'map', [tierOption('espresso')], 'tier', MANAGE_ROLES)).toEqual([]);
  // Ko-fi keeps retrying what was not answered 200; with the right token again, nothing is lost.
  expect(kofi.pending()).toHaveLength(2);
});

test('a role justified by Ko-fi and by Patreon survives the end of either one', async () => {
  await mapping('kofi:Coffee Club', e.roles.gold);
  // Ben: a Patreon Gold patron and a Ko-fi supporter; Patreon ends first.
  const ben = e.discord.addMember(e.guildId, { username: 'ben' }).userId;
  const patron = activePatron(e, 'Ben', [e.tiers.gold]);
  await e.link(ben, patron.id);
  expect(holds(ben, e.roles.gold)).toBe(true);
  await kofi.pay({ email: 'ben@example.com', tierName: 'Coffee Club', discordUserId: ben });
  await until(() => holds(ben, coffeeRole), WAIT_MS, 'Ben’s Ko-fi role');
  const both = (await e.tierlink.services.repos.ledger.forUser(e.guildId, ben)).find((g) => g.roleId === e.roles.gold);
  expect(both).toBeDefined();
  e.patreon.setMembership(patron.id, e.patreon.campaignId, { patronStatus: 'former_patron', tierIds: [] });
  await until(
    async () => (await e.tierlink.services.repos.snapshots.forExternalUser('patreon', patron.id))[0]?.patronStatus === 'former_patron',
    WAIT_MS,
    'the pledge’s end read',
  );
  await settle();
  expect(holds(ben, e.roles.gold)).toBe(true);

  // Cleo: the same, but Ko-fi ends first (a month and the 7-day grace after her payment); Patreon keeps Gold.
  const cleo = e.discord.addMember(e.guildId, { username: 'cleo' }).userId;
  const cleoPatron = activePatron(e, 'Cleo', [e.tiers.gold]);
  await e.link(cleo, cleoPatron.id);
  await kofi.pay({ email: 'cleo@example.com', tierName: 'Coffee Club', discordUserId: cleo });
  await until(() => holds(cleo, coffeeRole), WAIT_MS, 'Cleo’s Ko-fi role');
  // Patreon charges her again in the meantime (a delivery): still Gold.
  e.clock.advance(30 * DAY);
  e.patreon.setMembership(cleoPatron.id, e.patreon.campaignId, {
    patronStatus: 'active_patron',
    tierIds: [e.tiers.gold],
    lastChargeDate: e.clock.now(),
    lastChargeStatus: 'Paid',
  });
  e.clock.advance(8 * DAY + MINUTE);
  // Ben's Ko-fi month and grace have ended too: Gold goes from Ben, and Coffee Club from both.
  await afterTheSweep(() => !holds(cleo, coffeeRole) && !holds(ben, coffeeRole) && !holds(ben, e.roles.gold), 'the Ko-fi ends');
  expect(holds(cleo, e.roles.gold)).toBe(true);
  const removed = async () =>
    (await e.tierlink.services.repos.ledger.recentAudit(e.guildId, ben)).filter((a) => a.roleId === e.roles.gold && a.action === 'remove');
  await until(async () => (await removed()).length > 0, WAIT_MS, 'the removal’s audit');
  const [removal] = await removed();
  // The check at the end of Ko-fi's grace removed it (the pledge had ended before).
  expect(removal).toMatchObject({ action: 'remove', outcome: 'applied', trigger: 'grace' });
  const [coffee] = (await e.tierlink.services.repos.ledger.recentAudit(e.guildId, ben)).filter((a) => a.roleId === coffeeRole);
  expect(coffee!.reason).toMatch(/Ko-fi subscription \(Coffee Club.*ended on/);
});

test('a month and the grace after the last payment the role goes by itself; a renewal before then keeps it', async () => {
  const dan = e.discord.addMember(e.guildId, { username: 'dan' }).userId;
  await kofi.pay({ email: 'dan@example.com', tierName: 'Coffee Club', discordUserId: dan });
  await until(() => holds(dan, coffeeRole), WAIT_MS, 'Dan’s Ko-fi role');
  // The next month's payment, before the first month and its grace end: the role stays past the old end.
  const first = e.clock.now();
  e.clock.advance(30 * DAY);
  const renewal = e.clock.now();
  await kofi.pay({ email: 'dan@example.com', tierName: 'Coffee Club', discordUserId: dan });
  await settle();
  e.clock.set(new Date(oneMonthAfter(first).getTime() + 7 * DAY + MINUTE));
  await settle();
  expect(holds(dan, coffeeRole)).toBe(true);
  // No payment after that: a month and 7 days after the last, the role goes within a minute.
  e.clock.set(new Date(oneMonthAfter(renewal).getTime() + 7 * DAY - MINUTE));
  await settle();
  expect(holds(dan, coffeeRole)).toBe(true);
  e.clock.advance(MINUTE);
  await afterTheSweep(() => !holds(dan, coffeeRole), 'the end of Dan’s subscription');
  await until(
    async () => (await e.tierlink.services.repos.ledger.recentAudit(e.guildId, dan))[0]?.action === 'remove',
    WAIT_MS,
    'the audit',
  );
  const [removal] = await e.tierlink.services.repos.ledger.recentAudit(e.guildId, dan);
  expect(removal).toMatchObject({ roleId: coffeeRole, action: 'remove', trigger: 'grace' });
});

test('a payment without a Discord account is kept unlinked, then linked by the code /link gives for Ko-fi', async () => {
  const eve = e.discord.addMember(e.guildId, { username: 'eve' }).userId;
  await kofi.pay({ email: 'eve@example.com', tierName: 'Coffee Club', fromName: 'Eve' });
  await settle();
  expect(holds(eve, coffeeRole)).toBe(false);
  const unlinked = await e.tierlink.services.kofi!.unlinkedSince(new Date(0), 50);
  expect(unlinked.map((u) => u.email)).toContain('eve@example.com');

  const reply = await runCommand(e, { userId: eve, name: 'link', options: [{ name: 'source', type: 3, value: 'kofi' }] }).reply();
  const code = /\*\*(TL-[A-Z0-9]{10})\*\*/.exec(reply.content)?.[1];
  expect(code).toBeDefined();
  // Someone else's payment naming no code changes nothing; Eve's next payment with the code links her.
  await kofi.pay({ type: 'Donation', email: 'eve@example.com', amount: '1.00', message: `Here you go! ${code!.toLowerCase()}` });
  await until(() => holds(eve, coffeeRole), WAIT_MS, 'Eve’s role after the code');
  expect(await e.tierlink.services.repos.links.byDiscordUser(eve, 'kofi')).toMatchObject({ externalId: 'eve@example.com' });
  expect((await e.tierlink.services.kofi!.unlinkedSince(new Date(0), 50)).map((u) => u.email)).not.toContain('eve@example.com');
  // The code works once: a second payment with it from another supporter links nobody.
  await kofi.pay({ type: 'Donation', email: 'mallory@example.com', amount: '1.00', message: code! });
  await settle();
  expect(await e.tierlink.services.repos.links.byExternal('kofi', 'mallory@example.com')).toBeNull();
});

test('a supporter who is not in the server yet gets the role when they join', async () => {
  const fay = '100000000000000777';
  await kofi.pay({ email: 'fay@example.com', tierName: 'Coffee Club', discordUserId: fay });
  await settle();
  expect(await e.tierlink.services.repos.links.byDiscordUser(fay, 'kofi')).not.toBeNull();
  e.discord.addMember(e.guildId, { userId: fay, username: 'fay' });
  await until(() => holds(fay, coffeeRole), WAIT_MS, 'Fay’s role on joining');
});

test('a donation grants nothing, unless the server’s donation setting says so: then for its days, in that server', async () => {
  const tipper = e.discord.createRole(e.guildId, { name: 'Tipper', position: 1 }).id;
  await mapping('kofi:*donation', tipper);
  const gus = e.discord.addMember(e.guildId, { username: 'gus' }).userId;
  await kofi.pay({ type: 'Donation', email: 'gus@example.com', amount: '5.00', discordUserId: gus });
  await settle();
  expect(holds(gus, tipper)).toBe(false);

  const set = (value: string) =>
    runCommand(e, {
      userId: e.ownerId,
      name: 'settings',
      options: [{ name: 'kofi_donation', type: 3, value }],
      memberPermissions: MANAGE_ROLES,
    }).reply();
  expect((await set('soon')).content).toMatch(/^Nothing was changed: write the Ko-fi donation setting/);
  expect((await set('3 for 10 days')).content).toMatch(
    /Ko-fi donations\*\* of 3\.00 or more now count as the tier \*\*a Ko-fi donation\*\* for 10 days/,
  );
  await until(() => holds(gus, tipper), WAIT_MS, 'Gus’s donation role');
  // Too small a donation grants nothing.
  const hal = e.discord.addMember(e.guildId, { username: 'hal' }).userId;
  await kofi.pay({ type: 'Donation', email: 'hal@example.com', amount: '1.00', discordUserId: hal });
  await settle();
  expect(holds(hal, tipper)).toBe(false);
  // Ten days after the donation, the role goes by itself.
  e.clock.advance(10 * DAY + MINUTE);
  await afterTheSweep(() => !holds(gus, tipper), 'the end of Gus’s donation');
});

test('a new Ko-fi supporter is welcomed once, naming Ko-fi; only a linked member in the server who paid publicly is named', async () => {
  const { channelId: welcomes, reply: set } = await settingsChannel(
    e,
    'announce_patrons_channel',
    'new-supporters',
    Permission.ViewChannel | Permission.SendMessages,
  );
  expect(set.content).toMatch(/Settings saved/);
  e.clock.advance(MINUTE);
  await kofi.pay({ email: 'quiet@example.com', fromName: 'Quiet Person', tierName: 'Coffee Club', isPublic: false });
  const ivy = e.discord.addMember(e.guildId, { username: 'ivy' }).userId;
  await kofi.pay({ email: 'ivy@example.com', fromName: 'Ivy', tierName: 'Coffee Club', discordUserId: ivy, isPublic: true });
  await e.discord.waitForMessage(welcomes, { timeoutMs: 15_000 });
  await e.tierlink.services.channels.round();
  // Both welcomes come (the channel's posts are paced); then nothing more.
  await until(() => e.discord.messages(welcomes).length >= 2, 15_000, 'both welcomes');
  await settle();
  const posted = e.discord.messages(welcomes).map((m) => m.content);
  expect(posted.sort()).toEqual(
    [
      `🎉 Welcome <@${ivy}>, our newest supporter on Ko-fi (Coffee Club)! Thank you for your support.`,
      '🎉 Welcome to our newest supporter on Ko-fi (Coffee Club)! Thank you for your support.',
    ].sort(),
  );
  expect(posted.join('\n')).not.toContain('Quiet');
});
