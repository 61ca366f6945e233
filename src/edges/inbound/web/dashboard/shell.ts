import { type Locale, translator } from '../../../../core/i18n';
import { type HtmlValue, type SafeHtml, html, trustedHtml } from '../pages/html';
import { richOf } from '../pages/speech';
import { LOGO_SVG, renderHtmlDocument } from '../pages/document';
import { localMoment } from '../pages/local-time';
import { icons, type Tone } from '../pages/layout';
import type { DashboardFlash } from './views';
import { DASHBOARD_CONTENT_SECURITY_POLICY, DASHBOARD_STYLESHEET } from './styles';

/** The tabs of a server's dashboard, in order: their path below `/dashboard/<guild id>`. */
export const TABS = [
  { id: 'overview', label: 'dash.overview', path: '' },
  { id: 'tiers', label: 'dash.tiers', path: '/tiers' },
  { id: 'members', label: 'dash.members', path: '/members' },
  { id: 'audit', label: 'dash.audit', path: '/audit' },
  { id: 'syncs', label: 'dash.syncs', path: '/syncs' },
] as const;

export type TabId = (typeof TABS)[number]['id'];

/** Who is signed in, for the top bar (and the sign-out form's token). */
export interface Viewer {
  name: string;
  csrfToken: string;
  /** The language of the viewer's Discord client at sign-in: the frame (tabs, top bar, footer, `lang`) speaks it. */
  locale?: Locale;
}

export interface ShellOptions {
  title: string;
  viewer: Viewer | null;
  /** Nobody signed in (no Discord language known yet): the browser's language (src/edges/inbound/web/page-language.ts). */
  locale?: Locale;
  /** The server being managed, with the current tab; null on the pages outside a server. */
  server: { id: string; name: string; tab: TabId } | null;
  /** One line under the headline. */
  intro?: HtmlValue;
  flash?: DashboardFlash | null;
  main: HtmlValue;
}

const LOGO = trustedHtml(LOGO_SVG);

const FLASH_ICON: Record<Tone, SafeHtml> = { success: icons.check, warning: icons.alert, error: icons.cross, info: icons.info };

export const guildPath = (guildId: string, path = '') => `/dashboard/${guildId}${path}`;

/** The hidden field every form of the dashboard carries. */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

export function flashBox(flash: DashboardFlash): SafeHtml {
  const lines = flash.text.split('\n').filter((l) => l.trim() !== '');
  return html`<div class="flash tone-${flash.tone}" role="${flash.tone === 'error' ? 'alert' : 'status'}">${FLASH_ICON[flash.tone]}<div>${lines.map((l) => html`<p>${l}</p>`)}</div></div>`;
}

/** A titled panel; `id` names its heading for the landmark. */
export function panel(o: { id: string; title: string; hint?: HtmlValue; body: HtmlValue }): SafeHtml {
  return html`<section class="panel" aria-labelledby="${o.id}"><h2 id="${o.id}">${o.title}</h2>${o.hint ? html`<p class="hint">${o.hint}</p>` : null}${o.body}</section>`;
}

/** A complete dashboard document: skip link, top bar, tabs, the page's one `h1`, the content. */
export function renderDashboard(o: ShellOptions): string {
  const locale = o.viewer?.locale ?? o.locale ?? 'en';
  const t = translator(locale);
  const tabs = o.server
    ? html`<nav class="tabs" aria-label="${o.server.name}">${TABS.map(
        (tab) =>
          html`<a href="${guildPath(o.server!.id, tab.path)}"${tab.id === o.server!.tab ? trustedHtml(' aria-current="page"') : null}>${t(tab.label)}</a>`,
      )}</nav>`
    : null;
  const user = o.viewer
    ? html`<div class="topbar-user"><span>${richOf(t)('dash.signedInAs', { name: o.viewer.name })}</span>${
        o.server ? html`<a href="/dashboard">${t('dash.allServers')}</a>` : null
      }<form method="post" action="/dashboard/logout">${csrfField(o.viewer.csrfToken)}<button class="link-button" type="submit">${t('dash.signOut')}</button></form></div>`
    : null;
  return renderHtmlDocument({
    title: `${o.title}${o.server ? ` · ${o.server.name}` : ''}`,
    stylesheet: DASHBOARD_STYLESHEET,
    contentSecurityPolicy: DASHBOARD_CONTENT_SECURITY_POLICY,
    lang: locale,
    bodyClass: null,
    body: html`<a class="skip-link" href="#main">${t('dash.skip')}</a>
<div class="dash-shell">
<header class="topbar">
<a class="brand" href="/dashboard">${LOGO}<span>Tierlink</span></a>
${o.server ? html`<span class="topbar-server">${icons.server}<span><span class="visually-hidden">${t('dash.server')}: </span>${o.server.name}</span></span>` : null}
${user}
</header>
${tabs}
<main id="main" tabindex="-1"${o.server ? null : trustedHtml(' class="narrow standalone"')}>
<div class="page-head"><h1>${o.title}</h1>${o.intro ? html`<p>${o.intro}</p>` : null}</div>
${o.flash ? flashBox(o.flash) : null}
${o.main}
</main>
<footer class="foot"><p>${t('dash.footer')}</p></footer>
</div>`,
  });
}

/** A short date and time in UTC, the same for every reader: "2026-11-20 14:03 UTC". */
export function utcMinute(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A moment on a page: "2026-11-20 14:03 UTC", written again by the browser in the reader's time zone. */
export function when(date: Date | null): SafeHtml | string {
  return date ? localMoment(date, utcMinute(date)) : '—';
}

/** The labelled cell of a table that stacks on a phone. */
export function cell(label: string, content: HtmlValue, className?: string): SafeHtml {
  // One element inside: on a phone the cell is a grid of its label and this.
  return html`<td data-label="${label}"${className ? trustedHtml(` class="${className}"`) : null}><div>${content}</div></td>`;
}
