import { Permission } from '@tierlink/sandbox/discord';
import { type Locale, translator } from '../../src/core/i18n';
import { DEFAULT_SETTINGS_FORM, type DashboardBrowser, signIn } from '../support/dashboard-client';
import { type E2E, pageText, startE2E } from '../support/e2e';
import { activePatron } from '../support/e2e-admin';
import { englishIn } from '../support/english-leaks';

/**
 * The dashboard's Members page and a member's page in the signed-in user's Discord language (German,
 * Spanish and Portuguese: no English sentence of the catalogue left), and the server's language chosen on
 * the Tiers and roles page: saved with the page's token by someone allowed, refused otherwise.
 */

let e: E2E;
let mira: string;
const readers = new Map<Locale, DashboardBrowser>();
let owner: DashboardBrowser;
let moderator: DashboardBrowser;
let supporters: string;

beforeAll(async () => {
  e = await startE2E({ connected: true });
  const patron = activePatron(e, 'Mira Okonkwo', [e.tiers.gold]);
  mira = e.discord.addMember(e.guildId, { username: 'mira_ok', nick: 'Mira' }).userId;
  await e.link(mira, patron.id);
  await e.discord.waitForMemberRole(e.guildId, mira, e.roles.gold, { present: true });
  activePatron(e, 'Jonas Lindqvist', [e.tiers.silver]); // a patron who has not linked
  await e.tierlink.services.runSync({ guildId: e.guildId, dryRun: false, force: false, trigger: 'manual' });
  const admins = e.discord.createRole(e.guildId, { name: 'Admins', permissions: Permission.Administrator }).id;
  for (const locale of ['de', 'es-ES', 'pt-BR'] as const) {
    const reader = e.discord.addMember(e.guildId, { username: `reader-${locale}`, locale, roleIds: [admins] });
    readers.set(locale, (await signIn(e, reader.userId)).browser);
  }
  supporters = e.discord.createRole(e.guildId, { name: 'Supporters' }).id;
  ({ browser: owner } = await signIn(e, e.ownerId));
  const moderators = e.discord.createRole(e.guildId, { name: 'Moderators', position: 1, permissions: Permission.ManageRoles }).id;
  const mod = e.discord.addMember(e.guildId, { username: 'moderator', roleIds: [moderators] }).userId;
  ({ browser: moderator } = await signIn(e, mod));
}, 90_000);
afterAll(() => e?.stop());

const path = (p = '') => `/dashboard/${e.guildId}${p}`;

