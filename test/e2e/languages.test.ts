import { Routes } from 'discord.js';
import { DISCORD_LOCALIZED, ENGLISH, LOCALES, type Locale, translator } from '../../src/core/i18n';
import { COMMANDS } from '../../src/edges/inbound/bot/commands';
import { commandTexts } from '../../src/edges/inbound/bot/command-localizations';
import { Browser } from '../support/browser';
import { type E2E, startE2E } from '../support/e2e';
import { runCommand } from '../support/e2e-admin';
import { englishIn } from '../support/english-leaks';
import { signIn } from '../support/dashboard-client';

/**
 * The member's language, end to end through both stand-ins: commands registered with their
 * descriptions in German, Spanish and Portuguese; `/link`, `/status`, `/unlink` and `/doctor`
 * answering in `interaction.locale`; the link and join pages in the language of the `/link` button
 * or of `Accept-Language`, with a switch; prices as the campaign states them (a campaign in euros
 * that charges per creation, PATREON_CURRENCY=EUR and Patreon's `is_monthly: false`).
 */

const ADMIN = 1n << 3n;
const OTHERS = LOCALES.filter((l): l is Exclude<Locale, 'en'> => l !== 'en');

let e: E2E;
beforeAll(async () => {
  e = await startE2E({
    connected: true,
    env: { PATREON_CURRENCY: 'EUR' },
    beforeStart: ({ patreon }) => patreon.updateCampaign(patreon.campaignId, { isMonthly: false }),
  });
  e.discord.registerRedirectUri(`${e.url}/join/callback`);
}, 60_000);
afterAll(() => e?.stop());

describe('registration', () => {
  type Option = {
    name: string;
    description: string;
    description_localizations?: Record<string, string> | null;
    options?: Option[];
    choices?: Array<{ name: string; name_localizations?: Record<string, string> }>;
  };

  test('every command, option and choice is registered with its German, Spanish and Portuguese', () => {
    const registered = e.discord.commands(e.guildId) as unknown as Option[];
    expect(registered).toHaveLength(COMMANDS.length);
    const missing: string[] = [];
    const check = (where: string, english: string, localized: Record<string, string> | null | undefined) => {
      for (const locale of DISCORD_LOCALIZED) {
        const text = localized?.[locale];
        // A name of one or two words (a service's name: "Patreon", "Ko-fi") may stay as it is.
        const untranslated = text === english && english.split(/\s+/).length > 2;
        if (!text || untranslated || text.length > 100) missing.push(`${where} in ${locale}: ${String(text)}`);
      }
    };
    const walk = (options: Option[] | undefined, parent: string) => {
      for (const o of options ?? []) {
        check(`${parent} ${o.name}`, o.description, o.description_localizations);
        for (const c of o.choices ?? []) check(`${parent} ${o.name} choice ${c.name}`, c.name, c.name_localizations);
        walk(o.options, `${parent} ${o.name}`);
      }
    };
    for (const command of registered) {
      check(`/${command.name}`, command.description, command.description_localizations);
      walk(command.options, `/${command.name}`);
    }
    expect(missing).toEqual([]);
    const link = registered.find((c) => c.name === 'link')!;
    expect(link.description_localizations).toEqual({
      de: 'Verknüpfe deine Patreon-Mitgliedschaft, um die Rollen deiner Stufe zu bekommen',
      'es-ES': 'Vincula tu membresía de Patreon para recibir los roles de tu nivel',
      'pt-BR': 'Vincule sua assinatura do Patreon para receber os cargos do seu nível',
    });
  });

  test('the catalogue’s English of each description is the code’s, so a changed description fails here until it is translated again', () => {
    const drift = COMMANDS.flatMap((c) => commandTexts(c.data)).filter(
      ({ key, english }) => (ENGLISH as Record<string, unknown>)[key] !== english,
    );
    expect(drift).toEqual([]);
  });

  test('the stand-in refuses a localization under a locale Discord does not have, as Discord does', async () => {
    const rest = e.tierlink.services.rest.rest;
    const body = [{ ...COMMANDS[0]!.data, description_localizations: { 'de-DE': 'Verknüpfen' } }];
    await expect(rest.put(Routes.applicationGuildCommands(e.config.discord.applicationId, e.guildId), { body })).rejects.toMatchObject({
      status: 400,
    });
    // Nothing was replaced.
    expect(e.discord.commands(e.guildId)).toHaveLength(COMMANDS.length);
  });
});

