import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/edges/outbound/store/database';
import { MAX_POST_PAGES } from '../../src/edges/outbound/patreon/posts';
import { POST_POLL_INTERVAL_MS } from '../../src/app/channels/announcements';
import { type E2E, startE2E } from '../support/e2e';
import { MANAGE_ROLES, runCommand, settingsChannel, webhookWithoutPosts } from '../support/e2e-admin';
import { eventually } from '../support/eventually';

/**
 * The poll of a campaign's posts, when its webhook does not carry them, against Patreon's dialect
 * under its real limits. Patreon documents neither the page size nor the order of the posts list;
 * the stand-in pages it by 20 and lists it oldest first here, the order in which a reader that
 * stops after {@link MAX_POST_PAGES} pages never reaches a new post of a campaign with many.
 */

const VIEW = 1n << 10n;
const SEND = 1n << 11n;
const EMBED = 1n << 14n;
const PAGE = 20;
const OLD_POSTS = PAGE * (MAX_POST_PAGES + 2) + 10; // 250: past what one poll reads
const POLL_GAP = POST_POLL_INTERVAL_MS + 60_000; // past the poll's interval

let e: E2E;
let posts: string;

const listReads = () => e.patreon.requests().filter((r) => r.path === `/api/oauth2/v2/campaigns/${e.patreon.campaignId}/posts`);
const titles = () => e.discord.messages(posts).map((m) => (m.embeds[0] as { title: string }).title);
const resumeCursor = async () =>
  (await queryRows<{ resume_cursor: string | null }>(e.db.database.db, sql`select resume_cursor from post_polls`))[0]?.resume_cursor;

const polledAt = async () =>
  (await queryRows<{ polled_at: Date | string }>(e.db.database.db, sql`select polled_at from post_polls`))[0]?.polled_at;

/**
 * One poll after the poll's interval, run by this test's channel round; returns the list requests
 * it sent, counted once the poll is recorded (after its last request). The service's own rounds
 * are stopped (see beforeAll), so no poll of theirs can be in flight across the count.
 */
async function poll(): Promise<number> {
  const before = listReads().length;
  e.clock.advance(POLL_GAP);
  const at = e.clock.now().getTime();
  await eventually('the poll at the test clock’s time', async () => {
    await e.tierlink.services.channels.round();
    const last = await polledAt();
    return last !== undefined && new Date(last).getTime() === at;
  });
  return listReads().length - before;
}

beforeAll(async () => {
  e = await startE2E({ connected: true, dialect: 'patreon', postsOrder: 'oldest-first' });
  for (let i = 1; i <= OLD_POSTS; i += 1)
    e.patreon.publishPost(e.patreon.campaignId, { title: `Old ${i}`, isPublic: true }, { deliver: false });
  e.clock.advance(60_000);
  const chosen = await settingsChannel(e, 'announce_posts_channel', 'new-posts', VIEW | SEND | EMBED);
  posts = chosen.channelId;
  expect(chosen.reply.content).toContain('Settings saved');
  await webhookWithoutPosts(e);
  expect((await e.tierlink.services.channels.announcements.postSource(e.patreon.campaignId)).kind).toBe('poll');
  // From here the test runs every channel round itself: a round of the service's own timer could
  // be polling while a count begins (waited for here, if one is).
  await e.tierlink.services.channels.stop();
}, 60_000);
afterAll(() => e?.stop());

test('a new post at the end of a long list, oldest first, is announced: each poll reads on from where the last one stopped', async () => {
  // The first poll reads as far as one poll may, the second the first page and on from the eleventh
  // to the list's end (page 13); nothing they find is newer than the channel. (The service's own
  // round may have run the first as soon as the webhook lost its posts: these two then read 4 and 2.)
  const first = [await poll(), await poll()];
  expect(Math.max(...first)).toBeLessThanOrEqual(MAX_POST_PAGES);
  expect(first).not.toEqual([MAX_POST_PAGES, MAX_POST_PAGES]);
  expect(titles()).toEqual([]);
  // From then on a poll costs two requests: the first page and the last.
  expect(await poll()).toBe(2);
  e.patreon.publishPost(e.patreon.campaignId, { title: 'Chapter 251', isPublic: true }, { deliver: false });
  expect(await poll()).toBe(2);
  await e.discord.waitForMessage(posts, { where: (m) => (m.embeds[0] as { title?: string }).title === 'Chapter 251', timeoutMs: 15_000 });
  // A post that opens a new page is found too.
  for (let i = 252; i <= 261; i += 1)
    e.patreon.publishPost(e.patreon.campaignId, { title: `Chapter ${i}`, isPublic: true }, { deliver: false });
  expect(await poll()).toBe(3);
  // Eleven announcements go out at the channel's pace (Discord's 5 messages in 5 seconds).
  await eventually('eleven announcements', async () => {
    e.clock.advance(5_000);
    await e.tierlink.services.channels.round();
    return titles().length >= 11;
  });
  expect(titles()).toEqual(['Chapter 251', ...Array.from({ length: 10 }, (_, i) => `Chapter ${252 + i}`)]);
  expect(e.patreon.requests().filter((r) => r.status === 429)).toEqual([]);
}, 90_000);

test('a kept cursor the service no longer takes: the poll still reads the first page, and starts over from the second', async () => {
  await e.db.database.db.execute(sql`update post_polls set resume_cursor = 'not-a-cursor'`);
  const before = listReads().length;
  expect(await poll()).toBe(2);
  const answers = listReads()
    .slice(before)
    .map((r) => r.status);
  expect(answers).toEqual([200, 400]);
  const kept = await resumeCursor();
  expect(kept).not.toBe('not-a-cursor');
  expect(kept).toEqual(expect.any(String));
  // The next poll reads on from the second page, the one after it to the end (page 14), and then two requests again.
  expect(await poll()).toBe(1 + MAX_POST_PAGES - 1);
  expect(await poll()).toBe(1 + 4);
  expect(await poll()).toBe(2);
  expect(titles()).toHaveLength(11);
}, 90_000);

test('a poll that fails is named by /doctor, in the reader’s language, until a poll works again', async () => {
  const doctor = (locale?: string) =>
    runCommand(e, { userId: e.ownerId, name: 'doctor', memberPermissions: MANAGE_ROLES, ...(locale ? { locale } : {}) }).reply();
  await poll();
  expect((await doctor()).content).not.toContain('new posts');
  e.patreon.injectFault({
    method: 'GET',
    path: `/api/oauth2/v2/campaigns/${e.patreon.campaignId}/posts`,
    status: 403,
    detail: 'You do not have access to this campaign’s posts.',
  });
  expect(await poll()).toBe(1);
  const failed = (await doctor()).content;
  expect(failed).toContain('❌ **Casey Creator: new posts**');
  expect(failed).toMatch(/reading them from Patreon failed at \d{4}-\d\d-\d\d \d\d:\d\d UTC: .*403/);
  expect(failed).toContain('Tierlink tries again every 5 minutes.');
  expect(failed).toContain('the creator runs /connect again');
  const german = (await doctor('de')).content;
  expect(german).toContain(': neue Beiträge');
  expect(german).toContain('sie von Patreon zu lesen schlug am');
  // The next poll works: the line is gone.
  expect(await poll()).toBeGreaterThan(0);
  expect((await doctor()).content).not.toContain('new posts');
}, 60_000);
