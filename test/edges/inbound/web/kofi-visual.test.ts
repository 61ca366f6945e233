/**
 * The dashboard's Ko-fi parts as people see them, in headless Chromium (Debian's, through
 * playwright-core): the Members page's "paid on Ko-fi, not linked" and the Tiers page listing Ko-fi
 * tiers beside Patreon's, at a phone and a desktop size. Screenshots go to
 * `screenshots/kofi-*.tmp.png` (ignored by git).
 */
import { existsSync, readFileSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { createKofiStandIn } from '@tierlink/sandbox/kofi';
import { signIn } from '../../../support/dashboard-client';
import { type E2E, pageText, startE2E } from '../../../support/e2e';
import { inspectPage } from '../../../support/page-inspection';
import { shoot } from '../../../support/screenshots';

const CHROMIUM = '/usr/bin/chromium';
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const TOKEN = 'kofi-visual-token-0123456789';
const VIEWPORTS = [
  { label: 'phone', width: 390, height: 844, mobile: true },
  { label: 'desktop', width: 1280, height: 800, mobile: false },
] as const;
const inChromium = existsSync(CHROMIUM) || process.env.CI === 'true' ? describe : describe.skip;

inChromium('the dashboard’s Ko-fi parts in headless Chromium', () => {
  let e: E2E;
  let browser: Browser;
  let owner: string;

  beforeAll(async () => {
    e = await startE2E({ connected: true, env: { KOFI_VERIFICATION_TOKEN: TOKEN } });
    const kofi = createKofiStandIn({ webhookUrl: `${e.url}/webhooks/kofi`, verificationToken: TOKEN, clock: e.clock });
    await kofi.pay({ email: 'maria.fernandez-oyelaran@example.com', fromName: 'María Fernández-Oyelaran', tierName: 'Coffee Club' });
    await kofi.pay({ type: 'Donation', email: 'tom@example.org', fromName: 'Tom', amount: '3.00' });
    const roleId = e.discord.createRole(e.guildId, { name: 'Coffee Club' }).id;
    const deadline = Date.now() + 5000;
    let mapped = await e.tierlink.services.admin.mapping.map({ guildId: e.guildId, userId: e.ownerId }, 'kofi:Coffee Club', roleId);
    while (mapped.kind === 'unknown_tier' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      mapped = await e.tierlink.services.admin.mapping.map({ guildId: e.guildId, userId: e.ownerId }, 'kofi:Coffee Club', roleId);
    }
    if (mapped.kind !== 'done') throw new Error(`mapping: ${JSON.stringify(mapped)}`);
    await mapped.followUp;
    owner = (await signIn(e, e.ownerId)).browser.cookie('tierlink-session')!;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await e?.stop();
  });

  const PAGES = [
    {
      name: 'members',
      path: () => `/dashboard/${e.guildId}/members`,
      expects: ['Paid on Ko-fi, not linked', 'María Fernández-Oyelaran', 'm…@example.com', 'Coffee Club (membership)', 'Tom', 'donation'],
    },
    { name: 'tiers', path: () => `/dashboard/${e.guildId}/tiers`, expects: ['Coffee Club', 'any Ko-fi membership', 'Gold'] },
  ] as const;

  describe.each(PAGES)('the $name page', (spec) => {
    test.each(VIEWPORTS)('on a $label: shows Ko-fi, fits, reads, and has no accessibility violations', async (viewport) => {
      const context = await browser.newContext({
        viewport: { width: viewport.width, height: viewport.height },
        isMobile: viewport.mobile,
        hasTouch: viewport.mobile,
        deviceScaleFactor: viewport.mobile ? 2 : 1,
        bypassCSP: true,
      });
      try {
        await context.addCookies([{ name: 'tierlink-session', value: owner, url: e.url }]);
        await context.route('**/*', (route) => (route.request().url().startsWith(e.url) ? route.continue() : route.abort()));
        const page = await context.newPage();
        const response = await page.goto(`${e.url}${spec.path()}`, { waitUntil: 'load' });
        expect(response?.status()).toBe(200);
        const text = pageText(await page.content());
        for (const words of spec.expects) expect(text).toContain(words);
        // The full address is never shown to staff.
        expect(text).not.toContain('maria.fernandez-oyelaran@example.com');
        const seen = await page.evaluate(inspectPage, page.viewportSize() ?? { width: 0, height: 0 });
        expect(seen.scrollWidth).toBeLessThanOrEqual(seen.width);
        expect(seen.overflowing).toEqual([]);
        expect(seen.lowContrast).toEqual([]);
        await shoot(page, `kofi-${spec.name}-${viewport.label}.tmp.png`, { fullPage: true });
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
});
