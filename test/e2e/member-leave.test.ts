import { type DashboardBrowser, signIn } from '../support/dashboard-client';
import { type E2E, startE2E } from '../support/e2e';
import { activePatron } from '../support/e2e-admin';

/**
 * A member who leaves the server (GUILD_MEMBER_REMOVE, as Discord sends it for a leave, a kick or
 * a ban) is "not in the server" on the creator's Members page within a second, not at the next
 * nightly sync; a rejoin brings them back, roles and all; and a leave while the full sync is
 * reading the members is not undone by what that listing read before the leave. Through the real
 * discord.js client against the Discord stand-in, on a real database, read through the dashboard's
 * own CSV of the Members page.
 */

let e: E2E;
let owner: DashboardBrowser;
beforeAll(async () => {
  e = await startE2E({ connected: true });
  owner = (await signIn(e, e.ownerId)).browser;
}, 60_000);
afterAll(() => e?.stop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The Members page's CSV of `filter`, as the creator downloads it: each line by its Discord user id. */
async function membersCsv(filter: string): Promise<Map<string, Record<string, string>>> {
  const answer = await owner.get(`/dashboard/${e.guildId}/members.csv?filter=${filter}`);
  expect(answer.status).toBe(200);
  const [header, ...lines] = answer.html
    .replace(/^\uFEFF/, '')
    .split('\r\n')
    .filter(Boolean);
  const names = header!.split(',');
  const rows = lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [names[i]!, v])));
  return new Map(rows.filter((r) => r['discord user id']).map((r) => [r['discord user id']!, r]));
}

/** Whether the Members page's data says `userId` is in the server ('yes'/'no'), and whether "not in the server" lists them. */
async function standing(userId: string): Promise<{ inServer: string | undefined; listedAway: boolean }> {
  const all = await membersCsv('all');
  const away = await membersCsv('not-in-server');
  return { inServer: all.get(userId)?.['in the server'], listedAway: away.has(userId) };
}

/**
 * Polls `check` for at most `withinMs` of real time; answers how long it took to hold, counted to
 * the start of the check that saw it (the state was there then: the check's own export of the
 * Members page is not the latency being measured).
 */
async function within(withinMs: number, what: string, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  for (;;) {
    const asked = Date.now();
    if (asked - started > withinMs) throw new Error(`${what}: not within ${withinMs} ms`);
    if (await check()) return asked - started;
    await sleep(25);
  }
}

const count = async (filter: 'not-in-server' | 'linked') => {
  await e.tierlink.services.dashboard.memberList.refresh(e.guildId);
  return (await e.tierlink.services.dashboard.memberList.counts(e.guildId))[filter];
};

test('a linked patron who leaves is "not in the server" on the Members page within a second; a rejoin brings them back with their roles', async () => {
  const lena = activePatron(e, 'Lena Leaves', [e.tiers.gold]);
  const userId = e.discord.addMember(e.guildId, { username: 'lena' }).userId;
  await e.link(userId, lena.id);
  expect(e.discord.memberRoles(e.guildId, userId)).toEqual([e.roles.gold]);
  expect(await standing(userId)).toEqual({ inServer: 'yes', listedAway: false });
  const awayBefore = await count('not-in-server');

  e.discord.removeMember(e.guildId, userId);

  const took = await within(1_000, 'the leave on the Members page', async () => (await standing(userId)).listedAway);
  expect(took).toBeLessThan(1_000);
  expect(await standing(userId)).toEqual({ inServer: 'no', listedAway: true });
  expect(await count('not-in-server')).toBe(awayBefore + 1);
  // Still linked and a patron: only where they are changed.
  expect((await membersCsv('linked')).has(userId)).toBe(true);

  e.discord.addMember(e.guildId, { userId, username: 'lena' });

  await e.discord.waitForMemberRole(e.guildId, userId, e.roles.gold, { present: true, timeoutMs: 5_000 });
  await within(1_000, 'the rejoin on the Members page', async () => (await standing(userId)).inServer === 'yes');
  expect(await standing(userId)).toEqual({ inServer: 'yes', listedAway: false });
  expect(await count('not-in-server')).toBe(awayBefore);
});

test('a ban takes the member out of the server on the Members page too (Discord sends the same leave)', async () => {
  const bo = activePatron(e, 'Bo Banned', [e.tiers.silver]);
  const userId = e.discord.addMember(e.guildId, { username: 'bo' }).userId;
  await e.link(userId, bo.id);
  expect(await standing(userId)).toEqual({ inServer: 'yes', listedAway: false });

  e.discord.banUser(e.guildId, userId, { reason: 'spam' });

  await within(1_000, 'the ban on the Members page', async () => (await standing(userId)).listedAway);
});

test('a leave while the full sync is reading the members stays: the listing read before the leave does not put them back', async () => {
  const noor = activePatron(e, 'Noor Midsync', [e.tiers.bronze]);
  const userId = e.discord.addMember(e.guildId, { username: 'noor' }).userId;
  await e.link(userId, noor.id);
  expect(await standing(userId)).toEqual({ inServer: 'yes', listedAway: false });

  // Discord answers the sync's first page of members (Noor in it), and the answer is held on its way.
  const hold = e.discord.holdRequests({ method: 'GET', route: '/guilds/:g/members', point: 'after' });
  const sync = e.tierlink.services.runSync({ guildId: e.guildId, dryRun: false, force: false, trigger: 'manual' });
  await hold.waitForHeld(1, 10_000);
  e.clock.advance(1_000);
  e.discord.removeMember(e.guildId, userId);
  await within(1_000, 'the leave on the Members page', async () => (await standing(userId)).listedAway);
  hold.release();
  const outcome = await sync;

  expect(outcome).toMatchObject({ guilds: [expect.objectContaining({ guildId: e.guildId })] });
  expect(await standing(userId)).toEqual({ inServer: 'no', listedAway: true });
  // The next sync agrees (its listing began after the leave).
  e.clock.advance(1_000);
  await e.tierlink.services.runSync({ guildId: e.guildId, dryRun: false, force: false, trigger: 'manual' });
  expect(await standing(userId)).toEqual({ inServer: 'no', listedAway: true });
});
