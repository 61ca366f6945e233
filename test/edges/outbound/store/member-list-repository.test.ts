import { sql } from 'drizzle-orm';
import { queryRows } from '../../../../src/edges/outbound/store/database';
import {
  DEPARTURE_KEPT_MS,
  MEMBER_FILTER_KEYS,
  createMemberListRepository,
} from '../../../../src/edges/outbound/store/repositories/member-list-repository';
import { expectedCounts, seedMembers } from '../../../support/member-seed';
import { type TestDatabase, createTestDatabase } from '../../../support/test-database';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.close());
beforeEach(() => t.reset());

const NOW = new Date('2026-11-20T12:00:00Z');
const G = '100000000000000001';
const C = 'campaign-1';
const scope = { guildId: G, now: NOW, graceDays: 7 };

const build = async (repo: ReturnType<typeof createMemberListRepository>) => repo.rebuild(G, NOW, await repo.version(G));

async function bind(): Promise<void> {
  await t.database.db.execute(sql`insert into guilds (id, name) values (${G}, 'Fan Club')`);
  await t.database.db.execute(sql`insert into guild_campaigns (guild_id, campaign_id) values (${G}, ${C})`);
}

describe('the Members list', () => {
  test('counts each filter from the data of the moment, and each page of a filter holds only its people', async () => {
    await bind();
    await seedMembers(t.database.db, { guildId: G, campaignId: C, tierIds: ['t1', 't2'], count: 3_000, now: NOW, graceDays: 7 });
    const repo = createMemberListRepository(t.database.db);
    await build(repo);
    const counts = await repo.counts(scope);
    expect(counts).toEqual(expectedCounts(3_000));
    // The not-linked: entitled (patrons and those in grace), no Discord account.
    const notLinked = await repo.page(scope, 'not-linked', 'name', 0, 10_000);
    expect(notLinked).toHaveLength(counts['not-linked']);
    expect(notLinked.every((m) => m.discordUserId === null && (m.standing === 'patron' || m.standing === 'grace'))).toBe(true);
    const away = await repo.page(scope, 'not-in-server', 'name', 0, 10_000);
    expect(away.every((m) => m.discordUserId !== null && !m.inServer)).toBe(true);
    // A grace period of 0 days moves those declined a day ago out of grace (counted from the data, not stored).
    const noGrace = await repo.counts({ ...scope, graceDays: 0 });
    expect(noGrace.grace).toBe(0);
    expect(noGrace.former).toBe(counts.former + counts.grace);
    for (const f of MEMBER_FILTER_KEYS) expect(typeof counts[f]).toBe('number');
  });

  test('pages never overlap or skip, in every order', async () => {
    await bind();
    await seedMembers(t.database.db, { guildId: G, campaignId: C, tierIds: ['t1'], count: 230, now: NOW, graceDays: 7 });
    const repo = createMemberListRepository(t.database.db);
    await build(repo);
    for (const sort of ['name', 'since', 'amount', 'standing'] as const) {
      const seen: string[] = [];
      for (let offset = 0; offset < 300; offset += 50) {
        const rows = await repo.page(scope, 'all', sort, offset, 50);
        seen.push(...rows.map((r) => `${r.source}/${r.memberId ?? r.discordUserId}`));
      }
      expect(new Set(seen).size).toBe(230);
      expect(seen).toHaveLength(230);
    }
    const bySince = await repo.page(scope, 'patrons', 'since', 0, 20);
    const times = bySince.map((r) => r.since!.getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  test('a complete listing forgets who it did not see: a linked patron who left is "not in the server"', async () => {
    await bind();
    const repo = createMemberListRepository(t.database.db);
    await seedMembers(t.database.db, { guildId: G, campaignId: C, tierIds: ['t1'], count: 10, now: NOW, graceDays: 7 });
    // Person 1 (linked, in the server) and 4 (linked, in the server) seen again later; 7 not.
    const later = new Date(NOW.getTime() + 60_000);
    const id = (i: number) => `4${String(i).padStart(17, '0')}`;
    await repo.seen(
      G,
      [
        { userId: id(1), name: 'one' },
        { userId: id(4), name: 'four' },
      ],
      NOW,
      'listing-2',
    );
    // Everyone else the presence held before the listing began, and not seen by it, has left.
    const held = [];
    for await (const chunk of repo.presence(G)) held.push(...chunk);
    const unseen = held.map((r) => r.userId).filter((u) => u !== id(1) && u !== id(4));
    expect(unseen).toContain(id(7));
    expect(await repo.forget(G, unseen, later)).toBe(unseen.length);
    await build(repo);
    const rows = await repo.page(scope, 'all', 'name', 0, 100);
    const byUser = new Map(rows.filter((r) => r.discordUserId).map((r) => [r.discordUserId!, r]));
    expect(byUser.get(id(1))).toMatchObject({ inServer: true, displayName: 'one' });
    expect(byUser.get(id(7))).toMatchObject({ inServer: false });
    // A member no source knows (a role Tierlink granted, say) is listed once, as in the server.
    const before = await repo.version(G);
    await repo.seen(G, [{ userId: '500000000000000001', name: 'helper' }], later, 'listing-2');
    expect(await repo.version(G)).not.toBe(before);
    await build(repo);
    const all = await repo.page(scope, 'all', 'name', 0, 100);
    expect(all.filter((r) => r.discordUserId === '500000000000000001')).toEqual([
      expect.objectContaining({ source: 'discord', standing: 'none', inServer: true, displayName: 'helper' }),
    ]);
  });

  test('a leave: out of the server at once; a listing that began before it does not write them back, a later one or a rejoin does', async () => {
    await bind();
    const repo = createMemberListRepository(t.database.db);
    await seedMembers(t.database.db, { guildId: G, campaignId: C, tierIds: ['t1'], count: 10, now: NOW, graceDays: 7 });
    const id = (i: number) => `4${String(i).padStart(17, '0')}`;
    const inServer = async (userId: string) => {
      await build(repo);
      const rows = await repo.page(scope, 'all', 'name', 0, 100);
      return rows.find((r) => r.discordUserId === userId)?.inServer;
    };
    expect(await inServer(id(1))).toBe(true);
    const built = await repo.version(G);

    const listingStart = NOW;
    const leftAt = new Date(NOW.getTime() + 5_000);
    expect(await repo.left(G, id(1), leftAt)).toBe(true);
    // The list's data changed (a deleted row alone would not move the newest sighting).
    expect(await repo.version(G)).not.toBe(built);
    expect(await inServer(id(1))).toBe(false);

    // The listing that began before the leave read its page before it: its write is refused.
    await repo.seen(G, [{ userId: id(1), name: 'one' }], listingStart, 'listing-1');
    expect(await inServer(id(1))).toBe(false);
    // At the very instant of the leave too (the listing may have read the page before it).
    await repo.seen(G, [{ userId: id(1), name: 'one' }], leftAt, 'listing-1');
    expect(await inServer(id(1))).toBe(false);
    // A listing that began after the leave saw them in the server again.
    await repo.seen(G, [{ userId: id(1), name: 'one' }], new Date(leftAt.getTime() + 1), 'listing-2');
    expect(await inServer(id(1))).toBe(true);

    // A rejoin reconciled ends the departure at once, even under the listing that began before it.
    expect(await repo.left(G, id(4), leftAt)).toBe(true);
    expect(await inServer(id(4))).toBe(false);
    await repo.present(G, id(4), null, leftAt, true);
    expect(await inServer(id(4))).toBe(true);
    await repo.seen(G, [{ userId: id(4), name: 'four' }], listingStart, 'listing-1');
    expect(await inServer(id(4))).toBe(true);

    // A reconcile that finds a member gone is a leave too.
    await repo.present(G, id(7), null, leftAt, false);
    expect(await inServer(id(7))).toBe(false);
    await repo.seen(G, [{ userId: id(7), name: 'seven' }], listingStart, 'listing-1');
    expect(await inServer(id(7))).toBe(false);

    // A leave of someone the presence does not hold (a stranger, or a patron already out) changes nothing on the page.
    await build(repo);
    const quiet = await repo.version(G);
    expect(await repo.left(G, '500000000000000009', leftAt)).toBe(true);
    expect(await repo.left(G, id(7), new Date(leftAt.getTime() + 1_000))).toBe(true);
    expect(await repo.version(G)).toBe(quiet);

    // Departures are kept a day: the next leave after that forgets the older ones.
    const departures = async () =>
      (await queryRows<{ u: string }>(t.database.db, sql`select discord_user_id as u from guild_departures order by 1`)).map((r) => r.u);
    expect(await departures()).toEqual([id(1), id(7), '500000000000000009']);
    await repo.left(G, id(2), new Date(leftAt.getTime() + 2_000 + DEPARTURE_KEPT_MS));
    expect(await departures()).toEqual([id(2)]);
  });
});
