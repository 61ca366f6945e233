/**
 * The dashboard's Members page, a member's page, the Tiers and roles page and the strict-mode
 * confirmation in German (the longest of the four languages), as people see them on a phone: the
 * real service against both stand-ins, headless Chromium (Debian's, through playwright-core) at 320
 * and 390 px wide. Nothing may scroll sideways or be clipped. One browser, one context per width.
 * Screenshots go to `screenshots/dashboard-{members,member,tiers,strict}-de-<width>.tmp.png`.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { translator } from '../../../../src/core/i18n';
import { signIn } from '../../../support/dashboard-client';
import { type E2E, startE2E } from '../../../support/e2e';
import { activePatron } from '../../../support/e2e-admin';
import { englishIn } from '../../../support/english-leaks';
import { inspectPage, lookProblems } from '../../../support/page-inspection';
import { shoot } from '../../../support/screenshots';

const CHROMIUM = '/usr/bin/chromium';
const ADMIN = 1n << 3n;
const WIDTHS = [320, 390] as const;

const inChromium = existsSync(CHROMIUM) || process.env.CI === 'true' ? describe : describe.skip;

inChromium('the German Members and member pages at phone width in headless Chromium', () => {
  let e: E2E;
  let browser: Browser;
  let session: string;
  let member: string;
  const t = translator('de');

  beforeAll(async () => {
    e = await startE2E({
      connected: true,
      // Prices in euros per creation ("10 € pro Werk"), and a tier whose Discord role on Patreon can
      // kick and ban: Tierlink holds it back, and the Tiers page says why in German.
      env: { PATREON_CURRENCY: 'EUR' },
      beforeStart: ({ patreon, discord, guildId }) => {
        patreon.updateCampaign(patreon.campaignId, { isMonthly: false });
        const keepers = discord.createRole(guildId, { name: 'Laternenhüterinnen', permissions: (1n << 1n) | (1n << 2n) }).id;
        patreon.createTier(patreon.campaignId, { title: 'Laternenhüterinnen und -hüter', amountCents: 2500, chatRoleIds: [keepers] });
      },
    });
    // Long names, as real servers have them.
    for (const [name, tiers] of [
      ['Mira Okonkwo-Haddad', [e.tiers.gold]],
      ['Jonas Lindqvist-Åkerström', [e.tiers.silver]],
    ] as const) {
      const patron = activePatron(e, name, [...tiers]);
      const userId = e.discord.addMember(e.guildId, { username: name.split(' ')[0]!.toLowerCase() }).userId;
      await e.link(userId, patron.id);
      member ??= userId;
    }
    activePatron(e, 'Anneliese Schwarzenberger-Hohenlohe', [e.tiers.bronze]); // has not linked
    await e.tierlink.services.runSync({ guildId: e.guildId, dryRun: false, force: false, trigger: 'manual' });
    // Just below the bot, above every tier role, as a server's staff role is: Discord (and Tierlink)
    // lets an Administrator manage only roles below their own highest one.
    const botRole = e.discord.guild(e.guildId).roles.find((r) => r.id === e.discord.guild(e.guildId).botRoleId)!;
    const admins = e.discord.createRole(e.guildId, { name: 'Admins', permissions: ADMIN, position: botRole.position }).id;
    const reader = e.discord.addMember(e.guildId, { username: 'leserin', locale: 'de', roleIds: [admins] });
    session = (await signIn(e, reader.userId)).browser.cookie('tierlink-session')!;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await e?.stop();
  });

  test.each(WIDTHS)('%i px: both pages in German, nothing overflows', async (width) => {
    const context = await browser.newContext({ viewport: { width, height: 800 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    try {
      await context.addCookies([{ name: 'tierlink-session', value: session, url: e.url }]);
      await context.route('**/*', (route) => (route.request().url().startsWith(e.url) ? route.continue() : route.abort()));
      const page = await context.newPage();
      for (const [name, address, heading] of [
        ['members', `/dashboard/${e.guildId}/members?filter=all`, t('dashMem.title')],
        ['member', `/dashboard/${e.guildId}/members/${member}`, null],
      ] as const) {
        const response = await page.goto(`${e.url}${address}`, { waitUntil: 'load' });
        expect(response?.status()).toBe(200);
        if (heading) expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(heading);
        expect(englishIn(await page.locator('main').innerText())).toEqual([]);
        const seen = await page.evaluate(inspectPage, page.viewportSize() ?? { width: 0, height: 0 });
        expect(seen.styled).toBe(true);
        expect(seen.scrollWidth).toBeLessThanOrEqual(seen.width);
        expect(seen.overflowing).toEqual([]);
        expect(seen.lowContrast).toEqual([]);
        await shoot(page, `dashboard-${name}-de-${width}.tmp.png`, { fullPage: true });
      }
    } finally {
      await context.close();
    }
  });

  test.each(WIDTHS)('%i px: Tiers and roles and the strict-mode confirmation in German, nothing overflows', async (width) => {
    const context = await browser.newContext({ viewport: { width, height: 800 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    try {
      await context.addCookies([{ name: 'tierlink-session', value: session, url: e.url }]);
      await context.route('**/*', (route) => (route.request().url().startsWith(e.url) ? route.continue() : route.abort()));
      const page = await context.newPage();
      const problems: string[] = [];
      const look = async (name: string, heading: string) => {
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(heading);
        expect(englishIn(await page.locator('main').innerText())).toEqual([]);
        const seen = await page.evaluate(inspectPage, page.viewportSize() ?? { width: 0, height: 0 });
        problems.push(...lookProblems(`${name} ${width} px`, seen, { scheme: 'light', mobile: true, nextStep: false }));
        await shoot(page, `dashboard-${name}-de-${width}.tmp.png`, { fullPage: true });
      };
      const response = await page.goto(`${e.url}/dashboard/${e.guildId}/tiers`, { waitUntil: 'load' });
      expect(response?.status()).toBe(200);
      await look('tiers', t('dash.tiers'));
      const text = await page.locator('main').innerText();
      expect(text).toContain('10\u00a0€ pro Werk');
      expect(text).toContain(t('dashTier.heldBackWhy'));
      // Strict mode asked for from the settings form: the confirmation, in German.
      await page.getByLabel(t('dashTier.strict')).check();
      await page.getByRole('button', { name: t('dashTier.saveSettings') }).click();
      await page.waitForLoadState('load');
      await look('strict', t('dashStrict.title'));
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
