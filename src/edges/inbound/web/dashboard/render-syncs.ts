import type { GuildAccess } from '../../../../app/dashboard/access';
import type { HeldRemovals } from '../../../../app/dashboard/syncs';
import type { SyncRun } from '../../../../app/dashboard/views';
import type { GuildSyncReport, HeldWhy } from '../../../../core/sync-report';
import { heldReasonText, reasonText } from '../../../../core/reason-text';
import { type SafeHtml, html, prose, trustedHtml } from '../pages/html';
import { richOf } from '../pages/speech';
import { type T, translator } from '../../../../core/i18n';
import { mention } from '../pages/layout';
import { runsTable, whenFor } from './render-overview';
import { auditTable } from './render-members';
import { type Viewer, cell, csrfField, guildPath, panel, renderDashboard } from './shell';
import type { DashboardFlash } from './views';
import type { DeliveryEntry } from '../../../../app/dashboard/deliveries';
import { deliveriesPanel } from './render-deliveries';

/** Planned changes listed in a preview (the counts cover them all). */
export const MAX_PREVIEW_CHANGES = 200;

const disabled = (off: boolean) => (off ? trustedHtml(' disabled') : null);

/** The guard's reason without its closing advice ("; run /sync force:true …"): the page offers a button instead. */
export function heldReason(reason: string | null): string {
  return (reason ?? 'more than this server’s guard allows').replace(/; run \/sync force:true.*$/s, '');
}

/** {@link heldReason} in the reader's language: from the run's facts where they were recorded, as recorded otherwise. */
export function heldReasonOnPage(t: T, held: { reason: string | null; why?: HeldWhy | null }): string {
  return held.why && held.reason !== null
    ? heldReasonText(t, { reason: heldReason(held.reason), why: held.why }, { advice: false })
    : heldReason(held.reason);
}

function applyForm(access: GuildAccess, viewer: Viewer, o: { force: boolean; label: string; confirm?: string }): SafeHtml {
  return html`<form class="fields" method="post" action="${guildPath(access.guildId, '/syncs/apply')}">${csrfField(viewer.csrfToken)}<input type="hidden" name="force" value="${o.force ? '1' : '0'}">${
    o.confirm
      ? html`<label class="check"><input type="checkbox" name="confirm" value="yes" required${disabled(!access.canChange)}> ${o.confirm}</label>`
      : null
  }<div class="actions"><button class="btn${o.force ? ' danger' : ''}" type="submit"${disabled(!access.canChange)}>${o.label}</button></div></form>`;
}

function previewPanel(access: GuildAccess, viewer: Viewer, report: GuildSyncReport, t: T): SafeHtml {
  const [member, change, why] = [t('dashMem.col.member'), t('dashMem.audit.change'), t('dashMem.audit.why')];
  const p = report.planned;
  const shown = report.changes.slice(0, MAX_PREVIEW_CHANGES);
  const rows = shown.length
    ? html`<div class="table-wrap"><table class="data stacked"><caption class="visually-hidden">${t('dashSync.plannedCaption')}</caption>
<thead><tr><th scope="col">${member}</th><th scope="col">${change}</th><th scope="col">${why}</th></tr></thead><tbody>${shown.map(
        (c) =>
          html`<tr>${cell(member, html`<a href="${guildPath(access.guildId, `/members/${c.userId}`)}">${c.username ?? c.userId}</a>`)}${cell(
            change,
            html`${t(c.op === 'add' ? 'dashSync.op.add' : c.op === 'remove' ? 'dashSync.op.remove' : 'dashSync.op.forget')} ${c.roleName ? mention(c.roleName) : c.roleId}${
              c.outcome === 'blocked' ? html` <span class="pill muted">${t('dashMem.outcome.blocked')}</span>` : null
            }`,
          )}${cell(why, html`${prose(reasonText(t, c))}${c.problem ? html`<br><span class="hint">${prose(c.problem)}</span>` : null}`)}</tr>`,
      )}</tbody></table></div>${
        report.changes.length > shown.length
          ? html`<p class="hint">${t('dashSync.more', { count: report.changes.length - shown.length })}</p>`
          : null
      }`
    : html`<p class="hint">${t('dashSync.nothing')}</p>`;
  const counts = {
    members: t('dashSync.linkedMembers', { count: report.linkedMembers }),
    adds: p.adds,
    removes: p.removes,
    forgets: p.forgets,
  };
  const summary = p.blocked ? t('dashSync.summaryBlocked', { ...counts, blocked: p.blocked }) : t('dashSync.summary', counts);
  return panel({
    id: 'preview',
    title: t('dashSync.previewTitle'),
    hint: summary,
    body: html`${report.held ? html`<p class="item-fix"><strong>${t('dashSync.guardWould', { count: report.held.removals })}</strong> ${prose(heldReasonOnPage(t, report.held))}.</p>` : null}${rows}
${
  p.adds + p.removes + p.forgets > 0
    ? report.held
      ? applyForm(access, viewer, {
          force: true,
          label: t('dashSync.syncAll'),
          confirm: t('dashSync.confirmAll', { count: report.held.removals }),
        })
      : applyForm(access, viewer, { force: false, label: t('dashSync.syncNow') })
    : null
}`,
  });
}

