import type { ServerChoice } from '../../../../app/dashboard/access';
import type { Locale, T } from '../../../../core/i18n';
import { html } from '../pages/html';
import { icons } from '../pages/layout';
import { type Viewer, flashBox, guildPath, panel, renderDashboard } from './shell';
import { viewerT } from './speech';
import type { DashboardFlash } from './views';

/** The page before signing in, in the browser's language (no Discord language is known yet): what the dashboard is and the one button. */
export function renderSignIn(o: { next: string; t: T; flash?: DashboardFlash | null }): string {
  const { t } = o;
  const href = `/dashboard/login${o.next !== '/dashboard' ? `?next=${encodeURIComponent(o.next)}` : ''}`;
  return renderDashboard({
    title: t('dashSignIn.title'),
    viewer: null,
    locale: t.locale,
    server: null,
    flash: o.flash ?? null,
    intro: t('dashSignIn.intro'),
    main: html`<div class="stack">${panel({
      id: 'sign-in',
      title: t('dashSignIn.withDiscord'),
      hint: t('dashSignIn.hint'),
      body: html`<p class="actions"><a class="btn" href="${href}">${t('dashSignIn.withDiscord')}${icons.arrowRight}</a></p>`,
    })}</div>`,
  });
}

/** The server menu after signing in, in the signed-in user's Discord language. */
export function renderServers(o: { viewer: Viewer; servers: readonly ServerChoice[]; flash?: DashboardFlash | null }): string {
  const t = viewerT(o.viewer);
  const allowed = o.servers.filter((s) => s.allowed);
  const refused = o.servers.filter((s) => !s.allowed);
  const mark = (name: string) => [...name.trim()][0]?.toUpperCase() ?? '?';
  const list =
    o.servers.length === 0
      ? html`<p class="hint">${t('dashServers.none')}</p>`
      : html`<ul class="servers">${allowed.map(
          (s) =>
            html`<li><a class="server" href="${guildPath(s.guildId)}"><span class="server-mark" aria-hidden="true">${mark(s.name)}</span><span>${s.name}</span>${icons.chevronRight}</a></li>`,
        )}${refused.map(
          (s) =>
            html`<li class="server off"><span class="server-mark" aria-hidden="true">${mark(s.name)}</span><span>${s.name}<br><span class="hint">${t('dashServers.needs')}</span></span></li>`,
        )}</ul>`;
  return renderDashboard({
    title: t('dashServers.title'),
    viewer: o.viewer,
    server: null,
    flash: o.flash ?? null,
    intro: t('dashServers.intro'),
    main: html`<div class="stack">${panel({
      id: 'servers',
      title: allowed.length > 0 ? t('dashServers.choose') : t('dashServers.noneToManage'),
      body: list,
    })}</div>`,
  });
}

/** A page with one message (refused, unknown server, Discord unavailable, a failed sign-in). */
export function renderNotice(o: {
  title: string;
  viewer: Viewer | null;
  /** Without a viewer: the browser's language. */
  locale?: Locale;
  tone: DashboardFlash['tone'];
  lines: readonly string[];
  action?: { label: string; href: string } | null;
}): string {
  return renderDashboard({
    title: o.title,
    viewer: o.viewer,
    ...(o.locale ? { locale: o.locale } : {}),
    server: null,
    main: html`<div><section class="panel" aria-label="${o.title}">${flashBox({ tone: o.tone, text: o.lines.join('\n') })}${
      o.action ? html`<p class="actions"><a class="btn secondary" href="${o.action.href}">${o.action.label}</a></p>` : null
    }</section></div>`,
  });
}