describe.each(['de', 'es-ES', 'pt-BR'] as const)('in %s', (locale) => {
  const t = translator(locale);

  test.each(['/members', '/members?filter=not-linked', '/members?q=mira', '/members/:mira', '/audit', '/syncs'])(
    '%s speaks the reader’s language',
    async (p) => {
      const page = await readers.get(locale)!.get(path(p.replace(':mira', mira)));
      expect(page.status).toBe(200);
      expect(page.html).toContain(`<html lang="${locale}"`);
      const text = pageText(page.html);
      expect(englishIn(text)).toEqual([]);
      if (p === '/audit') {
        expect(text).toContain(t('dashAud.intro'));
        expect(text).toContain(t('dashAud.action.forget'));
        expect(text).toContain(`${t('dashMem.verb.add')} @Gold`);
      } else if (p === '/syncs') {
        expect(text).toContain(t('dashSync.intro'));
        expect(text).toContain(t('dashSync.history'));
      } else if (p.startsWith('/members/')) {
        expect(text).toContain(t('dashMem.linkTitle'));
        expect(text).toContain(t('dashMem.given'));
        expect(text).toContain(t('dashMem.linked'));
      } else {
        expect(text).toContain(t('dashMem.intro'));
        expect(text).toContain(t('dashMem.filter.not-in-server'));
        expect(text).toContain(t('dashMem.csv'));
      }
    },
  );

  test('the Overview says /doctor’s details in the reader’s language: a role above the bot, a role held back', async () => {
    const silver = e.discord.guild(e.guildId).roles.find((r) => r.id === e.roles.silver)!;
    e.discord.updateRole(e.guildId, e.roles.gold, { position: 20 });
    e.discord.updateRole(e.guildId, e.roles.silver, { permissions: BigInt(silver.permissions) | Permission.BanMembers });
    e.tierlink.services.dashboard.overview.invalidate(e.guildId);
    try {
      const page = await readers.get(locale)!.get(path());
      expect(page.status).toBe(200);
      const text = pageText(page.html);
      expect(text).toContain(t('refusal.aboveBot', { role: 'Gold', bot: 'Tierlink' }));
      expect(text).toContain(t('perm.Ban Members'));
      expect(englishIn(text)).toEqual([]);
    } finally {
      e.discord.updateRole(e.guildId, e.roles.gold, { position: 2 });
      e.discord.updateRole(e.guildId, e.roles.silver, { permissions: BigInt(silver.permissions) });
      e.tierlink.services.dashboard.overview.invalidate(e.guildId);
    }
  });

  test('a sync’s preview speaks the reader’s language', async () => {
    const reader = readers.get(locale)!;
    const syncs = await reader.get(path('/syncs'));
    const preview = await reader.post(path('/syncs/preview'), {}, { csrfFrom: syncs.html });
    expect(preview.status).toBe(200);
    const text = pageText(preview.html);
    expect(text).toContain(t('dashSync.previewTitle'));
    expect(englishIn(text)).toEqual([]);
  });

  test('a mapping shown before it is made speaks the reader’s language; cancelled, nothing changes', async () => {
    const reader = readers.get(locale)!;
    const tiers = await reader.get(path('/tiers'));
    const tier = `${e.patreon.campaignId}:${e.tiers.gold}`;
    const shown = await reader.post(path('/tiers/map'), { tier, role: supporters }, { csrfFrom: tiers.html });
    expect(shown.status).toBe(200);
    const text = pageText(shown.html);
    expect(text).toContain(t('dashPrev.title'));
    expect(text).toContain(t('dashPrev.wouldGive', { tier: 'Gold', role: '@Supporters' }));
    expect(text).toContain(t('dashPrev.gives', { count: 1, role: '\u0000' }).split('\u0000')[0]!.trim());
    expect(englishIn(text)).toEqual([]);
    const token = /name="token" value="([^"]+)"/.exec(shown.html)![1]!;
    await reader.post(path('/changes/cancel'), { token }, { csrfFrom: shown.html });
    expect(e.discord.memberRoles(e.guildId, mira)).not.toContain(supporters);
  });

  test('the members list writes its counts and days the language’s way', async () => {
    const page = await readers.get(locale)!.get(path('/members?filter=linked'));
    const text = pageText(page.html);
    expect(text).toContain(t('dashMem.col.since'));
    // The day a patron began, in its cell: "28.11.2026" in German, "28/11/2026" in Portuguese; never the ISO day.
    const since = new RegExp(`data-label="${t('dashMem.col.since')}"><div><span class="nowrap">([^<]+)<`).exec(page.html)?.[1];
    expect(since).toMatch(locale === 'de' ? /^\d{2}\.\d{2}\.\d{4}$/ : /^\d{2}\/\d{2}\/\d{4}$/);
    expect(page.html).toContain(`<strong>${new Intl.NumberFormat(locale).format(1)}</strong>`);
  });
});

