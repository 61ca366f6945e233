/**
 * The Members page as a creator sees it, on 100,000 memberships (seeded into the store after a
 * real sync of a few real patrons through both stand-ins), in headless Chromium at a phone and a
 * desktop size: the counts of every filter, each filter's list, sorting and paging, the join link
 * beside the patrons who have not linked, the CSV of those patrons, and the Overview's key numbers.
 * The page time at this size is measured in `npm run bench` ("Members page"), never here.
 * Screenshots: `screenshots/members-*.tmp.png`; docs/screenshots keeps the ones docs/members.md shows.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { signIn } from '../../../support/dashboard-client';
import { type E2E, startE2E } from '../../../support/e2e';
import { activePatron } from '../../../support/e2e-admin';
import { expectedCounts, seedMembers } from '../../../support/member-seed';
import { inspectPage } from '../../../support/page-inspection';
import { shoot } from '../../../support/screenshots';

const CHROMIUM = '/usr/bin/chromium';
const SEEDED = 100_000;
const VIEWPORTS = [
  { label: 'phone', width: 390, height: 844, mobile: true },
  { label: 'desktop', width: 1280, height: 800, mobile: false },
] as const;
const FILTERS = ['all', 'patrons', 'linked', 'not-linked', 'not-in-server', 'grace', 'former', 'comped'] as const;

const inChromium = existsSync(CHROMIUM) || process.env.CI === 'true' ? describe : describe.skip;

inChromium('the Members page on 100,000 memberships, in headless Chromium', () => {
  let e: E2E;
  let browser: Browser;
  let owner: string;
  let expected: Record<string, number>;

  beforeAll(async () => {
    e = await startE2E({ connected: true });
    const { guildId } = e;
    // Real patrons: two linked and in the server, one linked who left, one who never linked.
    const mira = activePatron(e, 'Mira Okonkwo-Haddad', [e.tiers.gold]);
    const jonas = activePatron(e, 'Jonas Lindqvist', [e.tiers.silver]);
    const ada = activePatron(e, 'Ada Byron', [e.tiers.bronze]);
    activePatron(e, 'Zora Unlinked', [e.tiers.gold]);
    const miraUser = e.discord.addMember(guildId, { username: 'mira_ok' }).userId;
    const jonasUser = e.discord.addMember(guildId, { username: 'jonas' }).userId;
    const adaUser = e.discord.addMember(guildId, { username: 'ada' }).userId;
    await e.link(miraUser, mira.id);
    await e.link(jonasUser, jonas.id);
    await e.link(adaUser, ada.id);
    e.discord.removeMember(guildId, adaUser);
    // The sync runs a moment later, as it would: a member a reconcile saw in the server at the very
    // instant the sync's listing began counts as having joined during it, and is kept.
    e.clock.advance(1_000);
    await e.tierlink.services.runSync({ guildId, dryRun: false, force: false, trigger: 'manual' });
    owner = (await signIn(e, e.ownerId)).browser.cookie('tierlink-session')!;
    // Then the crowd, written straight into the store (the stand-in would take minutes to serve it).
    await seedMembers(e.db.database.db, {
      guildId,
      campaignId: e.patreon.campaignId,
      tierIds: [e.tiers.bronze, e.tiers.silver, e.tiers.gold],
      count: SEEDED,
      now: e.clock.now(),
      graceDays: 7,
    });
    await e.tierlink.services.dashboard.memberList.refresh(guildId);
    const seeded = expectedCounts(SEEDED);
    // The four real patrons are entitled; three linked; Ada is not in the server; Zora has not linked.
    expected = {
      ...seeded,
      all: seeded.all! + 4,
      patrons: seeded.patrons! + 4,
      linked: seeded.linked! + 3,
      'not-linked': seeded['not-linked']! + 1,
      'not-in-server': seeded['not-in-server']! + 1,
    };
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await e?.stop();
  });

  async function contextFor(viewport: (typeof VIEWPORTS)[number]): Promise<BrowserContext> {
    const context = await browser.newContext({
      viewport: { width: viewport.width, height: viewport.height },
      isMobile: viewport.mobile,
      hasTouch: viewport.mobile,
      deviceScaleFactor: viewport.mobile ? 2 : 1,
      acceptDownloads: true,
    });
    await context.addCookies([{ name: 'tierlink-session', value: owner, url: e.url }]);
    await context.route('**/*', (route) => (route.request().url().startsWith(e.url) ? route.continue() : route.abort()));
    return context;
  }

  async function fits(page: Page): Promise<void> {
    const seen = await page.evaluate(inspectPage, page.viewportSize() ?? { width: 0, height: 0 });
    expect(seen.scrollWidth).toBeLessThanOrEqual(seen.width);
    expect(seen.overflowing).toEqual([]);
    expect(seen.lowContrast).toEqual([]);
  }

  /** The chips' counts as the page shows them, by label. */
  async function chips(page: Page): Promise<Record<string, string>> {
    const texts = await page.locator('nav.filters a.chip').allTextContents();
    return Object.fromEntries(texts.map((t) => [t.replace(/[\d,]+\s*$/, '').trim(), t.match(/([\d,]+)\s*$/)![1]!]));
  }

  const grouped = (n: number) => n.toLocaleString('en-US');

  describe.each(VIEWPORTS)('on a $label', (viewport) => {
    test.each(FILTERS)('filter %s: every count, this filter’s people, and nothing sideways', async (filter) => {
      const context = await contextFor(viewport);
      try {
        const page = await context.newPage();
        const response = await page.goto(`${e.url}/dashboard/${e.guildId}/members?filter=${filter}`);
        expect(response?.status()).toBe(200);
        expect(await chips(page)).toEqual({
          Everyone: grouped(expected.all!),
          Patrons: grouped(expected.patrons!),
          Linked: grouped(expected.linked!),
          'Not linked': grouped(expected['not-linked']!),
          'Not in the server': grouped(expected['not-in-server']!),
          'In grace': grouped(expected.grace!),
          Former: grouped(expected.former!),
          Comped: grouped(expected.comped!),
        });
        expect(await page.locator('nav.filters a[aria-current]').textContent()).toContain(grouped(expected[filter]!));
        const rows = page.locator('section[aria-labelledby="list"] tbody tr');
        expect(await rows.count()).toBe(Math.min(50, expected[filter]!));
        const standing = await page.locator('section[aria-labelledby="list"] tbody td[data-label="Standing"]').allTextContents();
        const discord = await page.locator('section[aria-labelledby="list"] tbody td[data-label="Discord"]').allTextContents();
        if (filter === 'not-linked') expect(discord.every((d) => d.trim() === 'not linked')).toBe(true);
        if (filter === 'not-in-server') expect(discord.every((d) => d.trim() === 'not in the server')).toBe(true);
        if (filter === 'grace') expect(standing.every((s) => s.includes('in grace'))).toBe(true);
        if (filter === 'comped') expect(standing.every((s) => s.includes('comped'))).toBe(true);
        if (filter === 'patrons') expect(standing.every((s) => s.trim().startsWith('patron'))).toBe(true);
        await fits(page);
        await shoot(page, `members-${filter}-${viewport.label}.tmp.png`, { fullPage: !viewport.mobile });
      } finally {
        await context.close();
      }
    });
  });

  test('the not-linked list names the real patron who never linked, offers the join link to copy, and pages on', async () => {
    const context = await contextFor(VIEWPORTS[1]);
    try {
      const page = await context.newPage();
      await page.goto(`${e.url}/dashboard/${e.guildId}/members?filter=not-linked&sort=since`);
      expect(await page.locator('#join-url').inputValue()).toBe((await e.tierlink.services.joining.links.linkOf(e.guildId)).url);
      await page.getByRole('link', { name: /Next page/ }).click();
      expect(new URL(page.url()).searchParams.get('page')).toBe('2');
      expect(await page.locator('.pager .muted').textContent()).toBe(`Page 2 of ${grouped(Math.ceil(expected['not-linked']! / 50))}`);
      await page.goto(`${e.url}/dashboard/${e.guildId}/members?filter=not-linked`);
      await page.getByLabel('Order').selectOption('name');
      await page.getByRole('button', { name: 'Sort' }).click();
      // Names in order: "Seeded Patron …" rows, and Zora after them.
      const names = (await page.locator('section[aria-labelledby="list"] tbody td[data-label="Member"]').allTextContents()).map((n) =>
        n.replace(/on Patreon, not linked$/, '').toLowerCase(),
      );
      expect(names.length).toBe(50);
      expect([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(names);
      await page.goto(`${e.url}/dashboard/${e.guildId}/members?filter=not-linked&page=${Math.ceil(expected['not-linked']! / 50)}`);
      expect(await page.locator('section[aria-labelledby="list"] tbody').textContent()).toContain('Zora Unlinked');
      await shoot(page, 'members-join-link-desktop.tmp.png', { fullPage: true });
    } finally {
      await context.close();
    }
  });

  test('the CSV of the patrons who have not linked: a header, then one row each with their name and tier', async () => {
    const context = await contextFor(VIEWPORTS[1]);
    try {
      const page = await context.newPage();
      await page.goto(`${e.url}/dashboard/${e.guildId}/members?filter=not-linked`);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'Download this list (CSV)' }).click(),
      ]);
      expect(download.suggestedFilename()).toBe(`tierlink-members-not-linked-${e.guildId}.csv`);
      const file = await download.path();
      const text = (await import('node:fs')).readFileSync(file!, 'utf8').replace(/^\uFEFF/, '');
      const lines = text.split('\r\n').filter(Boolean);
      expect(lines[0]).toBe('name,tier,standing,patron since,on,discord user id,discord name,in the server,comped');
      expect(lines).toHaveLength(expected['not-linked']! + 1);
      expect(lines.find((l) => l.startsWith('Zora Unlinked,'))).toMatch(/^Zora Unlinked,Gold,patron,\d{4}-\d\d-\d\d,patreon,,,,no$/);
      expect(lines.slice(1).every((l) => /,(patron|grace),/.test(l))).toBe(true);
    } finally {
      await context.close();
    }
  });

  test('a manager of another server gets nothing from the CSV', async () => {
    const stranger = e.discord.addMember(e.guildId, { username: 'just_a_fan' }).userId;
    const { browser: plain } = await signIn(e, stranger);
    const answer = await plain.get(`/dashboard/${e.guildId}/members.csv?filter=not-linked`);
    expect(answer.status).toBe(403);
    expect(answer.html).not.toContain('Zora');
  });

  test.each(VIEWPORTS)('the Overview on a $label: the key numbers from the same counts, each opening its list', async (viewport) => {
    const context = await contextFor(viewport);
    try {
      const page = await context.newPage();
      await page.goto(`${e.url}/dashboard/${e.guildId}`);
      const keys = await page.locator('section[aria-labelledby="numbers"] a.key').allTextContents();
      expect(keys.slice(0, 6)).toEqual([
        `${grouped(expected.patrons!)}patrons`,
        `${grouped(expected.linked!)}linked`,
        `${grouped(expected['not-linked']!)}not linked`,
        `${grouped(expected['not-in-server']!)}not in the server`,
        `${grouped(expected.grace!)}in grace`,
        `${grouped(expected.comped!)}comped`,
      ]);
      await page.locator('section[aria-labelledby="numbers"] a.key').nth(2).click();
      expect(new URL(page.url()).searchParams.get('filter')).toBe('not-linked');
      await page.goto(`${e.url}/dashboard/${e.guildId}`);
      await fits(page);
      await shoot(page, `members-overview-${viewport.label}.tmp.png`);
    } finally {
      await context.close();
    }
  });
});
