/**
 * The dashboard's Overview in the signed-in user's Discord language, as people see it: the real
 * service against both stand-ins, headless Chromium (Debian's, through playwright-core) at a phone
 * and a desktop size. German is the longest of the four languages: nothing may scroll sideways or
 * be clipped. Screenshots go to `screenshots/dashboard-overview-<lang>-*.tmp.png` (docs/screenshots
 * keeps the German and Portuguese phone ones).
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { type Locale, translator } from '../../../../src/core/i18n';
import { signIn } from '../../../support/dashboard-client';
import { type E2E, startE2E } from '../../../support/e2e';
import { activePatron } from '../../../support/e2e-admin';
import { englishIn } from '../../../support/english-leaks';
import { inspectPage } from '../../../support/page-inspection';
import { shoot } from '../../../support/screenshots';

const CHROMIUM = '/usr/bin/chromium';
const ADMIN = 1n << 3n;

const VIEWPORTS = [
  { label: 'phone', width: 390, height: 844, mobile: true },
  { label: 'desktop', width: 1280, height: 800, mobile: false },
] as const;

const inChromium = existsSync(CHROMIUM) || process.env.CI === 'true' ? describe : describe.skip;

inChromium('the Overview in the reader’s language in headless Chromium', () => {
  let e: E2E;
  let browser: Browser;
  const sessions = new Map<Locale, string>();

  beforeAll(async () => {
    e = await startE2E({ connected: true });
    for (const [name, tiers] of [
      ['Mira Okonkwo-Haddad', [e.tiers.gold]],
      ['Jonas Lindqvist', [e.tiers.silver]],
    ] as const) {
      const patron = activePatron(e, name, [...tiers]);
      const userId = e.discord.addMember(e.guildId, { username: name.split(' ')[0]!.toLowerCase() }).userId;
      await e.link(userId, patron.id);
    }
    await e.tierlink.services.runSync({ guildId: e.guildId, dryRun: false, force: false, trigger: 'manual' });
    const admins = e.discord.createRole(e.guildId, { name: 'Admins', permissions: ADMIN }).id;
    for (const locale of ['de', 'pt-BR'] as const) {
      const reader = e.discord.addMember(e.guildId, { username: `reader-${locale}`, locale, roleIds: [admins] });
      sessions.set(locale, (await signIn(e, reader.userId)).browser.cookie('tierlink-session')!);
    }
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await e?.stop();
  });

  const cases = [
    { locale: 'de' as const, viewport: VIEWPORTS[0] },
    { locale: 'de' as const, viewport: VIEWPORTS[1] },
    { locale: 'pt-BR' as const, viewport: VIEWPORTS[0] },
  ];

  test.each(cases)('$locale on a $viewport.label: in the language, nothing overflows', async ({ locale, viewport }) => {
    const t = translator(locale);
    const context = await browser.newContext({
      viewport: { width: viewport.width, height: viewport.height },
      isMobile: viewport.mobile,
      hasTouch: viewport.mobile,
      deviceScaleFactor: viewport.mobile ? 2 : 1,
    });
    try {
      await context.addCookies([{ name: 'tierlink-session', value: sessions.get(locale)!, url: e.url }]);
      await context.route('**/*', (route) => (route.request().url().startsWith(e.url) ? route.continue() : route.abort()));
      const page = await context.newPage();
      const response = await page.goto(`${e.url}/dashboard/${e.guildId}`, { waitUntil: 'load' });
      expect(response?.status()).toBe(200);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(t('dashOv.title'));
      expect(await page.locator('#numbers').textContent()).toBe(t('dashOv.members'));
      const keys = await page.locator('.keys').innerText();
      expect(keys).toContain(t('dashOv.key.patrons'));
      expect(keys).toContain(t('dashOv.key.notInServer'));
      // The page's own words are in the language; the checks' details and fixes are /doctor's English.
      const own = await page.evaluate(() => {
        const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<{ innerText: string }> } }).document;
        return Array.from(doc.querySelectorAll('h1, h2, .keys, #connection ~ *, .hint, th, .pill, .actions'))
          .map((n) => n.innerText)
          .join('\n');
      });
      expect(englishIn(own)).toEqual([]);

      const seen = await page.evaluate(inspectPage, page.viewportSize() ?? { width: 0, height: 0 });
      expect(seen.styled).toBe(true);
      expect(seen.scrollWidth).toBeLessThanOrEqual(seen.width);
      expect(seen.overflowing).toEqual([]);
      expect(seen.lowContrast).toEqual([]);
      const shot = `dashboard-overview-${locale}-${viewport.label}`;
      await shoot(page, `${shot}.tmp.png`, { fullPage: true });
      await shoot(page, `${shot}.docs.tmp.png`, {
        fullPage: true,
        clip: { x: 0, y: 0, width: viewport.width, height: viewport.mobile ? viewport.height * 2 : 1100 },
      });
    } finally {
      await context.close();
    }
  });
});