describe('the server’s language', () => {
  /** The settings form as the Tiers and roles page sends it (the defaults), with a language. */
  const form = (language: string) => ({ ...DEFAULT_SETTINGS_FORM, server_language: language });
  const stored = () => e.tierlink.services.repos.guilds.locale(e.guildId);

  test('the Tiers and roles page offers Discord’s language and the four', async () => {
    const page = await readers.get('de')!.get(path('/tiers'));
    expect(page.status).toBe(200);
    const t = translator('de');
    expect(page.html).toContain(t('dashLang.label'));
    expect(page.html).toContain('<option value="discord" selected>');
    for (const name of ['English', 'Deutsch', 'Español', 'Português (Brasil)']) expect(page.html).toContain(`>${name}</option>`);
  });

  test('refused without the page’s token: nothing changes', async () => {
    const tiers = await owner.get(path('/tiers'));
    expect(tiers.status).toBe(200);
    const answer = await owner.post(path('/settings'), { ...form('de'), _csrf: 'forged' });
    expect(answer.status).toBe(403);
    expect(await stored()).toBe('en');
  });

  test('refused to someone with Manage Roles but not Manage Server: nothing changes', async () => {
    const tiers = await moderator.get(path('/tiers'));
    const answer = await moderator.follow(await moderator.post(path('/settings'), form('de'), { csrfFrom: tiers.html }));
    expect(pageText(answer.html)).toContain('Nothing was changed');
    expect(pageText(answer.html)).toContain('the server’s language needs the Manage Server permission');
    expect(await stored()).toBe('en');
  });

  test('the owner chooses German, then Discord’s again; what the server sees follows', async () => {
    let tiers = await owner.get(path('/tiers'));
    let answer = await owner.follow(await owner.post(path('/settings'), form('de'), { csrfFrom: tiers.html }));
    expect(pageText(answer.html)).toContain('Settings saved.');
    expect(await stored()).toBe('de');
    expect(answer.html).toContain('<option value="de" lang="de" selected>Deutsch</option>');

    tiers = await owner.get(path('/tiers'));
    answer = await owner.follow(await owner.post(path('/settings'), form('klingon'), { csrfFrom: tiers.html }));
    expect(pageText(answer.html)).toContain('Choose the server’s language.');
    expect(await stored()).toBe('de');

    answer = await owner.follow(await owner.post(path('/settings'), form('discord'), { csrfFrom: answer.html }));
    expect(pageText(answer.html)).toContain('Settings saved.');
    expect(await stored()).toBe('en');
  });
});

describe.each(['de', 'es-ES', 'pt-BR'] as const)('before sign-in, in %s (the browser’s language)', (locale) => {
  const t = translator(locale);
  const asBrowser = (p: string, init: RequestInit = {}) =>
    fetch(`${e.url}${p}`, { ...init, redirect: 'manual', headers: { 'accept-language': `${locale},en;q=0.5`, ...(init.headers ?? {}) } });

  test('the sign-in page speaks the browser’s language', async () => {
    const page = await asBrowser('/dashboard');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`lang="${locale}"`);
    const text = pageText(html);
    expect(text).toContain(t('dashSignIn.title'));
    expect(text).toContain(t('dashSignIn.withDiscord'));
    expect(englishIn(text)).toEqual([]);
    // A server's page asked for while signed out: the same page, with the way back to it.
    const guarded = await asBrowser(path('/members'));
    expect(guarded.status).toBe(401);
    expect(pageText(await guarded.text())).toContain(t('dashSignIn.title'));
  });

  test('a sign-in that was not started in this browser, and a form sent after the sign-in ended, say so in the browser’s language', async () => {
    const expired = await asBrowser('/dashboard/callback?code=x&state=forged');
    expect(expired.status).toBe(400);
    const expiredText = pageText(await expired.text());
    expect(expiredText).toContain(t('dashSignIn.expiredWhy'));
    expect(englishIn(expiredText)).toEqual([]);

    const form = await asBrowser(path('/settings'), {
      method: 'POST',
      body: new URLSearchParams({ grace_days: '3' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(401);
    const formText = pageText(await form.text());
    expect(formText).toContain(t('dashSignIn.endedWhy'));
    expect(englishIn(formText)).toEqual([]);
  });
});
