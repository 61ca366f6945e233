import type { GuildAccess } from '../../../../app/dashboard/access';
import { checkDetail, checkFix, checkName } from '../../../../app/admin/doctor';
import type { Overview } from '../../../../app/dashboard/overview';
import type { SyncRun } from '../../../../app/dashboard/views';
import { ENGLISH, type MessageKey, type T, formatNumber, translator } from '../../../../core/i18n';
import { type SafeHtml, html, prose, safeHref } from '../pages/html';
import { localMoment } from '../pages/local-time';
import { richOf } from '../pages/speech';
import { icons } from '../pages/layout';
import { renderDayChart } from './chart';
import { type Viewer, cell, guildPath, panel, renderDashboard, when } from './shell';
import type { DashboardFlash } from './views';
import { momentIn } from './speech';

const STATUS_PILL: Record<string, string> = { ok: 'added', held: 'warn', failed: 'removed', running: 'kept', skipped: 'muted' };

const ENGLISH_T = translator('en');

/** A key of the catalogue, if the catalogue has it (a run's status or trigger Tierlink knows), else null. */
function known<K extends MessageKey>(key: string): K | null {
  return key in ENGLISH ? (key as K) : null;
}

/**
 * A moment, to the minute in UTC: "2026-11-09 04:00 UTC" in English, the language's own way
 * otherwise; the browser writes it again in the reader's time zone.
 */
export function whenFor(t: T, date: Date | null): SafeHtml | string {
  if (!date || t.locale === 'en') return when(date);
  // Numeric, as short as English's ("20.11.2026, 12:00"): it sits in a table cell that must not wrap on a phone.
  return localMoment(date, momentIn(t, date));
}

/** A day, as short as English's ISO day ("20.11.2026"): for table cells that must not wrap on a phone. */
export function dayFor(t: T, date: Date | null): string {
  if (!date) return '—';
  if (t.locale === 'en') return date.toISOString().slice(0, 10);
  return new Intl.DateTimeFormat(t.locale, { timeZone: 'UTC', year: 'numeric', month: '2-digit', day: '2-digit' }).format(date);
}

export function statusPill(run: Pick<SyncRun, 'status' | 'dryRun'>, t: T = ENGLISH_T): SafeHtml {
  const key = known<Extract<MessageKey, `dashOv.run.${string}`>>(`dashOv.run.${run.status}`);
  const status = key ? t(key) : run.status;
  return html`<span class="pill ${STATUS_PILL[run.status] ?? 'muted'}">${run.dryRun ? t('dashOv.dryRun', { status }) : status}</span>`;
}

export function triggerLabel(trigger: string, t: T = ENGLISH_T): string {
  if (trigger === 'cli') return 'npm run sync';
  const key = known<Extract<MessageKey, `dashOv.why.${string}`>>(`dashOv.why.${trigger}`);
  return key ? t(key) : trigger;
}

/** What a run changed, in one line: "12 given, 3 taken away, 25 held". */
export function runChanges(run: SyncRun, t: T = ENGLISH_T): string {
  const parts = run.dryRun
    ? [t('dashOv.changes.toGive', { count: run.plannedAdds }), t('dashOv.changes.toTake', { count: run.plannedRemoves })]
    : [t('dashOv.changes.given', { count: run.appliedAdds }), t('dashOv.changes.taken', { count: run.appliedRemoves })];
  if (run.heldRemovals > 0) parts.push(t('dashOv.changes.held', { count: run.heldRemovals }));
  if (run.failedChanges > 0) parts.push(t('dashOv.changes.failed', { count: run.failedChanges }));
  return parts.join(', ');
}

export function runsTable(runs: readonly SyncRun[], caption: string, t: T = ENGLISH_T): SafeHtml {
  if (runs.length === 0) return html`<p class="hint">${t('dashOv.noRuns')}</p>`;
  const [started, why, outcome, members, changes] = (['started', 'why', 'outcome', 'members', 'changes'] as const).map((c) =>
    t(`dashOv.col.${c}`),
  ) as [string, string, string, string, string];
  return html`<div class="table-wrap"><table class="data stacked"><caption class="visually-hidden">${caption}</caption>
<thead><tr><th scope="col">${started}</th><th scope="col">${why}</th><th scope="col">${outcome}</th><th scope="col">${members}</th><th scope="col">${changes}</th></tr></thead>
<tbody>${runs.map(
    (r) =>
      html`<tr>${cell(started, html`<span class="nowrap">${whenFor(t, r.startedAt)}</span>`)}${cell(why, triggerLabel(r.trigger, t))}${cell(
        outcome,
        html`${statusPill(r, t)}${r.errors[0] ? html`<br><span class="hint">${prose(r.errors[0])}</span>` : null}`,
      )}${cell(members, r.membersSeen > 0 ? formatNumber(t.locale, r.membersSeen) : '—', 'num')}${cell(changes, runChanges(r, t))}</tr>`,
  )}</tbody></table></div>`;
}

