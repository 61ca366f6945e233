import { createDurableQueue } from '../../../../src/edges/outbound/store/durable-queue';
import { createGuildRepository } from '../../../../src/edges/outbound/store/repositories/guild-repository';
import { DEFAULT_SETTINGS } from '../../../../src/core/planner/settings';
import { createLinkRepository } from '../../../../src/edges/outbound/store/repositories/link-repository';
import { storedRead } from '../../../../src/edges/outbound/patreon/patreon-source';
import { type SnapshotInput, createSnapshotRepository } from '../../../../src/edges/outbound/store/repositories/snapshot-repository';
import { webhookInbox } from '../../../../src/edges/outbound/store/schema';
import { type TestDatabase, createTestDatabase } from '../../../support/test-database';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.close());
beforeEach(() => t.reset());

const T0 = new Date('2026-11-01T00:00:00Z');
const later = (days: number) => new Date(T0.getTime() + days * 86_400_000);

describe('member snapshots', () => {
  const base: SnapshotInput = {
    campaignId: 'c1',
    memberId: 'm1',
    externalUserId: 'p1',
    patronStatus: 'active_patron',
    isFollower: false,
    lastChargeDate: T0,
    lastChargeStatus: 'Paid',
    entitledTierIds: ['gold'],
    pledgeRelationshipStart: T0,
    entitledAmountCents: 1000,
    source: 'patreon',
    readBy: 'webhook',
  };

  test('a decline keeps the tiers last seen while active and the first declined charge of the pledge, through its retries', async () => {
    const repo = createSnapshotRepository(t.database.db);
    const declined = { ...base, patronStatus: 'declined_patron' as const, lastChargeStatus: 'Declined', entitledTierIds: [] };
    await repo.upsert(base, T0);
    await repo.upsert({ ...declined, lastChargeDate: later(1) }, later(1));
    // Patreon retries the charge on days 3 and 6: last_charge_date moves, the first decline does not.
    await repo.upsert({ ...declined, lastChargeDate: later(3) }, later(3));
    const again = await repo.upsert({ ...declined, lastChargeDate: later(6) }, later(6));
    expect(storedRead(again)).toMatchObject({
      patronStatus: 'declined_patron',
      lastChargeDate: later(6),
      entitledTierIds: [],
      lastActiveTierIds: ['gold'],
      firstDeclinedAt: later(1),
    });
    const active = await repo.upsert({ ...base, lastChargeDate: later(7), entitledTierIds: ['silver'] }, later(7));
    expect(active).toMatchObject({ lastActiveTierIds: ['silver'], firstDeclinedAt: null });
    // A new pledge that is declined counts afresh.
    const renewed = await repo.upsert({ ...declined, lastChargeDate: later(40), pledgeRelationshipStart: later(30) }, later(40));
    expect(renewed.firstDeclinedAt).toEqual(later(40));
  });

  test.each([
    // [step, change, last active tiers after, first decline kept after (T0: the charge date every step carries)]
    [0, {}, ['gold'], null],
    [1, { patronStatus: 'declined_patron', lastChargeStatus: 'Declined', entitledTierIds: [] }, ['gold'], T0],
    [2, { patronStatus: 'declined_patron', lastChargeStatus: 'Declined', entitledTierIds: [], lastChargeDate: null }, ['gold'], T0],
    [3, { entitledTierIds: ['silver', 'gold'] }, ['silver', 'gold'], null],
    [4, { patronStatus: 'former_patron', entitledTierIds: [], lastChargeStatus: 'Refunded' }, ['silver', 'gold'], null],
    [5, { patronStatus: null, isFollower: true, externalUserId: null }, ['silver', 'gold'], null],
    [6, { patronStatus: 'declined_patron', entitledTierIds: ['bronze'], lastChargeStatus: 'Declined' }, ['silver', 'gold'], T0],
  ] as Array<[number, Partial<SnapshotInput>, string[], Date | null]>)(
    'a batch write through status step %i keeps our merged values right',
    async (step, change, lastActive, firstDecline) => {
      const repo = createSnapshotRepository(t.database.db);
      const steps: Array<Partial<SnapshotInput>> = [
        {},
        { patronStatus: 'declined_patron', lastChargeStatus: 'Declined', entitledTierIds: [] },
        { patronStatus: 'declined_patron', lastChargeStatus: 'Declined', entitledTierIds: [], lastChargeDate: null },
        { entitledTierIds: ['silver', 'gold'] },
        { patronStatus: 'former_patron', entitledTierIds: [], lastChargeStatus: 'Refunded' },
        { patronStatus: null, isFollower: true, externalUserId: null },
        { patronStatus: 'declined_patron', entitledTierIds: ['bronze'], lastChargeStatus: 'Declined' },
      ];
      for (let i = 0; i < step; i++) await repo.upsertMany([{ ...base, ...steps[i] }], later(i));
      await repo.upsertMany([{ ...base, ...change }], later(step));
      const row = await repo.get('patreon', 'c1', 'm1');
      expect(row?.lastActiveTierIds).toEqual(lastActive);
      expect(row?.firstDeclinedAt).toEqual(firstDecline);
      expect(row?.patronStatus).toBe(change.patronStatus === undefined ? 'active_patron' : change.patronStatus);
    },
  );

  test('a member first seen declined keeps the tiers listed then; without a charge date the decline counts from when it was seen', async () => {
    const repo = createSnapshotRepository(t.database.db);
    const declined = { ...base, patronStatus: 'declined_patron' as const, lastChargeStatus: 'Declined', lastChargeDate: null };
    await repo.upsertMany([declined], T0);
    await repo.upsertMany([{ ...declined, entitledTierIds: [] }], later(1));
    expect(await repo.get('patreon', 'c1', 'm1')).toMatchObject({ lastActiveTierIds: ['gold'], firstDeclinedAt: T0 });
  });

  test('the kinds of member are kept (free trial, gift), and a status of a later release reads as Other', async () => {
    const repo = createSnapshotRepository(t.database.db);
    const row = await repo.upsert({ ...base, isFreeTrial: true, isGifted: true, lastChargeStatus: 'Free Trial' }, T0);
    expect(storedRead(row)).toMatchObject({ isFreeTrial: true, isGifted: true, lastChargeStatus: 'Free Trial' });
    const odd = await repo.upsert({ ...base, lastChargeStatus: 'Paused by Patreon' }, later(1));
    expect(storedRead(odd)).toMatchObject({ isFreeTrial: false, isGifted: false, lastChargeStatus: 'Other' });
  });

  test('an unreadable read keeps the last readable state under a mark, is reported once, and a readable read clears it', async () => {
    const repo = createSnapshotRepository(t.database.db);
    await repo.upsert(base, T0);
    const odd = {
      campaignId: 'c1',
      memberId: 'm1',
      externalUserId: 'p1',
      attribute: 'patron_status',
      reason: 'is "paused_patron"',
      source: 'patreon',
      readBy: 'sync' as const,
    };
    const fresh = { ...odd, memberId: 'm2', externalUserId: null };
    expect(await repo.markUnreadable([odd, fresh], later(1))).toEqual([odd, fresh]);
    // The same again: nothing new to report; another attribute: reported.
    expect(await repo.markUnreadable([odd, fresh], later(2))).toEqual([]);
    const other = { ...fresh, attribute: 'last_charge_status', reason: 'is "Paused"' };
    expect(await repo.markUnreadable([other], later(3))).toEqual([other]);

    const kept = (await repo.get('patreon', 'c1', 'm1'))!;
    expect(kept).toMatchObject({ patronStatus: 'active_patron', entitledTierIds: ['gold'], fetchedAt: later(2) });
    expect(storedRead(kept).unreadable).toEqual({ attribute: 'patron_status', reason: 'is "paused_patron"' });
    expect(kept.unreadable?.since).toBe(later(1).toISOString());
    expect(storedRead((await repo.get('patreon', 'c1', 'm2'))!)).toMatchObject({
      patronStatus: null,
      entitledTierIds: [],
      unreadable: { attribute: 'last_charge_status' },
    });

    expect(await repo.unreadable(['c1'])).toEqual({
      total: 2,
      members: [
        {
          source: 'patreon',
          campaignId: 'c1',
          memberId: 'm1',
          externalUserId: 'p1',
          mark: { attribute: 'patron_status', reason: 'is "paused_patron"', since: later(1).toISOString() },
        },
        {
          source: 'patreon',
          campaignId: 'c1',
          memberId: 'm2',
          externalUserId: null,
          mark: { attribute: 'last_charge_status', reason: 'is "Paused"', since: later(3).toISOString() },
        },
      ],
    });
    await repo.upsert(base, later(4));
    expect(storedRead((await repo.get('patreon', 'c1', 'm1'))!).unreadable).toBeUndefined();
    expect((await repo.unreadable(['c1'])).total).toBe(1);
  });

  test('a webhook payload (the re-read failed) is unconfirmed and never sets the tiers a decline keeps', async () => {
    const repo = createSnapshotRepository(t.database.db);
    await repo.upsert({ ...base, patronStatus: 'former_patron', entitledTierIds: [], lastChargeStatus: 'Paid' }, T0);
    const payload = await repo.upsert({ ...base, entitledTierIds: ['gold'], source: 'patreon', readBy: 'webhook-payload' }, later(1));
    expect(storedRead(payload)).toMatchObject({ unconfirmed: true, entitledTierIds: ['gold'], lastActiveTierIds: [] });
    // A read then says declined: the grace period keeps only what a read saw while active (nothing).
    const read = await repo.upsert(
      { ...base, patronStatus: 'declined_patron', lastChargeStatus: 'Declined', entitledTierIds: [] },
      later(2),
    );
    expect(storedRead(read)).toMatchObject({ lastActiveTierIds: [] });
    expect(storedRead(read).unconfirmed).toBeUndefined();
    const fresh = await repo.upsert({ ...base, memberId: 'm2', source: 'patreon', readBy: 'webhook-payload' }, later(3));
    expect(fresh.lastActiveTierIds).toEqual([]);
  });

  test('a read taken before the stored one does not overwrite it', async () => {
    const repo = createSnapshotRepository(t.database.db);
    await repo.upsert({ ...base, entitledTierIds: ['silver'] }, later(2));
    const kept = await repo.upsert({ ...base, entitledTierIds: ['gold'] }, later(1));
    expect(kept.entitledTierIds).toEqual(['silver']);
  });

  test('a batch upsert merges the same way, and reads give the newest row per campaign', async () => {
    const repo = createSnapshotRepository(t.database.db);
    await repo.upsertMany([base, { ...base, memberId: 'm2', externalUserId: 'p2', entitledTierIds: ['silver'] }], T0);
    await repo.upsertMany([{ ...base, patronStatus: 'declined_patron', entitledTierIds: [] }], later(1));
    // A renewed membership: a new member id for the same user in the same campaign.
    await repo.upsert({ ...base, memberId: 'm9', entitledTierIds: ['bronze'] }, later(2));
    const rows = await repo.forExternalUser('patreon', 'p1');
    expect(rows.map((r) => [r.memberId, r.entitledTierIds])).toEqual([['m9', ['bronze']]]);
    const both = await repo.forExternalUsers('patreon', ['p1', 'p2']);
    expect(both.get('p2')?.map((r) => r.memberId)).toEqual(['m2']);
    expect((await repo.get('patreon', 'c1', 'm1'))?.lastActiveTierIds).toEqual(['gold']);
  });

  test('the stored names of members, by campaign and member: only those asked for, of that source, with a name', async () => {
    const repo = createSnapshotRepository(t.database.db);
    await repo.upsertMany(
      [
        { ...base, fullName: 'Mira' },
        { ...base, memberId: 'm2', externalUserId: 'p2', fullName: 'Jonas' },
        { ...base, campaignId: 'c2', memberId: 'm2', externalUserId: 'p2', fullName: 'Jonas elsewhere' },
        { ...base, memberId: 'm3', externalUserId: 'p3', fullName: null },
        { ...base, source: 'kofi', memberId: 'm4', externalUserId: 'p4', fullName: 'Ko-fi Kim' },
      ],
      T0,
    );
    const names = await repo.namesOf('patreon', [
      { campaignId: 'c1', memberId: 'm1' },
      { campaignId: 'c1', memberId: 'm3' },
      { campaignId: 'c2', memberId: 'm2' },
      { campaignId: 'c1', memberId: 'm4' },
    ]);
    // c1:m2 was not asked for, though its campaign and its member id each were; m3 has no name; m4 is Ko-fi's.
    expect([...names.entries()].sort()).toEqual([
      ['c1:m1', 'Mira'],
      ['c2:m2', 'Jonas elsewhere'],
    ]);
    expect(await repo.namesOf('patreon', [])).toEqual(new Map());
  });
});

