/**
 * The dashboard as people see it: the real service against both stand-ins, signed in through the
 * Discord stand-in's consent page in headless Chromium (Debian's, through playwright-core), every
 * page at a phone and a desktop size, light and dark. Asserts what a person would notice (sideways
 * scrolling, clipped text, low contrast, anything fetched from elsewhere), what axe-core finds, and
 * that the keyboard and a browser without JavaScript get everywhere. Screenshots go to
 * `screenshots/dashboard-*.tmp.png` (ignored by git; docs/screenshots holds the ones kept).
 */
import { existsSync, readFileSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { Permission } from '@tierlink/sandbox/discord';
import { DAY } from '../../../../src/shared/clock';
import { signIn } from '../../../support/dashboard-client';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../../../src/edges/outbound/store/database';
import { type E2E, dueWorkDone, pageText, startE2E } from '../../../support/e2e';
import { eventually } from '../../../support/eventually';
import { activePatron } from '../../../support/e2e-admin';
import { inspectPage, lookProblems } from '../../../support/page-inspection';
import { screenshotsWanted, shoot } from '../../../support/screenshots';
import { LOCAL_TIME_SCRIPT } from '../../../../src/edges/inbound/web/pages/local-time';

const CHROMIUM = '/usr/bin/chromium';
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

const VIEWPORTS = [
  { label: 'phone', width: 390, height: 844, mobile: true },
  { label: 'desktop', width: 1280, height: 800, mobile: false },
] as const;

const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI !== 'true') {
  console.warn(`Skipping the dashboard checks in a real browser: no Chromium at ${CHROMIUM}. Install it with: apt-get install -y chromium`);
}
const inChromium = haveChromium || process.env.CI === 'true' ? describe : describe.skip;