describe('replies in the member’s language', () => {
  test.each(OTHERS)('%s: /link, /status, /unlink and /doctor, with no English sentence in them', async (locale) => {
    const t = translator(locale);
    const member = e.discord.addMember(e.guildId, { username: `reader-${locale}` });
    const run = (name: string, permissions = 0n) =>
      runCommand(e, { userId: name === 'doctor' ? e.ownerId : member.userId, name, locale, memberPermissions: permissions }).reply();

    const link = await run('link');
    expect(link.content.split('\n').slice(0, 2)).toEqual([t('link.intro'), t('link.once', { minutes: 15 })]);
    expect(new URL(link.urls[0]!).searchParams.get('lang')).toBe(locale);
    expect((link.raw?.components as Array<{ components: Array<{ label: string }> }>)[0]!.components[0]!.label).toBe(t('link.button'));

    const status = await run('status');
    expect(status.content.split('\n')[0]).toBe(t('status.neverYou'));
    expect(status.content).toContain(t('status.missingYou'));

    const unlink = await run('unlink');
    expect(unlink.content).toBe([t('unlink.none'), t('unlink.again')].join('\n'));

    const doctor = await run('doctor', ADMIN);
    const first = doctor.content.split('\n')[0]!;
    expect([t('doctor.allGood'), ...[1, 2, 3, 4, 5, 6].map((count) => t('doctor.problems', { count }))]).toContain(first);
    if (first !== t('doctor.allGood')) expect(doctor.content).toContain(t('doctor.fix', { fix: '' }).trim());

    for (const reply of [link, status, unlink]) expect(englishIn(reply.content)).toEqual([]);
  });

  test('English stays the source, word for word', async () => {
    const member = e.discord.addMember(e.guildId, { username: 'reader-en' });
    const link = await runCommand(e, { userId: member.userId, name: 'link', locale: 'en-GB' }).reply();
    expect(link.content.split('\n')[0]).toBe('Link your Patreon membership to get your tier roles here.');
    expect(new URL(link.urls[0]!).searchParams.has('lang')).toBe(false);
    const french = await runCommand(e, { userId: member.userId, name: 'status', locale: 'fr' }).reply();
    expect(french.content).toMatch(/^\*\*Not linked\.\*\* Run \/link to link your Patreon membership\./);
  });

  test('/link for someone already linked names the Patreon account and says what linking again does', async () => {
    const user = e.patreon.createUser({ fullName: 'Grete Gold' });
    e.patreon.setMembership(
      user.id,
      e.patreon.campaignId,
      { patronStatus: 'active_patron', tierIds: [e.tiers.gold], lastChargeDate: e.clock.now(), lastChargeStatus: 'Paid' },
      { deliver: false },
    );
    const member = e.discord.addMember(e.guildId, { username: 'grete' });
    expect((await e.link(member.userId, user.id)).status).toBe(200);
    const again = await runCommand(e, { userId: member.userId, name: 'link', locale: 'de' }).reply();
    expect(again.content).toContain(translator('de')('link.already', { patron: 'Grete Gold' }));
    const english = await runCommand(e, { userId: member.userId, name: 'link' }).reply();
    expect(english.content).toContain(
      'You are already linked to the Patreon account **Grete Gold**. Linking again with another Patreon account moves',
    );
  });
});

