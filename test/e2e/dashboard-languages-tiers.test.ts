import { Permission } from '@tierlink/sandbox/discord';
import { createKofiStandIn } from '@tierlink/sandbox/kofi';
import { LOCALES, type Locale, translator } from '../../src/core/i18n';
import { priceText } from '../../src/core/i18n/price';
import { SETTING_BOUNDS } from '../../src/core/planner/settings';
import { DEFAULT_SETTINGS_FORM, type DashboardBrowser, type PageAnswer, signIn } from '../support/dashboard-client';
import { type E2E, pageText, startE2E } from '../support/e2e';
import { activePatron } from '../support/e2e-admin';
import { englishIn, englishLeftIn } from '../support/english-leaks';

/**
 * The dashboard's Tiers and roles page, its strict-mode confirmation, the Members page's Ko-fi
 * panel, the server list and the messages after a form, in each of the four languages, as the
 * signed-in user's Discord language chooses: no sentence of the English page left (whether it is in
 * the catalogue or not), prices as the campaign states them (euros, per creation), and a refusal
 * said from its facts (`settingsSays.*`, `refusal.*`) rather than the service's English.
 */

const TOKEN = 'dashboard-languages-kofi-token';
const KOFI = 'Coffee Club';
/** Gold's price as the campaign states it: PATREON_CURRENCY=EUR and Patreon's `is_monthly: false`. */
const GOLD = { amountCents: 1000, currency: 'EUR', cadence: 'creation', payPerName: null } as const;

let e: E2E;
const readers = new Map<Locale, DashboardBrowser>();
/** Each page as each reader first saw it. */
const pages = new Map<string, PageAnswer>();
let botRoleName: string;

const SETTINGS = DEFAULT_SETTINGS_FORM;

const path = (p = '') => `/dashboard/${e.guildId}${p}`;

beforeAll(async () => {
  e = await startE2E({
    connected: true,
    env: { PATREON_CURRENCY: 'EUR', KOFI_VERIFICATION_TOKEN: TOKEN },
    beforeStart: ({ patreon, discord, guildId }) => {
      patreon.updateCampaign(patreon.campaignId, { isMonthly: false });
      // A tier whose Discord role on Patreon is above the bot's: the Tiers page says why it is not given, and the fix.
      const vip = discord.guild(guildId).roles.find((r) => r.name === 'VIP')!.id;
      patreon.createTier(patreon.campaignId, { title: 'Lantern', amountCents: 2500, chatRoleIds: [vip] });
      // A tier whose Discord role can kick members: held back until the owner or an administrator allows it.
      const keepers = discord.createRole(guildId, { name: 'Keepers', permissions: Permission.KickMembers }).id;
      patreon.createTier(patreon.campaignId, { title: 'Keepers', amountCents: 5000, chatRoleIds: [keepers] });
    },
  });
  const kofi = createKofiStandIn({ webhookUrl: `${e.url}/webhooks/kofi`, verificationToken: TOKEN, clock: e.clock });
  await kofi.pay({ email: 'maria@example.com', fromName: 'María Fernández', tierName: KOFI });
  await kofi.pay({ type: 'Donation', email: 'tom@example.org', fromName: 'Tom', amount: '3.00' });
  // Ko-fi's payments are processed in the background; the server follows Ko-fi once a Ko-fi tier is mapped here.
  const coffee = e.discord.createRole(e.guildId, { name: KOFI }).id;
  const owner = { guildId: e.guildId, userId: e.ownerId };
  const deadline = Date.now() + 10_000;
  let mapped = await e.tierlink.services.admin.mapping.map(owner, `kofi:${KOFI}`, coffee);
  while (mapped.kind === 'unknown_tier' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    mapped = await e.tierlink.services.admin.mapping.map(owner, `kofi:${KOFI}`, coffee);
  }
  if (mapped.kind !== 'done') throw new Error(`mapping the Ko-fi tier: ${mapped.kind}`);
  await mapped.followUp;
  while (((await e.tierlink.services.dashboard.kofiUnlinked(e.guildId)) ?? []).length < 2) {
    if (Date.now() > deadline) throw new Error('the Ko-fi payments were not processed');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const patron = activePatron(e, 'Mira Okonkwo', [e.tiers.gold]);
  const mira = e.discord.addMember(e.guildId, { username: 'mira_ok', nick: 'Mira' }).userId;
  await e.link(mira, patron.id);
  // Gold given by hand to someone who is not a patron: strict mode would take it away.
  e.discord.addMember(e.guildId, { username: 'hank', roleIds: [e.roles.gold] });
  await e.tierlink.services.runSync({ guildId: e.guildId, dryRun: false, force: false, trigger: 'manual' });
  e.discord.createRole(e.guildId, { name: 'Supporters' });
  // Above VIP (which is above the bot's role): what is refused for VIP is the bot's refusal.
  const admins = e.discord.createRole(e.guildId, { name: 'Admins', position: 20, permissions: Permission.Administrator }).id;
  const guild = e.discord.guild(e.guildId);
  botRoleName = guild.roles.find((r) => r.id === guild.botRoleId)!.name;
  for (const locale of LOCALES) {
    const reader = e.discord.addMember(e.guildId, {
      username: `reader-${locale}`,
      locale: locale === 'en' ? 'en-US' : locale,
      roleIds: [admins],
    });
    const browser = (await signIn(e, reader.userId)).browser;
    readers.set(locale, browser);
    for (const [name, address] of [
      ['servers', '/dashboard'],
      ['tiers', path('/tiers')],
      ['members', path('/members')],
    ] as const) {
      pages.set(`${name} ${locale}`, await browser.get(address));
    }
    const tiers = pages.get(`tiers ${locale}`)!;
    pages.set(`strict ${locale}`, await browser.post(path('/settings'), { ...SETTINGS, strict: 'on' }, { csrfFrom: tiers.html }));
  }
}, 120_000);
afterAll(() => e?.stop());

/** Posts a form from a page; a change shown first is confirmed. Returns the page the browser lands on. */
async function submit(reader: DashboardBrowser, from: string, action: string, fields: Record<string, string>): Promise<string> {
  const form = await reader.get(path(from));
  let answer = await reader.post(path(action), fields, { csrfFrom: form.html });
  if (answer.status === 200 && answer.html.includes('/changes/confirm')) {
    const token = /name="token" value="([^"]+)"/.exec(answer.html)![1]!;
    answer = await reader.post(path('/changes/confirm'), { token }, { csrfFrom: answer.html });
  }
  expect(answer.status).toBe(303);
  return (await reader.follow(answer)).html;
}