function heldPanel(access: GuildAccess, viewer: Viewer, held: HeldRemovals, t: T): SafeHtml {
  return panel({
    id: 'held',
    title: t('dashSync.heldTitle', { count: held.run.heldRemovals }),
    hint: richOf(t)('dashSync.heldHint', {
      when: whenFor(t, held.run.startedAt),
      reason: prose(heldReasonOnPage(t, { reason: held.run.heldReason, why: held.run.heldWhy })),
    }),
    body: html`${auditTable(held.removals, t('dashSync.heldCaption'), true, access.guildId, false, t)}${
      held.more ? html`<p class="hint">${t('dashSync.onlyFirst', { count: held.removals.length })}</p>` : null
    }${applyForm(access, viewer, { force: true, label: t('dashSync.applyHeld'), confirm: t('dashSync.confirmHeld') })}`,
  });
}

export function renderSyncs(o: {
  access: GuildAccess;
  viewer: Viewer;
  history: readonly SyncRun[];
  held: HeldRemovals | null;
  /** Patreon's latest webhook deliveries of the server's campaigns. */
  deliveries: readonly DeliveryEntry[];
  preview: GuildSyncReport | null;
  flash: DashboardFlash | null;
}): string {
  const { access, viewer } = o;
  // In the signed-in user's Discord language, as the Overview, the planner's and the guard's reasons too
  // (from their codes; runs and rows recorded before codes were, as recorded).
  const t = translator(viewer.locale ?? 'en');
  const actions = html`<div class="actions">
<form method="post" action="${guildPath(access.guildId, '/syncs/preview')}">${csrfField(viewer.csrfToken)}<button class="btn secondary" type="submit"${disabled(!access.canChange)}>${t('dashSync.previewButton')}</button></form>
</div>`;
  return renderDashboard({
    title: t('dash.syncs'),
    viewer,
    server: { id: access.guildId, name: access.guildName, tab: 'syncs' },
    flash: o.flash,
    intro: access.canChange ? t('dashSync.intro') : t('dashSync.introLocked'),
    main: html`<div class="stack">
${o.held ? heldPanel(access, viewer, o.held, t) : null}
${o.preview ? previewPanel(access, viewer, o.preview, t) : panel({ id: 'run', title: t('dashSync.runTitle'), hint: t('dashSync.runHint'), body: actions })}
${panel({ id: 'history', title: t('dashSync.history'), body: runsTable(o.history, t('dashSync.historyCaption'), t) })}
${deliveriesPanel(t, access.guildId, o.deliveries)}
</div>`,
  });
}
