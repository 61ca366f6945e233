import type { GuildAccess } from '../../../../app/dashboard/access';
import type { AuditPage } from '../../../../app/dashboard/audit';
import { MAX_EXPORT_ROWS } from '../../../../app/dashboard/audit';
import type { RoleChoice } from '../../../../app/dashboard/configuration';
import { ACTIONS, OUTCOMES, TRIGGER_LABELS } from '../../../../app/dashboard/views';
import { html, trustedHtml } from '../pages/html';
import { auditTable } from './render-members';
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
  const select = (name: keyof AuditFilterForm, label: string, options: ReadonlyArray<{ value: string; label: string }>) =>
    html`<div class="field"><label for="f-${name}">${label}</label><select id="f-${name}" name="${name}"><option value="">Any</option>${options.map(
      (opt) => html`<option value="${opt.value}"${selected(filter[name] === opt.value)}>${opt.label}</option>`,
    )}</select></div>`;
  const form = html`<form class="fields" method="get" action="${path}">
<div class="cols filters">
<div class="field"><label for="f-member">Member (Discord id)</label><input type="text" id="f-member" name="member" value="${filter.member}" inputmode="numeric" pattern="[0-9]{17,20}" autocomplete="off"></div>
${select(
  'role',
  'Role',
  o.roles.map((r) => ({ value: r.id, label: r.name })),
)}
${select(
  'trigger',
  'Trigger',
  Object.entries(TRIGGER_LABELS).map(([value, label]) => ({ value, label })),
)}
${select(
  'outcome',
  'Outcome',
  OUTCOMES.map((value) => ({ value, label: value })),
)}
<div class="field"><label for="f-from">From</label><input type="date" id="f-from" name="from" value="${filter.from}"></div>
<div class="field"><label for="f-to">To (inclusive)</label><input type="date" id="f-to" name="to" value="${filter.to}"></div>
${select(
  'action',
  'Change',
  ACTIONS.map((value) => ({ value, label: value === 'add' ? 'given' : value === 'remove' ? 'taken away' : 'forgotten (already gone)' })),
)}
</div>
<div class="actions"><button class="btn" type="submit">Filter</button><a class="btn secondary" href="${path}">Clear</a><a class="btn secondary" href="${`${path}.csv${auditQueryString(filter)}`}" download>Export CSV</a></div>
</form>`;
  const pager = html`<nav class="pager" aria-label="Pages of the audit log">${
    page.newer
      ? html`<a class="btn secondary" href="${path}${auditQueryString(filter, { cursor: page.newer, dir: 'newer' })}">← Newer</a>`
      : html`<span></span>`
  }${page.older ? html`<a class="btn secondary" href="${path}${auditQueryString(filter, { cursor: page.older, dir: 'older' })}">Older →</a>` : null}</nav>`;
  return renderDashboard({
    title: 'Audit log',
    viewer: o.viewer,
    server: { id: access.guildId, name: access.guildName, tab: 'audit' },
    flash: o.problems.length ? { tone: 'warning', text: o.problems.join('\n') } : o.flash,
    intro: 'Every role change Tierlink made, attempted, held or could not make, newest first, with its reason.',
    main: html`<div class="stack">
${panel({ id: 'filters', title: 'Filter', hint: `Exports hold at most ${MAX_EXPORT_ROWS.toLocaleString('en-US')} rows; narrow the dates for more.`, body: form })}
${panel({ id: 'entries', title: 'Changes', body: html`${auditTable(page.entries, 'Role changes, newest first', true, access.guildId)}${pager}` })}
</div>`,
  });
}
