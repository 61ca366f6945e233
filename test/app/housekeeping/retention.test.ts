import { sql } from 'drizzle-orm';
import { createManualClock } from '@tierlink/sandbox';
import { DEFAULT_RETENTION, RETENTION_LOCK, createRetention } from '../../../src/app/housekeeping/retention';
import { ANNOUNCE_WINDOW_MS } from '../../../src/app/channels';
import { queryRows } from '../../../src/edges/outbound/store/database';
import { createAppStateRepository } from '../../../src/edges/outbound/store/repositories/app-state-repository';
import { PRUNE_BATCH, createRetentionStore } from '../../../src/edges/outbound/store/retention-store';
import { DAY } from '../../../src/shared/clock';
import { silentLogger } from '../../../src/shared/logger';
import { type TestDatabase, createTestDatabase } from '../../support/test-database';

/** Everything that grows is pruned daily, by its own age, by one instance at a time. */

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
}, 60_000);
afterAll(() => t.close());
beforeEach(() => t.reset());

const NOW = new Date('2026-11-20T12:00:00Z');
const ago = (days: number) => new Date(NOW.getTime() - days * DAY);

function retention(clock = createManualClock(NOW)) {
  const { database } = t;
  return {
    clock,
    retention: createRetention({
      store: createRetentionStore(database.db),
      appState: createAppStateRepository(database.db),
      withLock: (name, fn) => database.tryWithLock(name, fn),
      clock,
      logger: silentLogger,
    }),
  };
}

