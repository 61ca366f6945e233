import type { GuildAccess } from '../../../../app/dashboard/access';
import type { Overview } from '../../../../app/dashboard/overview';
import type { SyncRun } from '../../../../app/dashboard/views';
import { type SafeHtml, html, plural, prose, safeHref } from '../pages/html';
import { icons } from '../pages/layout';
import { renderDayChart } from './chart';
import { type Viewer, cell, guildPath, panel, renderDashboard, when } from './shell';
import type { DashboardFlash } from './views';

const STATUS_PILL: Record<string, string> = { ok: 'added', held: 'warn', failed: 'removed', running: 'kept', skipped: 'muted' };

export function statusPill(run: Pick<SyncRun, 'status' | 'dryRun'>): SafeHtml {
  return html`<span class="pill ${STATUS_PILL[run.status] ?? 'muted'}">${run.dryRun ? `dry run · ${run.status}` : run.status}</span>`;
}

export function triggerLabel(trigger: string): string {
  const labels: Record<string, string> = {
    schedule: 'nightly',
    manual: 'on demand',
    cli: 'npm run sync',
    'webhook-heal': 'webhook heal',
    map: 'mapping change',
    settings: 'settings change',
  };
  return labels[trigger] ?? trigger;
}

/** What a run changed, in one line: "12 given, 3 taken away, 25 held". */
export function runChanges(run: SyncRun): string {
  const parts = run.dryRun
    ? [`${run.plannedAdds} to give`, `${run.plannedRemoves} to take away`]
    : [`${run.appliedAdds} given`, `${run.appliedRemoves} taken away`];
  if (run.heldRemovals > 0) parts.push(`${run.heldRemovals} held`);
  if (run.failedChanges > 0) parts.push(`${run.failedChanges} failed`);
  return parts.join(', ');
}

export function runsTable(runs: readonly SyncRun[], caption: string): SafeHtml {
  if (runs.length === 0) return html`<p class="hint">No sync has run in this server yet.</p>`;
  return html`<div class="table-wrap"><table class="data stacked"><caption class="visually-hidden">${caption}</caption>
<thead><tr><th scope="col">Started</th><th scope="col">Why</th><th scope="col">Outcome</th><th scope="col">Members</th><th scope="col">Changes</th></tr></thead>
<tbody>${runs.map(
    (r) =>
      html`<tr>${cell('Started', html`<span class="nowrap">${when(r.startedAt)}</span>`)}${cell('Why', triggerLabel(r.trigger))}${cell(
        'Outcome',
        html`${statusPill(r)}${r.errors[0] ? html`<br><span class="hint">${prose(r.errors[0])}</span>` : null}`,
      )}${cell('Members', r.membersSeen > 0 ? r.membersSeen.toLocaleString('en-US') : '—', 'num')}${cell('Changes', runChanges(r))}</tr>`,
  )}</tbody></table></div>`;
}

/** The key numbers: who the patrons are and what Tierlink does for them, each linking to its list. */
function keyNumbers(overview: Overview, guildId: string): SafeHtml {
  const m = overview.members;
  const key = (n: number, label: string, href: string) =>
    html`<a class="key" href="${href}"><strong>${n.toLocaleString('en-US')}</strong><span>${label}</span></a>`;
  const list = (filter: string) => `${guildPath(guildId, '/members')}?filter=${filter}`;
  const last = overview.lastSync;
  return html`<div class="keys">
${key(m.patrons, 'patrons', list('patrons'))}
${key(m.linked, 'linked', list('linked'))}
${key(m['not-linked'], 'not linked', list('not-linked'))}
${key(m['not-in-server'], 'not in the server', list('not-in-server'))}
${key(m.grace, 'in grace', list('grace'))}
${key(m.comped, 'comped', list('comped'))}
${key(overview.grants, 'roles Tierlink holds', guildPath(guildId, '/tiers'))}
${key(last ? last.adds + last.removes : 0, last ? `role changes in the last sync (${plural(last.adds, 'given', 'given')}, ${last.removes.toLocaleString('en-US')} taken away)` : 'role changes: no sync yet', guildPath(guildId, '/syncs'))}
</div>`;
}

export function renderOverview(o: { access: GuildAccess; viewer: Viewer; overview: Overview; flash: DashboardFlash | null }): string {
  const { overview, access } = o;
  const problems = overview.checks.filter((c) => !c.ok);
  const connection =
    overview.campaigns.length === 0
      ? html`<p class="hint">No Patreon campaign is connected to this server. Run <code>/connect</code> in Discord and sign in as the creator.</p>`
      : html`<ul class="list">${overview.campaigns.map((c) => {
          const href = safeHref(c.url);
          const hook = c.webhook.manualSecret
            ? html`<span class="pill kept">webhook set by hand</span>`
            : !c.webhook.registered
              ? html`<span class="pill removed">no webhook</span>`
              : c.webhook.paused
                ? html`<span class="pill removed">webhook paused</span>`
                : c.webhook.failures > 0
                  ? html`<span class="pill warn">${plural(c.webhook.failures, 'failed delivery', 'failed deliveries')}</span>`
                  : html`<span class="pill added">webhook delivering</span>`;
          return html`<li class="item"><div class="item-head"><span class="item-title">${href ? html`<a href="${href}" rel="noopener noreferrer">${c.name}</a>` : c.name}</span>${hook}</div>
<p class="item-text">webhook last checked ${when(c.webhook.checkedAt)}</p></li>`;
        })}</ul>`;
  const checks = html`<ul class="list">${overview.checks.map(
    (
      c,
    ) => html`<li class="item"><div class="item-head"><span class="item-title">${c.name}</span><span class="pill ${c.ok ? 'added' : 'removed'}">${c.ok ? 'ok' : 'problem'}</span></div>
<p class="item-text">${prose(c.detail)}</p>${c.fix && !c.ok ? html`<p class="item-fix"><strong>Fix:</strong> ${prose(c.fix)}</p>` : null}</li>`,
  )}</ul>`;
  return renderDashboard({
    title: 'Overview',
    viewer: o.viewer,
    server: { id: access.guildId, name: access.guildName, tab: 'overview' },
    flash: o.flash,
    intro:
      problems.length === 0
        ? `Everything Tierlink needs is in place. It holds ${plural(overview.grants, 'role')} in this server.`
        : `${plural(problems.length, 'problem')} to fix. Tierlink holds ${plural(overview.grants, 'role')} in this server.`,
    main: html`<div class="stack">
${panel({ id: 'numbers', title: 'Members', hint: 'Counted from what Tierlink knows now; each number opens its list.', body: keyNumbers(overview, access.guildId) })}
<div class="cols two">
${panel({ id: 'connection', title: 'Patreon connection', body: connection })}
${panel({ id: 'chart', title: 'Role changes per day', hint: 'Roles Tierlink gave and took away in the last 14 days (UTC).', body: renderDayChart(overview.perDay, 'chart') })}
</div>
${panel({
  id: 'checks',
  title: problems.length > 0 ? 'Problems and their fixes' : 'Checks',
  hint: html`What <code>/doctor</code> checks: permissions, role positions, intents, the Patreon connection, the webhook and the last sync.`,
  body: checks,
})}
${panel({
  id: 'syncs',
  title: 'Last syncs',
  body: html`${runsTable(overview.recentSyncs, 'The last five syncs')}<p class="actions"><a href="${guildPath(access.guildId, '/syncs')}">All syncs${icons.chevronRight}</a></p>`,
})}
</div>`,
  });
}
