import type { ServerChoice } from '../../../../app/dashboard/access';
import { html } from '../pages/html';
import { icons } from '../pages/layout';
import { type Viewer, flashBox, guildPath, panel, renderDashboard } from './shell';
import { viewerT } from './speech';
import type { DashboardFlash } from './views';

/** The page before signing in: what the dashboard is and the one button. */
export function renderSignIn(o: { next: string; flash?: DashboardFlash | null }): string {
  const href = `/dashboard/login${o.next !== '/dashboard' ? `?next=${encodeURIComponent(o.next)}` : ''}`;
  return renderDashboard({
    title: 'Sign in to the dashboard',
    viewer: null,
    server: null,
    flash: o.flash ?? null,
    intro: 'For the people who run a server with Tierlink: its tiers and roles, every member, every change and every sync.',
    main: html`<div class="stack">${panel({
      id: 'sign-in',
      title: 'Sign in with Discord',
      hint: 'Discord tells Tierlink who you are and which servers you are in. You can open a server’s dashboard if you have the Manage Server or Manage Roles permission there. Tierlink keeps no Discord password or token.',
      body: html`<p class="actions"><a class="btn" href="${href}">Sign in with Discord${icons.arrowRight}</a></p>`,
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
  tone: DashboardFlash['tone'];
  lines: readonly string[];
  action?: { label: string; href: string } | null;
}): string {
  return renderDashboard({
    title: o.title,
    viewer: o.viewer,
    server: null,
    main: html`<div><section class="panel" aria-label="${o.title}">${flashBox({ tone: o.tone, text: o.lines.join('\n') })}${
      o.action ? html`<p class="actions"><a class="btn secondary" href="${o.action.href}">${o.action.label}</a></p>` : null
    }</section></div>`,
  });
}
