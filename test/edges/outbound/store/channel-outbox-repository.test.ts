import { createChannelOutboxRepository } from '../../../../src/edges/outbound/store/repositories/channel-outbox-repository';
import { type TestDatabase, createTestDatabase } from '../../../support/test-database';

/** The announcements outbox: one row per guild, kind and subject; a spent channel window holds back only its channel. */

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
}, 60_000);
afterAll(() => t.close());
beforeEach(() => t.reset());

const NOW = new Date('2026-11-24T12:00:00Z');
const later = (ms: number) => new Date(NOW.getTime() + ms);

const add = (repo: ReturnType<typeof createChannelOutboxRepository>, subject: string, channelId: string, guildId = 'g1') =>
  repo.addAnnouncement({ guildId, kind: 'post', subject, channelId, message: { content: subject }, now: NOW });

test('an announcement is written once per guild, kind and subject, whoever writes it again', async () => {
  const repo = createChannelOutboxRepository(t.database.db);
  expect(await add(repo, 'post:1', 'c1')).toBe(true);
  expect(await add(repo, 'post:1', 'c1')).toBe(false);
  expect(await add(repo, 'post:1', 'c2')).toBe(false); // the channel moved: still the same announcement
  expect(await add(repo, 'post:1', 'c1', 'g2')).toBe(true); // another server announces it too
  expect((await repo.announcementsOf('g1')).map((r) => r.subject)).toEqual(['post:1']);
});

test('a channel whose window is spent is left out of the due list until it ends; the other channels go on', async () => {
  const repo = createChannelOutboxRepository(t.database.db);
  for (let i = 0; i < 3; i++) await add(repo, `post:busy-${i}`, 'busy');
  await add(repo, 'post:quiet', 'quiet');
  await repo.setPacedUntil('busy', later(5_000));
  expect((await repo.dueAnnouncements(NOW, 2)).map((r) => r.subject)).toEqual(['post:quiet']);
  expect((await repo.dueAnnouncements(later(5_001), 2)).map((r) => r.subject)).toEqual(['post:busy-0', 'post:busy-1']);
});

test('a failed post waits for its next attempt; a dead one is never due again; a posted one neither', async () => {
  const repo = createChannelOutboxRepository(t.database.db);
  await add(repo, 'post:a', 'c1');
  await add(repo, 'post:b', 'c1');
  const [a, b] = await repo.dueAnnouncements(NOW, 10);
  await repo.announcementFailed(a!.id, 'unavailable: 503', { runAt: later(10_000), dead: false });
  await repo.announced(b!.id, 'm1', NOW);
  expect(await repo.dueAnnouncements(NOW, 10)).toEqual([]);
  const [again] = await repo.dueAnnouncements(later(10_000), 10);
  expect(again).toMatchObject({ subject: 'post:a', attempts: 1, lastError: 'unavailable: 503' });
  await repo.announcementFailed(a!.id, 'forbidden: Missing Access', { runAt: later(20_000), dead: true });
  expect(await repo.dueAnnouncements(later(60_000), 10)).toEqual([]);
  expect((await repo.announcementsOf('g1')).map((r) => r.status)).toEqual(['dead', 'posted']);
});
