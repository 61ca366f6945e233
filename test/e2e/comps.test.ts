import { HOUR, MINUTE } from '../../src/shared/clock';
import { type E2E, dueWorkDone, startE2E } from '../support/e2e';
import { eventually } from '../support/eventually';
import { MANAGE_ROLES, activePatron, runCommand, stringOption, userOption } from '../support/e2e-admin';

/**
 * Comps through `/comp`, against the stand-ins: a tier given for a while whatever the membership
 * says, granted at once, kept through a pledge's end, ended by itself within a minute of its end,
 * and given only by someone who could grant the tier's roles themselves.
 */
let e: E2E;

const comp = (subcommand: 'grant' | 'revoke' | 'list', options: Array<Record<string, unknown>>, userId?: string) =>
  runCommand(e, { userId: userId ?? e.ownerId, name: 'comp', subcommand, options, memberPermissions: MANAGE_ROLES }).reply();
const untilIn = (ms: number) => new Date(e.clock.now().getTime() + ms).toISOString();
const holds = (userId: string, roleId: string) => e.discord.memberRoles(e.guildId, userId).includes(roleId);

/** Runs the durable queue's sweep a few times (jobs due at the manual clock's time start on the next sweep). */
async function afterTheSweep(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('the scheduled check never ran');
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  e = await startE2E({ connected: true });
}, 60_000);
afterAll(() => e?.stop());

test('a comp gives its tier’s role at once to someone who is no patron, says until when, and is listed', async () => {
  const ada = e.discord.addMember(e.guildId, { username: 'ada' }).userId;
  const reply = await comp('grant', [
    userOption('member', ada),
    stringOption('tier', 'Gold'),
    stringOption('until', '2026-12-31'),
    stringOption('reason', 'moderator'),
  ]);
  expect(reply.content).toMatch(/has \*\*Gold\*\* \(\*\*Gold\*\*\) as a comp until \*\*2027-01-01 00:00 UTC\*\*/);
  expect(reply.content).toMatch(/Roles: 1 given/);
  expect(holds(ada, e.roles.gold)).toBe(true);

  const list = await comp('list', []);
  expect(list.content).toContain(`<@${ada}>: **Gold** until 2027-01-01 00:00 UTC, given by <@${e.ownerId}>: moderator`);
  const status = await runCommand(e, { userId: ada, name: 'status' }).reply();
  expect(status.content).toMatch(/comp: moderator/);

  const audit = await e.tierlink.services.repos.ledger.recentAudit(e.guildId, ada);
  expect(audit[0]).toMatchObject({ roleId: e.roles.gold, action: 'add', outcome: 'applied', trigger: 'comp' });
  expect(audit[0]!.reason).toMatch(/Gold tier \(comp: moderator, until 2027-01-01\)/);
});

test('a role both a pledge and a comp justify survives the end of the pledge, and goes when the comp is revoked', async () => {
  const ben = e.discord.addMember(e.guildId, { username: 'ben' }).userId;
  const patron = activePatron(e, 'Ben', [e.tiers.silver]);
  await e.link(ben, patron.id);
  expect(holds(ben, e.roles.silver)).toBe(true);
  await comp('grant', [
    userOption('member', ben),
    stringOption('tier', 'Silver'),
    stringOption('until', untilIn(30 * 24 * HOUR)),
    stringOption('reason', 'artist'),
  ]);

  e.patreon.setMembership(patron.id, e.patreon.campaignId, { patronStatus: 'former_patron', tierIds: [] });
  // The webhook's re-read arrives: the pledge no longer justifies Silver, the comp still does.
  await dueWorkDone(e);
  const snapshot = await e.tierlink.services.repos.snapshots.forExternalUser('patreon', patron.id);
  expect(snapshot[0]?.patronStatus).toBe('former_patron');
  expect(holds(ben, e.roles.silver)).toBe(true);

  const revoked = await comp('revoke', [userOption('member', ben), stringOption('tier', 'Silver')]);
  expect(revoked.content).toMatch(/comp of \*\*Silver\*\* for <@\d+> has ended/);
  expect(revoked.content).toMatch(/1 taken away/);
  expect(holds(ben, e.roles.silver)).toBe(false);
});