describe('pages in the reader’s language', () => {
  const htmlLang = (html: string) => /<html lang="([^"]+)">/.exec(html)?.[1];

  test('the link flow follows the language of the /link button, to the result page', async () => {
    const t = translator('pt-BR');
    const user = e.patreon.createUser({ fullName: 'Paulo Prata' });
    e.patreon.setMembership(
      user.id,
      e.patreon.campaignId,
      { patronStatus: 'active_patron', tierIds: [e.tiers.silver], lastChargeDate: e.clock.now(), lastChargeStatus: 'Paid' },
      { deliver: false },
    );
    const member = e.discord.addMember(e.guildId, { username: 'paulo' });
    const reply = await runCommand(e, { userId: member.userId, name: 'link', locale: 'pt-BR' }).reply();
    const browser = new Browser();
    const step = await e.followToService(browser, reply.urls[0]!, member.userId);
    if (step.kind !== 'service') throw new Error(`the link stopped at ${step.status}`);
    const page = await browser.get(await e.patreon.approveAuthorization(step.url, user.id));
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(htmlLang(html)).toBe('pt-BR');
    expect(html).toContain(`<h1>${t('linkPage.headAllSet')}</h1>`);
    // Why the role is there: the tier, in Portuguese (capitalized as the row starts).
    expect(html).toContain('Nível Silver');
    expect(englishIn(html)).toEqual([]);

    // The spent button again: "already used", in Portuguese.
    const used = await browser.get(reply.urls[0]!);
    const usedHtml = await used.text();
    expect(used.status).toBe(410);
    expect(usedHtml).toContain(`<h1>${t('msg.usedTitle')}</h1>`);
  });

  test('the /connect flow follows the language of the /connect button, to the result page with prices as the campaign states them', async () => {
    const t = translator('de');
    const reply = await runCommand(e, { userId: e.ownerId, name: 'connect', locale: 'de', memberPermissions: ADMIN }).reply();
    expect(new URL(reply.urls[0]!).searchParams.get('lang')).toBe('de');
    const browser = new Browser();
    const step = await e.followToService(browser, reply.urls[0]!, e.ownerId);
    if (step.kind !== 'service') throw new Error(`the /connect link stopped at ${step.status}`);
    const page = await browser.get(await e.patreon.approveAuthorization(step.url, e.patreon.creatorUserId));
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(htmlLang(html)).toBe('de');
    const headline = /<h1>([^<]+)<\/h1>/.exec(html)?.[1];
    expect([t('connectPage.connected'), ...[1, 2, 3, 4, 5].map((count) => t('connectPage.connectedToFix', { count }))]).toContain(headline);
    expect(html).toContain(t('connectPage.tiers'));
    // The campaign in euros paid per creation (PATREON_CURRENCY=EUR, is_monthly false), in German.
    expect(html).toContain('5\u00a0€ pro Werk');
    expect(html).not.toContain('$');
    expect(englishIn(html)).toEqual([]);
  });

  test('the join page follows Accept-Language, offers the other languages, and prices as the campaign states them', async () => {
    const get = (path: string, headers: Record<string, string> = {}) => fetch(`${e.url}${path}`, { headers });
    const german = await get(`/join/${e.guildId}`, { 'accept-language': 'de-AT,de;q=0.9,en;q=0.5' });
    const html = await german.text();
    expect(german.headers.get('vary')).toMatch(/Accept-Language/);
    expect(htmlLang(html)).toBe('de');
    expect(html).toContain('5\u00a0€ pro Werk');
    expect(html).toContain('10\u00a0€ pro Werk');
    expect(html).not.toContain('$');
    for (const locale of LOCALES) expect(html).toContain(`href="/join/${e.guildId}?lang=${locale}" lang="${locale}"`);
    expect(html).toMatch(/aria-current="true">Deutsch</);
    expect(englishIn(html)).toEqual([]);

    const english = await (await get(`/join/${e.guildId}`)).text();
    expect(htmlLang(english)).toBe('en');
    expect(english).toContain('€5 per creation');

    // The switch: ?lang= wins over the browser, and is kept for the pages that follow.
    const switched = await get(`/join/${e.guildId}?lang=es-ES`, { 'accept-language': 'de' });
    const cookie = switched.headers.getSetCookie().find((c) => c.startsWith('tierlink_lang='));
    expect(cookie).toMatch(/^tierlink_lang=es-ES; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax/);
    expect(htmlLang(await switched.text())).toBe('es-ES');
    const kept = await get(`/join/${e.guildId}`, { 'accept-language': 'de', cookie: 'tierlink_lang=es-ES' });
    const keptHtml = await kept.text();
    expect(htmlLang(keptHtml)).toBe('es-ES');
    expect(keptHtml).toContain('5\u00a0€ por creación');

    // A language we do not speak, in the address or the cookie, is ignored.
    const bogus = await get(`/join/${e.guildId}?lang=xx`, { 'accept-language': 'pt-BR', cookie: 'tierlink_lang=<script>' });
    expect(bogus.headers.getSetCookie().some((c) => c.startsWith('tierlink_lang='))).toBe(false);
    expect(htmlLang(await bogus.text())).toBe('pt-BR');
  });

  test('a page that is not a join page answers in the reader’s language too', async () => {
    const res = await fetch(`${e.url}/join/no-such-page`, { headers: { 'accept-language': 'de' } });
    const html = await res.text();
    expect(res.status).toBe(404);
    expect(html).toContain(`<h1>${translator('de')('join.unknownTitle')}</h1>`);
    const nowhere = await (await fetch(`${e.url}/nowhere`, { headers: { 'accept-language': 'pt-BR' } })).text();
    expect(nowhere).toContain(`<h1>${translator('pt-BR')('app.notFoundTitle')}</h1>`);
  });
});

describe('the dashboard', () => {
  test('its frame (tabs, top bar, footer, lang) follows the signed-in user’s Discord language', async () => {
    const admins = e.discord.createRole(e.guildId, { name: 'Admins', permissions: ADMIN }).id;
    const german = e.discord.addMember(e.guildId, { username: 'greta', locale: 'de', roleIds: [admins] });
    const { landing } = await signIn(e, german.userId, `/dashboard/${e.guildId}`);
    expect(landing.status).toBe(200);
    expect(/<html lang="([^"]+)">/.exec(landing.html)?.[1]).toBe('de');
    for (const label of ['Übersicht', 'Stufen und Rollen', 'Mitglieder', 'Audit-Log', 'Abgleiche', 'Abmelden', 'Zum Inhalt springen']) {
      expect(landing.html).toContain(label);
    }
    expect(landing.html).toContain('Tierlink hält Discord-Rollen im Einklang mit Patreon-Stufen.');

    // The owner's client is in English: the same frame in English.
    const { landing: english } = await signIn(e, e.ownerId, `/dashboard/${e.guildId}`);
    expect(/<html lang="([^"]+)">/.exec(english.html)?.[1]).toBe('en');
    expect(english.html).toContain('>Tiers and roles</a>');
  });
});
