import type { GuildAccess } from '../../../../app/dashboard/access';
import type { HeldRemovals } from '../../../../app/dashboard/syncs';
import type { SyncRun } from '../../../../app/dashboard/views';
import type { GuildSyncReport } from '../../../../core/sync-report';
import { type SafeHtml, html, plural, prose, trustedHtml } from '../pages/html';
import { mention } from '../pages/layout';
import { runsTable } from './render-overview';
import { auditTable } from './render-members';
import { type Viewer, cell, csrfField, guildPath, panel, renderDashboard, when } from './shell';
import type { DashboardFlash } from './views';

/** Planned changes listed in a preview (the counts cover them all). */
export const MAX_PREVIEW_CHANGES = 200;

const disabled = (off: boolean) => (off ? trustedHtml(' disabled') : null);

/** The guard's reason without its closing advice ("; run /sync force:true …"): the page offers a button instead. */
export function heldReason(reason: string | null): string {
  return (reason ?? 'more than this server’s guard allows').replace(/; run \/sync force:true.*$/s, '');
}

function applyForm(access: GuildAccess, viewer: Viewer, o: { force: boolean; label: string; confirm?: string }): SafeHtml {
  return html`<form class="fields" method="post" action="${guildPath(access.guildId, '/syncs/apply')}">${csrfField(viewer.csrfToken)}<input type="hidden" name="force" value="${o.force ? '1' : '0'}">${
    o.confirm
      ? html`<label class="check"><input type="checkbox" name="confirm" value="yes" required${disabled(!access.canChange)}> ${o.confirm}</label>`
      : null
  }<div class="actions"><button class="btn${o.force ? ' danger' : ''}" type="submit"${disabled(!access.canChange)}>${o.label}</button></div></form>`;
}

function previewPanel(access: GuildAccess, viewer: Viewer, report: GuildSyncReport): SafeHtml {
  const p = report.planned;
  const shown = report.changes.slice(0, MAX_PREVIEW_CHANGES);
  const rows = shown.length
    ? html`<div class="table-wrap"><table class="data stacked"><caption class="visually-hidden">Planned role changes</caption>
<thead><tr><th scope="col">Member</th><th scope="col">Change</th><th scope="col">Why</th></tr></thead><tbody>${shown.map(
        (c) =>
          html`<tr>${cell('Member', html`<a href="${guildPath(access.guildId, `/members/${c.userId}`)}">${c.username ?? c.userId}</a>`)}${cell(
            'Change',
            html`${c.op === 'add' ? 'give' : c.op === 'remove' ? 'take away' : 'forget'} ${c.roleName ? mention(c.roleName) : c.roleId}${
              c.outcome === 'blocked' ? html` <span class="pill muted">blocked</span>` : null
            }`,
          )}${cell('Why', html`${prose(c.reason)}${c.problem ? html`<br><span class="hint">${prose(c.problem)}</span>` : null}`)}</tr>`,
      )}</tbody></table></div>${
        report.changes.length > shown.length
          ? html`<p class="hint">And ${plural(report.changes.length - shown.length, 'more change')}.</p>`
          : null
      }`
    : html`<p class="hint">Nothing to change: every member’s roles already match their tiers.</p>`;
  const summary = `${plural(report.linkedMembers, 'linked member')}: ${p.adds} to give, ${p.removes} to take away, ${p.forgets} to forget${
    p.blocked ? `, ${p.blocked} Tierlink cannot make` : ''
  }.`;
  return panel({
    id: 'preview',
    title: 'Preview: what a sync would change now',
    hint: summary,
    body: html`${report.held ? html`<p class="item-fix"><strong>The guard would hold ${plural(report.held.removals, 'removal')}:</strong> ${prose(heldReason(report.held.reason))}.</p>` : null}${rows}
${
  p.adds + p.removes + p.forgets > 0
    ? report.held
      ? applyForm(access, viewer, {
          force: true,
          label: 'Sync now, with every removal',
          confirm: `I checked the ${report.held.removals} removals the guard would hold; take them away.`,
        })
      : applyForm(access, viewer, { force: false, label: 'Sync now' })
    : null
}`,
  });
}

function heldPanel(access: GuildAccess, viewer: Viewer, held: HeldRemovals): SafeHtml {
  return panel({
    id: 'held',
    title: `${plural(held.run.heldRemovals, 'removal')} held back`,
    hint: html`The sync of ${when(held.run.startedAt)} held them: ${prose(heldReason(held.run.heldReason))}. Check them, then apply them: a sync runs again first, so only removals still due are made.`,
    body: html`${auditTable(held.removals, 'Held removals', true, access.guildId, false)}${
      held.more ? html`<p class="hint">Only the first ${held.removals.length} are listed.</p>` : null
    }${applyForm(access, viewer, { force: true, label: 'Apply the held removals', confirm: 'I checked these removals; take the roles away.' })}`,
  });
}

export function renderSyncs(o: {
  access: GuildAccess;
  viewer: Viewer;
  history: readonly SyncRun[];
  held: HeldRemovals | null;
  preview: GuildSyncReport | null;
  flash: DashboardFlash | null;
}): string {
  const { access, viewer } = o;
  const actions = html`<div class="actions">
<form method="post" action="${guildPath(access.guildId, '/syncs/preview')}">${csrfField(viewer.csrfToken)}<button class="btn secondary" type="submit"${disabled(!access.canChange)}>Preview a sync</button></form>
</div>`;
  return renderDashboard({
    title: 'Syncs',
    viewer,
    server: { id: access.guildId, name: access.guildName, tab: 'syncs' },
    flash: o.flash,
    intro: access.canChange
      ? 'The nightly sync heals whatever drifted. Preview one to see what it would change, then run it.'
      : 'You can look but not run syncs: that needs the Manage Roles permission in this server, as /sync does.',
    main: html`<div class="stack">
${o.held ? heldPanel(access, viewer, o.held) : null}
${o.preview ? previewPanel(access, viewer, o.preview) : panel({ id: 'run', title: 'Preview and run', hint: 'A preview reads Patreon and Discord and changes nothing.', body: actions })}
${panel({ id: 'history', title: 'History', body: runsTable(o.history, 'Syncs of this server, newest first') })}
</div>`,
  });
}