describe.each(LOCALES)('in %s', (locale) => {
  const t = translator(locale);
  const page = (name: string) => pages.get(`${name} ${locale}`)!;
  /** A page in another language keeps no sentence of the English one (the server's own names aside). */
  const noEnglishLeft = (name: string, html: string, data: readonly string[] = []) => {
    if (locale === 'en') return;
    expect(englishIn(pageText(html))).toEqual([]);
    expect(englishLeftIn(pages.get(`${name} en`)!.html, html, data)).toEqual([]);
  };

  test('the Tiers and roles page speaks the reader’s language, prices as the campaign states them', () => {
    const { status, html } = page('tiers');
    expect(status).toBe(200);
    expect(html).toContain(`<html lang="${locale}"`);
    const text = pageText(html);
    for (const key of ['dashTier.tiers', 'dashTier.map', 'dashTier.rules', 'dashTier.saveSettings', 'dashTier.channelPermissions'] as const)
      expect(text).toContain(t(key));
    expect(text).toContain(t('dashTier.givesNone')); // Ko-fi's donation tier, mapped to nothing
    // A role held back for its permissions, and one the bot cannot give, said from their facts.
    expect(text).toContain(t('dashTier.heldBackWhy'));
    if (locale !== 'en') expect(text).toContain(t('dashTier.heldBack', { role: 'Keepers', count: 1, permissions: t('perm.Kick Members') }));
    expect(text).toContain(
      `VIP: ${t('refusal.aboveBot', { role: 'VIP', bot: botRoleName })} ${t('dashMem.fix')} ${t('refusal.aboveBotFix', { role: 'VIP', bot: botRoleName })}`,
    );
    const gold = priceText(GOLD, t);
    expect(gold).toMatch(/€/);
    if (locale === 'en') expect(gold).toBe('€10 per creation');
    // In the tier list and in the mapping menu: euros, per creation, never dollars a month.
    expect(html).toMatch(new RegExp(`<span class="item-title">Gold</span><span class="muted">${gold}`));
    expect(html).toContain(`>Gold (${gold})</option>`);
    expect(text).not.toMatch(/\$\d/);
    noEnglishLeft('tiers', html);
  });

  test('the strict-mode confirmation speaks the reader’s language', () => {
    const { status, html } = page('strict');
    expect(status).toBe(200);
    const text = pageText(html);
    expect(text).toContain(t('dashStrict.title'));
    expect(text).toContain(t('strict.removeFrom', { members: t('apply.members', { count: 1 }) }));
    expect(text).toContain(t('strict.button'));
    expect(text).toContain(t('dashStrict.keepOff'));
    noEnglishLeft('strict', html);
  });

  test('the Members page’s Ko-fi panel speaks the reader’s language', () => {
    const { status, html } = page('members');
    expect(status).toBe(200);
    const text = pageText(html);
    expect(text).toContain(t('dashKofi.title'));
    expect(text).toContain(t('dashKofi.membershipOf', { tier: KOFI }));
    expect(text).toContain(t('dashKofi.kind.Donation'));
    expect(html).toContain(`data-label="${t('dashKofi.lastPayment')}"`);
    noEnglishLeft('members', html);
  });

  test('the server list speaks the reader’s language', () => {
    const { status, html } = page('servers');
    expect(status).toBe(200);
    expect(pageText(html)).toContain(t('dashServers.title'));
    expect(pageText(html)).toContain(t('dashServers.choose'));
    noEnglishLeft('servers', html);
  });

  test('the messages after a form speak the reader’s language; a refusal is said from its facts', async () => {
    const reader = readers.get(locale)!;
    const seen: string[] = [];
    const after = async (from: string, action: string, fields: Record<string, string>) => {
      const html = await submit(reader, from, action, fields);
      seen.push(html);
      return pageText(html);
    };

    // Saved, and a value the form cannot read.
    expect(await after('/tiers', '/settings', { ...SETTINGS, grace_days: '5' })).toContain(t('dashFlash.saved'));
    expect(await after('/tiers', '/settings', { ...SETTINGS, grace_days: 'five' })).toContain(
      t('dashForm.whole', { field: t('dashForm.grace') }),
    );
    // A value the settings service refuses: said from its facts, not the service's English sentence.
    const { min, max } = SETTING_BOUNDS.graceDays;
    const outOfRange = await after('/tiers', '/settings', { ...SETTINGS, grace_days: '999' });
    expect(outOfRange).toContain(t('dashFlash.nothingChanged'));
    expect(outOfRange).toContain(
      locale === 'en'
        ? `grace_days must be a whole number from ${min} to ${max} (got 999)`
        : t('settingsSays.outOfRange', { option: 'grace_days', min, max, got: 999 }),
    );
    // A role the bot cannot give: the refusal's words from its facts (`refusal.*`).
    const tier = `${e.patreon.campaignId}:${e.tiers.gold}`;
    const vip = await after('/tiers', '/tiers/map', { tier, role: e.roles.vip });
    expect(vip).toContain(t('refusal.aboveBot', { role: 'VIP', bot: botRoleName }));
    expect(vip).toContain(t('refusal.aboveBotFix', { role: 'VIP', bot: botRoleName }));
    // A held-back role: the bot cannot give VIP at all; Keepers is allowed, by an administrator.
    expect(await after('/tiers', '/tiers/allow', { role: e.roles.vip })).toContain(
      t('refusal.aboveBot', { role: 'VIP', bot: botRoleName }),
    );
    const keepers = e.discord.guild(e.guildId).roles.find((r) => r.name === 'Keepers')!.id;
    expect(await after('/tiers', '/tiers/allow', { role: keepers })).toContain(
      t('dashFlash.allowed', {
        role: 'Keepers',
        permissions: t('perm.Kick Members'),
        recipients: t('allow.toPatrons', { tiers: 'Keepers' }),
      }),
    );
    await e.tierlink.services.admin.allowances.set({ guildId: e.guildId, userId: e.ownerId }, keepers, false); // for the next language
    // A mapping added and removed.
    const supporters = e.discord.guild(e.guildId).roles.find((r) => r.name === 'Supporters')!.id;
    expect(await after('/tiers', '/tiers/map', { tier, role: supporters })).toContain(
      t('dashFlash.mapped', { tier: 'Gold', role: 'Supporters' }),
    );
    expect(await after('/tiers', '/tiers/unmap', { tier, role: supporters })).toContain(
      t('dashFlash.unmapped', { tier: 'Gold', role: 'Supporters' }),
    );
    // Strict mode not confirmed.
    expect(await after('/tiers', '/settings/strict', { confirmation: 'x' })).toContain(t('dashFlash.strictTick'));
    // A form without the page's token: refused, in the reader's language.
    const forged = await reader.post(path('/settings'), { ...SETTINGS, _csrf: 'forged' });
    expect(forged.status).toBe(403);
    expect(pageText(forged.html)).toContain(t('dashServers.formExpiredWhy'));
    seen.push(forged.html);
    // Back to the defaults, for the next language.
    expect(await after('/tiers', '/settings', SETTINGS)).toContain(t('dashFlash.saved'));

    if (locale !== 'en') for (const html of seen) expect(englishIn(pageText(html))).toEqual([]);
  });
});