describe('links', () => {
  test('/link moves a service account from another Discord account and records why', async () => {
    const repo = createLinkRepository(t.database.db);
    await repo.linkOauth('patreon', 'd1', 'p1', T0);
    const outcome = await repo.linkOauth('patreon', 'd2', 'p1', later(1));
    expect(outcome.movedFrom).toBe('d1');
    expect(await repo.byDiscordUser('d1', 'patreon')).toBeNull();
    expect(await repo.byExternal('patreon', 'p1')).toMatchObject({ discordUserId: 'd2', source: 'patreon', method: 'oauth' });
    expect(await repo.lastEvent('d1')).toMatchObject({ kind: 'moved_away', detail: 'd2' });
  });

  test('a social link never overrides an existing link, and /link replaces a social one', async () => {
    const repo = createLinkRepository(t.database.db);
    await repo.linkOauth('patreon', 'd1', 'p1', T0);
    expect(await repo.linkSocial('patreon', 'd1', 'p2', T0)).toBe(false);
    expect(await repo.linkSocial('patreon', 'd9', 'p1', T0)).toBe(false);
    expect(await repo.linkSocial('patreon', 'd3', 'p3', T0)).toBe(true);
    const outcome = await repo.linkOauth('patreon', 'd4', 'p3', later(1));
    expect(outcome.movedFrom).toBe('d3');
    expect(await repo.count()).toBe(2);
  });

  test('accounts linking one service account at the same moment all succeed; one holds it, the others were moved away', async () => {
    const repo = createLinkRepository(t.database.db);
    const accounts = Array.from({ length: 8 }, (_, i) => `d${i}`);
    const results = await Promise.allSettled(accounts.map((d) => repo.linkOauth('patreon', d, 'p1', T0)));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(await repo.count()).toBe(1);
    const holder = (await repo.byExternal('patreon', 'p1'))!.discordUserId;
    for (const other of accounts.filter((d) => d !== holder)) expect((await repo.lastEvent(other))?.kind).toBe('moved_away');
  });

  test('a user who ran /unlink is not linked again from their profile until they /link', async () => {
    const repo = createLinkRepository(t.database.db);
    await repo.linkOauth('patreon', 'd1', 'p1', T0);
    await repo.unlink('d1', later(1));
    expect(await repo.linkSocial('patreon', 'd1', 'p1', later(2))).toBe(false);
    expect(
      await repo.linkSocialMany(
        'patreon',
        [
          { discordUserId: 'd1', externalId: 'p1' },
          { discordUserId: 'd2', externalId: 'p2' },
        ],
        later(2),
      ),
    ).toEqual([{ discordUserId: 'd2', externalId: 'p2' }]);
    await repo.linkOauth('patreon', 'd1', 'p1', later(3));
    await repo.unlink('d1', later(4));
    await repo.linkOauth('patreon', 'd1', 'p9', later(5));
    expect(await repo.unlinkedByChoice(['d1', 'd2'])).toEqual(new Set());
  });

  test('/link with another service account replaces this user’s previous one', async () => {
    const repo = createLinkRepository(t.database.db);
    await repo.linkOauth('patreon', 'd1', 'p1', T0);
    const outcome = await repo.linkOauth('patreon', 'd1', 'p2', later(1));
    expect(outcome).toMatchObject({ movedFrom: null, replacedExternalId: 'p1' });
    expect(await repo.byExternal('patreon', 'p1')).toBeNull();
  });
});