const count = async (table: string) =>
  (await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from ${sql.identifier(table)}`))[0]!.n;

async function seed(): Promise<void> {
  const { db } = t.database;
  for (const [days, tag] of [
    [181, 'old'],
    [179, 'kept'],
  ] as const) {
    await db.execute(sql`insert into audit_log (at, guild_id, discord_user_id, role_id, action, outcome, trigger, reason)
      values (${ago(days)}, 'g', 'u', 'r', 'add', 'applied', 'sync', ${tag})`);
  }
  for (const days of [91, 89]) {
    await db.execute(sql`insert into sync_runs (trigger, status, started_at) values ('schedule', 'ok', ${ago(days)})`);
    await db.execute(sql`insert into link_events (discord_user_id, external_id, kind, at) values ('d', 'p', 'linked', ${ago(days)})`);
  }
  // A sync still running is never pruned, however old.
  await db.execute(sql`insert into sync_runs (trigger, status, started_at) values ('schedule', 'running', ${ago(400)})`);
  for (const [status, days] of [
    ['dead', 31],
    ['dead', 29],
    ['done', 8],
    ['pending', 60],
  ] as const) {
    await db.execute(
      sql`insert into webhook_inbox (body, status, finished_at) values ('{}', ${status}, ${status === 'pending' ? null : ago(days)})`,
    );
  }
  for (const [status, days] of [
    ['dead', 31],
    ['done', 8],
    ['done', 6],
    ['pending', 60],
  ] as const) {
    await db.execute(
      sql`insert into jobs (kind, payload, status, finished_at) values ('k', '{}'::jsonb, ${status}, ${status === 'pending' ? null : ago(days)})`,
    );
  }
  await db.execute(sql`insert into webhook_seen (body_hash, seen_at) values ('old', ${ago(8)}), ('new', ${ago(6)})`);
  await db.execute(sql`insert into campaigns (id, creator_user_id, name) values ('c1', 'with-campaign', 'C')`);
  for (const [creator, days] of [
    ['with-campaign', 300],
    ['orphan-old', 31],
    ['orphan-recent', 29],
  ] as const) {
    await db.execute(
      sql`insert into creator_credentials (creator_user_id, access_token_enc, refresh_token_enc, updated_at) values (${creator}, 'x', 'y', ${ago(days)})`,
    );
  }
  for (const [subject, days] of [
    ['old', 91],
    ['kept', 89],
  ] as const) {
    await db.execute(sql`insert into direct_messages (guild_id, discord_user_id, kind, subject, status, created_at)
      values ('g', 'u', 'payment_declined', ${subject}, 'sent', ${ago(days)})`);
  }
  // Ko-fi: a donation past every donation setting goes; subscriptions (tenure counts from them), a
  // recent donation and an old one not yet processed stay.
  for (const [id, kind, days, processed] of [
    ['donation-old', 'Donation', 401, true],
    ['shop-old', 'Shop Order', 401, true],
    ['donation-unprocessed', 'Donation', 401, false],
    ['donation-recent', 'Donation', 399, true],
    ['subscription-old', 'Subscription', 800, true],
  ] as const) {
    await db.execute(sql`insert into kofi_payments (message_id, kind, paid_at, email, amount_cents, is_subscription_payment,
      is_first_subscription_payment, processed_at)
      values (${id}, ${kind}, ${ago(days)}, 'a@example.com', 500, ${kind === 'Subscription'}, false, ${processed ? ago(days) : null})`);
  }
  await db.execute(
    sql`insert into app_state (key, value) values ('creator-env-seed', ${JSON.stringify({ seed: 's', creatorUserId: 'orphan-old' })}::jsonb)`,
  );
}

test('each kind of row goes after its own retention; newer rows, pending work and running syncs stay', async () => {
  await seed();
  const { retention: r } = retention();
  expect(await r.runOnce()).toEqual({
    kind: 'pruned',
    counts: {
      auditLog: 1,
      syncRuns: 1,
      deadDeliveries: 1,
      deadJobs: 1,
      doneJobs: 1,
      seenDeliveries: 1,
      linkEvents: 1,
      orphanCredentials: 1,
      announcements: 0,
      channelPacing: 0,
      postPolls: 0,
      directMessages: 1,
      kofiPayments: 2,
    },
  });
  expect(await queryRows(t.database.db, sql`select subject from direct_messages`)).toEqual([{ subject: 'kept' }]);
  expect(await queryRows(t.database.db, sql`select message_id from kofi_payments order by 1`)).toEqual([
    { message_id: 'donation-recent' },
    { message_id: 'donation-unprocessed' },
    { message_id: 'subscription-old' },
  ]);
  expect(await queryRows(t.database.db, sql`select reason from audit_log`)).toEqual([{ reason: 'kept' }]);
  expect(await queryRows(t.database.db, sql`select status from sync_runs order by id`)).toEqual([{ status: 'ok' }, { status: 'running' }]);
  // Done deliveries are the webhook processor's to prune (after 7 days); the pending one waits.
  expect(await queryRows(t.database.db, sql`select status from webhook_inbox order by id`)).toEqual([
    { status: 'dead' },
    { status: 'done' },
    { status: 'pending' },
  ]);
  expect(await queryRows(t.database.db, sql`select status from jobs order by id`)).toEqual([{ status: 'done' }, { status: 'pending' }]);
  expect(await queryRows(t.database.db, sql`select body_hash from webhook_seen`)).toEqual([{ body_hash: 'new' }]);
  expect(await queryRows(t.database.db, sql`select creator_user_id from creator_credentials order by 1`)).toEqual([
    { creator_user_id: 'orphan-recent' },
    { creator_user_id: 'with-campaign' },
  ]);
  expect(await count('app_state')).toBe(1); // the seed naming the pruned creator is gone; the last run is recorded
  expect(DEFAULT_RETENTION).toMatchObject({ auditDays: 180, syncRunDays: 90, deadLetterDays: 30, doneJobDays: 7, linkEventDays: 90 });
});

test('once a day: a second look the same day does nothing, the next day prunes again', async () => {
  const { retention: r, clock } = retention();
  expect((await r.runOnce()).kind).toBe('pruned');
  clock.advance(6 * 60 * 60_000);
  expect(await r.runOnce()).toEqual({ kind: 'not_due' });
  clock.advance(DAY);
  expect((await r.runOnce()).kind).toBe('pruned');
});

test('an instance that finds another pruning skips; the record of the last prune is shared by every instance', async () => {
  const first = retention();
  let release!: () => void;
  let held!: () => void;
  const acquired = new Promise<void>((resolve) => (held = resolve));
  // The other instance holds the lock from the moment its work starts (not after a guessed delay).
  const holding = t.database.tryWithLock(
    RETENTION_LOCK,
    () =>
      new Promise<void>((resolve) => {
        release = resolve;
        held();
      }),
  );
  await acquired;
  expect(await first.retention.runOnce()).toEqual({ kind: 'locked' });
  release();
  await holding;
  expect((await first.retention.runOnce()).kind).toBe('pruned');
  const second = retention(first.clock);
  expect(await second.retention.runOnce()).toEqual({ kind: 'not_due' });
});

test('a table grown far past its retention is pruned in batches', async () => {
  const n = PRUNE_BATCH * 2 + 17;
  await t.database.db.execute(sql`insert into audit_log (at, guild_id, discord_user_id, role_id, action, outcome, trigger, reason)
    select ${ago(365)}, 'g', 'u', 'r', 'add', 'applied', 'sync', 'x' from generate_series(1, ${n})`);
  const { retention: r } = retention();
  expect(await r.runOnce()).toMatchObject({ counts: { auditLog: n } });
  expect(await count('audit_log')).toBe(0);
});

test('announcements go after 30 days (past the 7-day window they are written in), ended channel windows after a day, polls of campaigns no longer served', async () => {
  const { db } = t.database;
  for (const [subject, days, status] of [
    ['post:old', 31, 'posted'],
    ['post:stale', 40, 'pending'],
    ['post:recent', 29, 'posted'],
  ] as const) {
    await db.execute(sql`insert into announcements (guild_id, kind, subject, channel_id, message, status, created_at)
      values ('g', 'post', ${subject}, 'c', '{}'::jsonb, ${status}, ${ago(days)})`);
  }
  await db.execute(sql`insert into channel_pacing (channel_id, paced_until) values ('ended', ${ago(2)}), ('current', ${ago(0.5)})`);
  await db.execute(sql`insert into campaigns (id, creator_user_id, name) values ('served', 'u', 'C')`);
  await db.execute(sql`insert into post_polls (campaign_id, polled_at) values ('served', ${ago(1)}), ('gone', ${ago(1)})`);
  const { retention: r } = retention();
  expect(await r.runOnce()).toMatchObject({ counts: { announcements: 2, channelPacing: 1, postPolls: 1 } });
  expect(await queryRows(t.database.db, sql`select subject from announcements`)).toEqual([{ subject: 'post:recent' }]);
  expect(await queryRows(t.database.db, sql`select channel_id from channel_pacing`)).toEqual([{ channel_id: 'current' }]);
  expect(await queryRows(t.database.db, sql`select campaign_id from post_polls`)).toEqual([{ campaign_id: 'served' }]);
  expect(DEFAULT_RETENTION.announcementDays * DAY).toBeGreaterThan(ANNOUNCE_WINDOW_MS);
});