inChromium('the dashboard in headless Chromium', () => {
  let e: E2E;
  let browser: Browser;
  let session: { owner: string; plain: string };
  let mira: string;
  const args = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ];

  beforeAll(async () => {
    e = await startE2E({
      connected: true,
      // A tier whose Discord role on Patreon can kick and ban: Tierlink holds it back until the owner allows it.
      beforeStart: ({ patreon, discord, guildId }) => {
        const keepers = discord.createRole(guildId, { name: 'Keepers', permissions: Permission.KickMembers | Permission.BanMembers }).id;
        patreon.createTier(patreon.campaignId, { title: 'Lantern Keepers', amountCents: 2500, chatRoleIds: [keepers] });
      },
    });
    const { guildId } = e;
    const supporters = e.discord.createRole(guildId, { name: 'Supporters' }).id;
    const patrons: Array<[string, string, string[]]> = [
      ['Mira Okonkwo-Haddad', 'mira_ok', [e.tiers.gold]],
      ['Jonas Lindqvist', 'jonas', [e.tiers.silver]],
      ['Ada Byron', 'ada', [e.tiers.bronze]],
      ['Kenji Watanabe', 'kenji', [e.tiers.gold]],
    ];
    const patreonIds = new Map<string, string>();
    for (const [fullName, username, tiers] of patrons) {
      const patron = activePatron(e, fullName, tiers);
      patreonIds.set(username, patron.id);
      const userId = e.discord.addMember(guildId, { username }).userId;
      if (username === 'mira_ok') mira = userId;
      await e.link(userId, patron.id);
    }
    const mapped = await e.tierlink.services.admin.mapping.map(
      { guildId, userId: e.ownerId },
      `${e.patreon.campaignId}:${e.tiers.gold}`,
      supporters,
    );
    if (mapped.kind === 'done') await mapped.followUp;
    // Two weeks of history for the chart and the log (seeded: the service wrote today's rows itself).
    const ledger = e.tierlink.services.repos.ledger;
    const now = e.clock.now().getTime();
    const rows = [];
    for (let day = 13; day >= 1; day--) {
      for (let i = 0; i < ((day * 7) % 11) + 2; i++) {
        rows.push({
          at: new Date(now - day * DAY + i * 60_000),
          guildId,
          discordUserId: `30000000000000${String(day * 100 + i).padStart(4, '0')}`,
          roleId: i % 3 === 0 ? e.roles.silver : e.roles.gold,
          action: (i % 4 === 3 ? 'remove' : 'add') as 'add' | 'remove',
          outcome: 'applied' as const,
          trigger: i % 2 === 0 ? 'webhook' : 'sync',
          reason: i % 4 === 3 ? 'former patron: the pledge has ended' : 'Gold tier (active patron since 2026-03-14)',
        });
      }
    }
    await ledger.audit(rows);
    // A sync that held a removal: the guard at 1%, and Ada's pledge ended.
    const settings = await e.tierlink.services.repos.guilds.settings(guildId);
    await e.tierlink.services.repos.guilds.saveSettings(guildId, { ...settings, removalThresholdPercent: 1, removalThresholdMin: 0 });
    e.patreon.setMembership(
      patreonIds.get('ada')!,
      e.patreon.campaignId,
      { patronStatus: 'former_patron', tierIds: [] },
      { deliver: false },
    );
    await e.tierlink.services.runSync({ guildId, dryRun: false, force: false, trigger: 'manual' });

    // Patreon's deliveries for the Syncs page: a charge that changes nothing, a new post, and one
    // that cannot be handled while Patreon's member reads fail (its long error on a phone; the
    // outage lasts as long as this file: no page here reads one member from Patreon).
    e.patreon.setMembership(patreonIds.get('kenji')!, e.patreon.campaignId, {
      patronStatus: 'active_patron',
      tierIds: [e.tiers.gold],
      lastChargeDate: e.clock.now(),
      lastChargeStatus: 'Paid',
    });
    e.patreon.publishPost(e.patreon.campaignId, { title: 'Behind the scenes of the winter chapter', isPublic: false });
    await dueWorkDone(e);
    e.patreon.injectFault({ method: 'GET', path: /^\/api\/oauth2\/v2\/members\//, status: 500, times: Infinity });
    const jonasMember = e.patreon.memberOf(patreonIds.get('jonas')!, e.patreon.campaignId)!;
    await e.patreon.deliverRaw({
      webhookId: e.patreon.webhooks()[0]!.id,
      trigger: 'members:pledge:update',
      body: {
        data: {
          type: 'member',
          id: jonasMember.id,
          attributes: { patron_status: 'paused_patron', full_name: 'Jonas Lindqvist' },
          relationships: { campaign: { data: { type: 'campaign', id: e.patreon.campaignId } }, currently_entitled_tiers: { data: [] } },
        },
      },
    });
    await eventually(
      'the delivery tried once',
      async () => {
        const [row] = await queryRows<{ n: number }>(
          e.db.database.db,
          sql`select count(*)::int as n from webhook_inbox where attempts > 0 and status = 'pending'`,
        );
        return Number(row?.n) === 1;
      },
      10_000,
      50,
    );

    // The channels Tierlink posts in, set by the owner as /settings or the Channels panel would.
    const botRoleId = e.discord.guild(guildId).botRoleId;
    const allow = Permission.ViewChannel | Permission.SendMessages | Permission.EmbedLinks;
    const channel = (name: string) => e.discord.createChannel(guildId, { name, overwrites: [{ id: botRoleId, type: 'role', allow }] }).id;
    const modLog = channel('mod-log');
    e.discord.createChannel(guildId, { name: 'general' });
    const channelsSet = await e.tierlink.services.admin.settings.apply(
      { guildId, userId: e.ownerId },
      {},
      { modLog, announcePatrons: channel('welcome'), announcePosts: channel('new-posts') },
    );
    if (channelsSet.kind !== 'changed') throw new Error(`setting the channels: ${JSON.stringify(channelsSet)}`);

    const plainUser = e.discord.addMember(guildId, { username: 'just_a_fan' }).userId;
    e.discord.createRole(guildId, { name: 'Helpers', permissions: Permission.ViewChannel });
    session = {
      owner: (await signIn(e, e.ownerId)).browser.cookie('tierlink-session')!,
      plain: (await signIn(e, plainUser)).browser.cookie('tierlink-session')!,
    };
    browser = await chromium.launch({ executablePath: CHROMIUM, args });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await e?.stop();
  });

  const g = () => `/dashboard/${e.guildId}`;
  const PAGES = [
    { name: 'sign-in', path: () => '/dashboard', as: null, status: 200 },
    { name: 'servers', path: () => '/dashboard', as: 'owner', status: 200 },
    { name: 'overview', path: () => g(), as: 'owner', status: 200 },
    { name: 'tiers', path: () => `${g()}/tiers`, as: 'owner', status: 200 },
    { name: 'members', path: () => `${g()}/members?q=mi`, as: 'owner', status: 200 },
    { name: 'member', path: () => `${g()}/members/${mira}`, as: 'owner', status: 200 },
    { name: 'audit', path: () => `${g()}/audit`, as: 'owner', status: 200 },
    { name: 'syncs', path: () => `${g()}/syncs`, as: 'owner', status: 200 },
    { name: 'refused', path: () => g(), as: 'plain', status: 403 },
  ] as const;

  async function contextFor(
    who: 'owner' | 'plain' | null,
    viewport: (typeof VIEWPORTS)[number],
    scheme: 'light' | 'dark',
    extra: { bypassCSP?: boolean; javaScriptEnabled?: boolean } = {},
  ): Promise<BrowserContext> {
    const context = await browser.newContext({
      viewport: { width: viewport.width, height: viewport.height },
      isMobile: viewport.mobile,
      hasTouch: viewport.mobile,
      deviceScaleFactor: viewport.mobile ? 2 : 1,
      colorScheme: scheme,
      ...extra,
    });
    if (who) await context.addCookies([{ name: 'tierlink-session', value: session[who], url: e.url }]);
    // Anything but Tierlink itself is refused, so a stray fetch fails here instead of going out.
    await context.route('**/*', (route) => (route.request().url().startsWith(e.url) ? route.continue() : route.abort()));
    return context;
  }

  async function open(
    context: BrowserContext,
    url: string,
  ): Promise<{ page: Page; status: number | undefined; requests: string[]; errors: string[] }> {
    const page = await context.newPage();
    const requests: string[] = [];
    const errors: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('console', (m) => {
      const ownStatus = m.text().startsWith('Failed to load resource: the server responded with a status of');
      if ((m.type() === 'error' || m.type() === 'warning') && !ownStatus) errors.push(m.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    const response = await page.goto(`${e.url}${url}`, { waitUntil: 'load' });
    return { page, status: response?.status(), requests, errors };
  }

  test('a manager signs in through Discord’s consent page in the browser and lands on the server menu', async () => {
    e.discord.registerRedirectUri(`${e.url}/dashboard/callback`);
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${e.url}/dashboard`);
      await page.getByRole('link', { name: 'Sign in with Discord' }).click();
      await page.getByLabel('Log in as (sandbox user id)').fill(e.ownerId);
      await page.getByRole('button', { name: 'Authorize' }).click();
      await page.waitForURL(`${e.url}/dashboard`);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Your servers');
      await page.getByRole('link', { name: /Fan Club/ }).click();
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Overview');
    } finally {
      await context.close();
    }
  });

  describe.each(PAGES)('page $name', (spec) => {
    // One load per viewport, read in light and in dark (the scheme switched on the loaded page, as
    // a person's system switch does); a failure names the look that broke ("phone dark: …").
    test('fits, reads and loads nothing else on a phone and a desktop, light and dark', async () => {
      const problems: string[] = [];
      for (const viewport of VIEWPORTS) {
        const context = await contextFor(spec.as, viewport, 'light');
        try {
          const { page, status, requests, errors } = await open(context, spec.path());
          if (status !== spec.status) problems.push(`${viewport.label}: answered ${status}, not ${spec.status}`);
          if (requests.join() !== `${e.url}${spec.path()}`) problems.push(`${viewport.label}: fetched ${JSON.stringify(requests)}`);
          for (const error of errors) problems.push(`${viewport.label}: console: ${error}`);
          for (const scheme of ['light', 'dark'] as const) {
            await page.emulateMedia({ colorScheme: scheme });
            const seen = await page.evaluate(inspectPage, page.viewportSize() ?? { width: 0, height: 0 });
            problems.push(...lookProblems(`${viewport.label} ${scheme}`, seen, { scheme, mobile: viewport.mobile, nextStep: false }));
            const shot = `dashboard-${spec.name}-${viewport.label}${scheme === 'dark' ? '-dark' : ''}`;
            await shoot(page, `${shot}.tmp.png`, { fullPage: true });
            // What docs/screenshots keeps: the first screen on a phone, the top 1,100 px on a desktop.
            if (screenshotsWanted) {
              const height = viewport.mobile
                ? viewport.height
                : Math.min(
                    1100,
                    await page.evaluate(
                      () =>
                        (globalThis as unknown as { document: { documentElement: { scrollHeight: number } } }).document.documentElement
                          .scrollHeight,
                    ),
                  );
              await shoot(page, `${shot}.docs.tmp.png`, { fullPage: true, clip: { x: 0, y: 0, width: viewport.width, height } });
            }
          }
        } finally {
          await context.close();
        }
      }
      expect(problems).toEqual([]);
    });

    test('axe-core finds no accessibility violations (WCAG 2 A and AA, best practices)', async () => {
      const context = await contextFor(spec.as, VIEWPORTS[1], 'light', { bypassCSP: true });
      try {
        const { page } = await open(context, spec.path());
        await page.addScriptTag({ content: AXE_SOURCE });
        const violations = await page.evaluate(async () => {
          const axe = (
            globalThis as unknown as {
              axe: { run(options: unknown): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }> };
            }
          ).axe;
          const result = await axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
          return result.violations.map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => n.target))}`);
        });
        expect(violations).toEqual([]);
      } finally {
        await context.close();
      }
    });
  });

  test.each(VIEWPORTS)('the Channels panel on a $label: the three channels chosen, each with what it posts', async (viewport) => {
    const context = await contextFor('owner', viewport, 'light');
    try {
      const { page } = await open(context, `${g()}/tiers`);
      const panel = page.locator('section[aria-labelledby="channels"]');
      const chosen = await panel.evaluate((root) => {
        const r = root as unknown as {
          querySelectorAll(s: string): ArrayLike<{
            id: string;
            labels: ArrayLike<{ textContent: string | null }>;
            selectedOptions: ArrayLike<{ textContent: string | null }>;
          }>;
        };
        return Array.from(r.querySelectorAll('select')).map((el) => [
          el.labels[0]?.textContent ?? null,
          el.selectedOptions[0]?.textContent ?? null,
        ]);
      });
      expect(chosen).toEqual([
        ['Mod-log channel', '#mod-log'],
        ['New-patrons channel', '#welcome'],
        ['New-posts channel', '#new-posts'],
      ]);
      expect(pageText(await panel.innerHTML())).toContain(
        'Tierlink needs View Channel and Send Messages in each channel, and Embed Links for the mod-log and new posts',
      );
      const box = (await panel.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
      await shoot(panel, `dashboard-channels-${viewport.label}.docs.tmp.png`, { timeout: 10_000 });
    } finally {
      await context.close();
    }
  });

  test('the keyboard reaches everything in order: skip link, top bar, tabs, then the page; focus is always visible', async () => {
    const context = await contextFor('owner', VIEWPORTS[1], 'light');
    try {
      const { page } = await open(context, `${g()}/tiers`);
      const focused = () =>
        page.evaluate(() => {
          const el = (
            globalThis as unknown as {
              document: { activeElement: { tagName: string; textContent: string | null; getAttribute(n: string): string | null } | null };
            }
          ).document.activeElement;
          return el ? `${el.tagName.toLowerCase()}:${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)}` : 'none';
        });
      await page.keyboard.press('Tab');
      expect(await focused()).toBe('a:Skip to content');
      await page.keyboard.press('Enter');
      expect(await focused()).toMatch(/^main:/);
      // From the start: the top bar, then the tabs in their order.
      await page.reload();
      const order: string[] = [];
      for (let i = 0; i < 10; i++) {
        await page.keyboard.press('Tab');
        order.push(await focused());
      }
      expect(order.slice(0, 10)).toEqual([
        'a:Skip to content',
        'a:Tierlink',
        'a:All servers',
        'button:Sign out',
        'a:Overview',
        'a:Tiers and roles',
        'a:Members',
        'a:Audit log',
        'a:Syncs',
        expect.stringMatching(/^(button|a|select|input):/),
      ]);
      // Every control of every form has a label a screen reader reads out.
      const unlabelled = await page.evaluate(() => {
        const doc = (
          globalThis as unknown as {
            document: {
              querySelectorAll(
                s: string,
              ): ArrayLike<{ id: string; getAttribute(n: string): string | null; closest(s: string): unknown; type?: string }>;
              querySelector(s: string): unknown;
            };
          }
        ).document;
        return Array.from(doc.querySelectorAll('input:not([type=hidden]), select, textarea'))
          .filter((el) => !el.getAttribute('aria-label') && !el.closest('label') && !(el.id && doc.querySelector(`label[for="${el.id}"]`)))
          .map((el) => el.id || el.getAttribute('name'));
      });
      expect(unlabelled).toEqual([]);
      // The focus ring is drawn (not removed by the stylesheet).
      await page.focus('#map-role');
      const outline = await page.evaluate(() => {
        const g2 = globalThis as unknown as {
          document: { activeElement: unknown };
          getComputedStyle(el: unknown): { outlineStyle: string; outlineWidth: string };
        };
        const style = g2.getComputedStyle(g2.document.activeElement);
        return `${style.outlineStyle} ${style.outlineWidth}`;
      });
      expect(outline).toBe('solid 3px');
    } finally {
      await context.close();
    }
  });

  test.each(VIEWPORTS)('turning strict mode on shows what it would remove and asks to confirm ($label)', async (viewport) => {
    const context = await contextFor('owner', viewport, 'light', { javaScriptEnabled: false });
    try {
      const { page } = await open(context, `${g()}/tiers`);
      await page.getByRole('checkbox', { name: /^Strict:/ }).check({ timeout: 5000 });
      await page.getByRole('button', { name: 'Save settings' }).click({ timeout: 5000 });
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Turn strict mode on?');
      const seen = await page.evaluate(inspectPage, page.viewportSize() ?? { width: 0, height: 0 });
      expect(seen.scrollWidth).toBeLessThanOrEqual(seen.width);
      expect(seen.overflowing).toEqual([]);
      expect(seen.lowContrast).toEqual([]);
      await shoot(page, `dashboard-strict-${viewport.label}.docs.tmp.png`, { fullPage: true });
      // Keeping it off changes nothing.
      await page.getByRole('link', { name: 'Keep it off' }).click();
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Tiers and roles');
      expect((await e.tierlink.services.repos.guilds.settings(e.guildId)).strict).toBe(false);
    } finally {
      await context.close();
    }
  });

  test.each(VIEWPORTS)('a mapping made on the page shows what it would do first, and Cancel changes nothing ($label)', async (viewport) => {
    const context = await contextFor('owner', viewport, 'light', { javaScriptEnabled: false });
    try {
      const before = await e.tierlink.services.repos.mappings.of(e.guildId);
      const { page } = await open(context, `${g()}/tiers`);
      await page.locator('#map-tier').selectOption({ label: 'Silver ($5 a month)' }, { timeout: 5000 });
      await page.locator('#map-role').selectOption({ label: 'Supporters' }, { timeout: 5000 });
      await page.getByRole('button', { name: 'Give this role' }).click({ timeout: 5000 });
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Make this change?');
      const text = pageText(await page.content());
      expect(text).toContain('Silver would give @Supporters. Nothing has changed yet.');
      expect(text).toContain('Gives @Supporters to 1 member');
      expect(text).toContain('Removes nothing');
      expect(text).toContain('For example: jonas.');
      const seen = await page.evaluate(inspectPage, page.viewportSize() ?? { width: 0, height: 0 });
      expect(seen.scrollWidth).toBeLessThanOrEqual(seen.width);
      expect(seen.overflowing).toEqual([]);
      expect(seen.lowContrast).toEqual([]);
      await shoot(page, `dashboard-change-preview-${viewport.label}.docs.tmp.png`, { fullPage: true });
      await page.getByRole('button', { name: 'Cancel' }).click({ timeout: 5000 });
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Tiers and roles');
      expect(pageText(await page.content())).toContain('Cancelled: nothing was changed.');
      expect(await e.tierlink.services.repos.mappings.of(e.guildId)).toEqual(before);
    } finally {
      await context.close();
    }
  });

  test('times are written in the reader’s time zone and regional format; the UTC time stays as the title', async () => {
    const context = await browser.newContext({ timezoneId: 'Asia/Tokyo', locale: 'en-GB' });
    try {
      await context.addCookies([{ name: 'tierlink-session', value: session.owner, url: e.url }]);
      await context.route('**/*', (route) => (route.request().url().startsWith(e.url) ? route.continue() : route.abort()));
      const page = await context.newPage();
      await page.goto(`${e.url}${g()}`);
      const time = page.locator('time[data-local="minute"]').first();
      const at = new Date((await time.getAttribute('datetime'))!);
      expect(await time.getAttribute('title')).toBe(`${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`);
      // en-GB in Tokyo: day/month/year, nine hours ahead of UTC.
      const tokyo = new Date(at.getTime() + 9 * 3_600_000);
      const dd = (n: number) => String(n).padStart(2, '0');
      expect(await time.textContent()).toBe(
        `${dd(tokyo.getUTCDate())}/${dd(tokyo.getUTCMonth() + 1)}/${tokyo.getUTCFullYear()}, ${dd(tokyo.getUTCHours())}:${dd(tokyo.getUTCMinutes())} GMT+9`,
      );
    } finally {
      await context.close();
    }
  });

  test('without JavaScript the pages read the same and their forms work', async () => {
    const context = await contextFor('owner', VIEWPORTS[0], 'light', { javaScriptEnabled: false });
    try {
      const { page } = await open(context, `${g()}/members`);
      // One script on the page, the one that writes times in the reader's zone; nothing needs it.
      expect([...(await page.content()).matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1])).toEqual([LOCAL_TIME_SCRIPT]);
      await page.getByLabel('Discord or Patreon name, or Discord id').fill('Kenji');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByRole('link', { name: /Kenji Watanabe/ }).click();
      expect(pageText(await page.content())).toContain('Roles from Tierlink, and why');
      await page.goto(`${e.url}${g()}/syncs`);
      await page.getByRole('button', { name: 'Preview a sync' }).click();
      expect(pageText(await page.content())).toContain('Preview: what a sync would change now');
    } finally {
      await context.close();
    }
  });
});