describe('durable queue', () => {
  test('a claimed row is invisible to other claims until its lease expires', async () => {
    const q = createDurableQueue(t.database.db, 'webhook_inbox');
    const [row] = await t.database.db.insert(webhookInbox).values({ body: '{}', runAt: T0 }).returning();
    const first = await q.claim({ limit: 10, lockMs: 60_000, now: T0 });
    expect(first.map((r) => r.id)).toEqual([row!.id]);
    expect(await q.claim({ limit: 10, lockMs: 60_000, now: later(0) })).toEqual([]);
    // The worker died: after the lease, the row is taken again, counting the attempt.
    const again = await q.claim({ limit: 10, lockMs: 60_000, now: new Date(T0.getTime() + 61_000) });
    expect(again).toMatchObject([{ id: row!.id, attempts: 2 }]);
    await q.complete(row!.id, again[0]!.attempts, T0);
    expect(await q.claim({ limit: 10, lockMs: 1, now: later(1) })).toEqual([]);
    expect(await q.depth()).toBe(0);
  });

  test('a retried row waits for its time; a dead one never comes back', async () => {
    const q = createDurableQueue(t.database.db, 'webhook_inbox');
    const [a] = await t.database.db.insert(webhookInbox).values({ body: 'a', runAt: T0 }).returning();
    const [b] = await t.database.db.insert(webhookInbox).values({ body: 'b', runAt: T0 }).returning();
    const claimed = await q.claim({ limit: 10, lockMs: 60_000, now: T0 });
    const attemptOf = (id: number) => claimed.find((r) => r.id === id)!.attempts;
    await q.retry(a!.id, attemptOf(a!.id), 'service down', later(1));
    await q.kill(b!.id, attemptOf(b!.id), 'bad payload', T0);
    expect(await q.claim({ limit: 10, lockMs: 1000, now: later(0.5) })).toEqual([]);
    expect((await q.claim({ limit: 10, lockMs: 1000, now: later(1) })).map((r) => r.id)).toEqual([a!.id]);
    expect(await q.depth()).toBe(1);
    expect(await q.prune(later(2))).toBe(1);
  });
});

