import type { GuildAccess } from '../../../../app/dashboard/access';
import type { AuditPage } from '../../../../app/dashboard/audit';
import { MAX_EXPORT_ROWS } from '../../../../app/dashboard/audit';
import type { RoleChoice } from '../../../../app/dashboard/configuration';
import { ACTIONS, OUTCOMES, TRIGGER_LABELS } from '../../../../app/dashboard/views';
import { formatNumber, translator } from '../../../../core/i18n';
import { html, trustedHtml } from '../pages/html';
import { auditTable, triggerWords } from './render-members';
import { type Viewer, guildPath, panel, renderDashboard } from './shell';
import type { DashboardFlash } from './views';

/** The audit log's filters as they appear in the URL (dates are `YYYY-MM-DD`, `to` inclusive). */
export interface AuditFilterForm {
  member: string;
  role: string;
  trigger: string;
  outcome: string;
  action: string;
  from: string;
  to: string;
}

const selected = (on: boolean) => (on ? trustedHtml(' selected') : null);

export function auditQueryString(filter: AuditFilterForm, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...filter, ...extra })) if (value) params.set(key, value);
  const text = params.toString();
  return text ? `?${text}` : '';
}

export function renderAudit(o: {
  access: GuildAccess;
  viewer: Viewer;
  filter: AuditFilterForm;
  roles: readonly RoleChoice[];
  page: AuditPage;
  problems: readonly string[];
  flash: DashboardFlash | null;
}): string {
  const { access, filter, page } = o;
  const path = guildPath(access.guildId, '/audit');
  // In the signed-in user's Discord language, as the Overview; the reasons are the planner's English.
  const t = translator(o.viewer.locale ?? 'en');
  const select = (name: keyof AuditFilterForm, label: string, options: ReadonlyArray<{ value: string; label: string }>) =>
    html`<div class="field"><label for="f-${name}">${label}</label><select id="f-${name}" name="${name}"><option value="">${t('dashAud.any')}</option>${options.map(
      (opt) => html`<option value="${opt.value}"${selected(filter[name] === opt.value)}>${opt.label}</option>`,
    )}</select></div>`;
  const form = html`<form class="fields" method="get" action="${path}">
<div class="cols filters">
<div class="field"><label for="f-member">${t('dashAud.member')}</label><input type="text" id="f-member" name="member" value="${filter.member}" inputmode="numeric" pattern="[0-9]{17,20}" autocomplete="off"></div>
${select(
  'role',
  t('dashAud.role'),
  o.roles.map((r) => ({ value: r.id, label: r.name })),
)}
${select(
  'trigger',
  t('dashAud.trigger'),
  Object.keys(TRIGGER_LABELS).map((value) => ({ value, label: triggerWords(value, t) })),
)}
${select(
  'outcome',
  t('dashMem.audit.outcome'),
  OUTCOMES.map((value) => ({ value, label: t(`dashMem.outcome.${value}`) })),
)}
<div class="field"><label for="f-from">${t('dashAud.from')}</label><input type="date" id="f-from" name="from" value="${filter.from}"></div>
<div class="field"><label for="f-to">${t('dashAud.to')}</label><input type="date" id="f-to" name="to" value="${filter.to}"></div>
${select(
  'action',
  t('dashMem.audit.change'),
  ACTIONS.map((value) => ({ value, label: t(`dashAud.action.${value}`) })),
)}
</div>
<div class="actions"><button class="btn" type="submit">${t('dashAud.filterButton')}</button><a class="btn secondary" href="${path}">${t('dashAud.clear')}</a><a class="btn secondary" href="${`${path}.csv${auditQueryString(filter)}`}" download>${t('dashAud.export')}</a></div>
</form>`;
  const pager = html`<nav class="pager" aria-label="${t('dashAud.pages')}">${
    page.newer
      ? html`<a class="btn secondary" href="${path}${auditQueryString(filter, { cursor: page.newer, dir: 'newer' })}">${t('dashAud.newer')}</a>`
      : html`<span></span>`
  }${page.older ? html`<a class="btn secondary" href="${path}${auditQueryString(filter, { cursor: page.older, dir: 'older' })}">${t('dashAud.older')}</a>` : null}</nav>`;
  return renderDashboard({
    title: t('dash.audit'),
    viewer: o.viewer,
    server: { id: access.guildId, name: access.guildName, tab: 'audit' },
    flash: o.problems.length ? { tone: 'warning', text: o.problems.join('\n') } : o.flash,
    intro: t('dashAud.intro'),
    main: html`<div class="stack">
${panel({ id: 'filters', title: t('dashAud.filterTitle'), hint: t('dashAud.exportHint', { rows: formatNumber(t.locale, MAX_EXPORT_ROWS) }), body: form })}
${panel({ id: 'entries', title: t('dashAud.changes'), body: html`${auditTable(page.entries, t('dashAud.caption'), true, access.guildId, true, t)}${pager}` })}
</div>`,
  });
}