test('a comp ends by itself within a minute of its end; a renewal before then keeps the role', async () => {
  const cy = e.discord.addMember(e.guildId, { username: 'cy' }).userId;
  await comp('grant', [
    userOption('member', cy),
    stringOption('tier', 'Bronze'),
    stringOption('until', untilIn(2 * HOUR)),
    stringOption('reason', 'giveaway'),
  ]);
  expect(holds(cy, e.roles.bronze)).toBe(true);

  e.clock.advance(HOUR);
  // Renewed before its end: the end moves, and the check at the old end finds nothing to do.
  await comp('grant', [
    userOption('member', cy),
    stringOption('tier', 'Bronze'),
    stringOption('until', untilIn(3 * HOUR)),
    stringOption('reason', 'giveaway, extended'),
  ]);
  e.clock.advance(HOUR + MINUTE);
  await dueWorkDone(e);
  expect(holds(cy, e.roles.bronze)).toBe(true);

  e.clock.advance(2 * HOUR);
  await afterTheSweep(() => !holds(cy, e.roles.bronze));
  // The role leaves Discord before its audit row is written: wait for the row.
  let removal: Awaited<ReturnType<typeof e.tierlink.services.repos.ledger.recentAudit>>[number] | undefined;
  await eventually('the removal audited', async () => {
    [removal] = await e.tierlink.services.repos.ledger.recentAudit(e.guildId, cy);
    return removal?.action === 'remove';
  });
  expect(removal).toMatchObject({ action: 'remove', outcome: 'applied', trigger: 'grace' });
  expect(removal!.reason).toMatch(/comp: giveaway, extended, ended on/);
});

test('only someone who could grant the tier’s roles themselves gives or ends a comp', async () => {
  const dan = e.discord.addMember(e.guildId, { username: 'dan' }).userId;
  // A moderator whose highest role is below Gold.
  const mod = e.discord.addMember(e.guildId, { username: 'mod' }).userId;
  const modRole = e.discord.createRole(e.guildId, { name: 'Mods', position: 1, permissions: MANAGE_ROLES }).id;
  e.discord.setMemberRolesByHand(e.guildId, mod, [modRole]);
  const refused = await comp(
    'grant',
    [userOption('member', dan), stringOption('tier', 'Gold'), stringOption('until', '2026-12-31'), stringOption('reason', 'friend')],
    mod,
  );
  expect(refused.content).toMatch(/^No comp was given: /);
  expect(holds(dan, e.roles.gold)).toBe(false);
  expect(await e.tierlink.services.repos.comps.inForce(e.guildId, e.clock.now(), dan)).toEqual([]);
});

test('a date in the past, or no date, is refused with what to write', async () => {
  const eve = e.discord.addMember(e.guildId, { username: 'eve' }).userId;
  const past = await comp('grant', [
    userOption('member', eve),
    stringOption('tier', 'Gold'),
    stringOption('until', '2020-01-01'),
    stringOption('reason', 'x'),
  ]);
  expect(past.content).toBe('No comp was given: That date has passed: a comp must end in the future.');
  const nonsense = await comp('grant', [
    userOption('member', eve),
    stringOption('tier', 'Gold'),
    stringOption('until', 'next week'),
    stringOption('reason', 'x'),
  ]);
  expect(nonsense.content).toMatch(/is not a date: write it as 2026-12-31/);
  // In the member's language, from the refusal's facts.
  const german = await runCommand(e, {
    userId: e.ownerId,
    name: 'comp',
    subcommand: 'grant',
    options: [userOption('member', eve), stringOption('tier', 'Gold'), stringOption('until', 'nächste Woche'), stringOption('reason', 'x')],
    memberPermissions: MANAGE_ROLES,
    locale: 'de',
  }).reply();
  expect(german.content).toBe(
    'Es wurde keine Freistufe vergeben: „nächste Woche“ ist kein Datum: schreib es als 2026-12-31, oder 2026-12-31T18:00Z mit Uhrzeit.',
  );
});