/** The key numbers: who the patrons are and what Tierlink does for them, each linking to its list. */
function keyNumbers(overview: Overview, guildId: string, t: T): SafeHtml {
  const m = overview.members;
  const key = (n: number, label: string, href: string) =>
    html`<a class="key" href="${href}"><strong>${formatNumber(t.locale, n)}</strong><span>${label}</span></a>`;
  const list = (filter: string) => `${guildPath(guildId, '/members')}?filter=${filter}`;
  const last = overview.lastSync;
  return html`<div class="keys">
${key(m.patrons, t('dashOv.key.patrons'), list('patrons'))}
${key(m.linked, t('dashOv.key.linked'), list('linked'))}
${key(m['not-linked'], t('dashOv.key.notLinked'), list('not-linked'))}
${key(m['not-in-server'], t('dashOv.key.notInServer'), list('not-in-server'))}
${key(m.grace, t('dashOv.key.grace'), list('grace'))}
${key(m.comped, t('dashOv.key.comped'), list('comped'))}
${key(overview.grants, t('dashOv.key.grants'), guildPath(guildId, '/tiers'))}
${key(last ? last.adds + last.removes : 0, last ? t('dashOv.key.lastSync', { adds: last.adds, removes: last.removes }) : t('dashOv.key.noSync'), guildPath(guildId, '/syncs'))}
</div>`;
}

export function renderOverview(o: { access: GuildAccess; viewer: Viewer; overview: Overview; flash: DashboardFlash | null }): string {
  const { overview, access } = o;
  // In the signed-in user's Discord language (the session's); the checks' own words are /doctor's, in English.
  const t = translator(o.viewer.locale ?? 'en');
  const rich = richOf(t);
  const problems = overview.checks.filter((c) => !c.ok);
  const connection =
    overview.campaigns.length === 0
      ? html`<p class="hint">${rich('dashOv.noCampaign')}</p>`
      : html`<ul class="list">${overview.campaigns.map((c) => {
          const href = safeHref(c.url);
          const hook = c.webhook.manualSecret
            ? html`<span class="pill kept">${t('dashOv.hookManual')}</span>`
            : !c.webhook.registered
              ? html`<span class="pill removed">${t('dashOv.hookNone')}</span>`
              : c.webhook.paused
                ? html`<span class="pill removed">${t('dashOv.hookPaused')}</span>`
                : c.webhook.failures > 0
                  ? html`<span class="pill warn">${t('dashOv.hookFailures', { count: c.webhook.failures })}</span>`
                  : html`<span class="pill added">${t('dashOv.hookOk')}</span>`;
          return html`<li class="item"><div class="item-head"><span class="item-title">${href ? html`<a href="${href}" rel="noopener noreferrer">${c.name}</a>` : c.name}</span>${hook}</div>
<p class="item-text">${richOf(t)('dashOv.hookChecked', { when: whenFor(t, c.webhook.checkedAt) })}</p></li>`;
        })}</ul>`;
  const checks = html`<ul class="list">${overview.checks.map(
    (
      c,
    ) => html`<li class="item"><div class="item-head"><span class="item-title">${checkName(t, c.name)}</span><span class="pill ${c.ok ? 'added' : 'removed'}">${c.ok ? t('dashOv.ok') : t('dashOv.problem')}</span></div>
<p class="item-text">${prose(checkDetail(t, c))}</p>${c.fix && !c.ok ? html`<p class="item-fix"><strong>${t('dashOv.fix')}</strong> ${prose(checkFix(t, c) ?? c.fix)}</p>` : null}</li>`,
  )}</ul>`;
  return renderDashboard({
    title: t('dashOv.title'),
    viewer: o.viewer,
    server: { id: access.guildId, name: access.guildName, tab: 'overview' },
    flash: o.flash,
    intro:
      problems.length === 0
        ? t('dashOv.allGood', { count: overview.grants })
        : `${t('dashOv.problems', { count: problems.length })} ${t('dashOv.holds', { count: overview.grants })}`,
    main: html`<div class="stack">
${panel({ id: 'numbers', title: t('dashOv.members'), hint: t('dashOv.membersHint'), body: keyNumbers(overview, access.guildId, t) })}
<div class="cols two">
${panel({ id: 'connection', title: t('dashOv.connection'), body: connection })}
${panel({ id: 'chart', title: t('dashOv.chart'), hint: t('dashOv.chartHint'), body: renderDayChart(overview.perDay, 'chart', t) })}
</div>
${panel({
  id: 'checks',
  title: problems.length > 0 ? t('dashOv.checksProblems') : t('dashOv.checks'),
  hint: rich('dashOv.checksHint'),
  body: checks,
})}
${panel({
  id: 'syncs',
  title: t('dashOv.lastSyncs'),
  body: html`${runsTable(overview.recentSyncs, t('dashOv.lastSyncsCaption'), t)}<p class="actions"><a href="${guildPath(access.guildId, '/syncs')}">${t('dashOv.allSyncs')}${icons.chevronRight}</a></p>`,
})}
</div>`,
  });
}