describe('guild settings', () => {
  test('whether free tiers grant their roles: yes for a new guild, and a saved no reads back as no, then yes again', async () => {
    const repo = createGuildRepository(t.database.db);
    expect((await repo.settings('g1')).freeTiersGrantRoles).toBe(true);
    await repo.ensure('g1', 'Fan Club');
    // The column's default, not only the repository's: a row written without the setting says yes.
    expect(await repo.settings('g1')).toEqual({ ...DEFAULT_SETTINGS });
    await repo.saveSettings('g1', { ...(await repo.settings('g1')), freeTiersGrantRoles: false, graceDays: 3 });
    expect(await repo.settings('g1')).toEqual({ ...DEFAULT_SETTINGS, freeTiersGrantRoles: false, graceDays: 3 });
    expect((await repo.settings('g2')).freeTiersGrantRoles).toBe(true);
    await repo.saveSettings('g1', { ...(await repo.settings('g1')), freeTiersGrantRoles: true });
    expect((await repo.settings('g1')).freeTiersGrantRoles).toBe(true);
  });
});

describe('campaign connectors', () => {
  const G = '100000000000000001';
  const served = async () => createGuildRepository(t.database.db).servedCampaigns(G);

  test('/connect stores who connected a campaign and their highest role; connecting again replaces both; a plain bind keeps them', async () => {
    const guilds = createGuildRepository(t.database.db);
    expect(await guilds.bind(G, 'c1', { userId: 'sam', roleId: 'head-admin' })).toBe(true);
    expect(await served()).toEqual([{ campaignId: 'c1', connectedBy: 'sam', connectorRoleId: 'head-admin' }]);
    expect(await guilds.bind(G, 'c1')).toBe(false);
    expect(await served()).toEqual([{ campaignId: 'c1', connectedBy: 'sam', connectorRoleId: 'head-admin' }]);
    expect(await guilds.bind(G, 'c1', { userId: 'owner', roleId: null })).toBe(false);
    expect(await served()).toEqual([{ campaignId: 'c1', connectedBy: 'owner', connectorRoleId: null }]);
  });

  test('the nightly refresh changes the role only while the same connector is limited: a /connect since then stands', async () => {
    const guilds = createGuildRepository(t.database.db);
    await guilds.bind(G, 'c1', { userId: 'sam', roleId: 'head-admin' });
    await guilds.setConnectorRole(G, 'c1', 'sam', 'elders');
    expect(await served()).toEqual([{ campaignId: 'c1', connectedBy: 'sam', connectorRoleId: 'elders' }]);
    // Ann connected it again while the sync listed the server: Sam's refresh changes nothing.
    await guilds.bind(G, 'c1', { userId: 'ann', roleId: 'mods' });
    await guilds.setConnectorRole(G, 'c1', 'sam', 'head-admin');
    expect(await served()).toEqual([{ campaignId: 'c1', connectedBy: 'ann', connectorRoleId: 'mods' }]);
    // The owner connected it: no limit, and none comes back.
    await guilds.bind(G, 'c1', { userId: 'owner', roleId: null });
    await guilds.setConnectorRole(G, 'c1', 'owner', 'everyone');
    expect(await served()).toEqual([{ campaignId: 'c1', connectedBy: 'owner', connectorRoleId: null }]);
  });
});
