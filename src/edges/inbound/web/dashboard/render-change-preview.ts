import type { GuildAccess } from '../../../../app/dashboard/access';
import type { ChangePreview } from '../../../../app/sync/change-preview';
import { CHANGE_CONFIRMATION_MS, type Confirmation } from '../../../../app/admin/pending-changes';
import { html, plural } from '../pages/html';
import { mention } from '../pages/layout';
import { type Viewer, csrfField, guildPath, panel, renderDashboard } from './shell';
import type { DashboardFlash } from './views';

/**
 * A change from the Tiers and roles page (a mapping, the settings), shown before it is made: what
 * it would give and take away, from the same dry run as Discord's preview, and a form that confirms
 * it (or cancels it). The token is bound to this person and server and expires; confirming asks the
 * change again, with the person's authority read afresh, and shows the new preview if roles moved.
 */
export function renderChangePreview(o: {
  access: GuildAccess;
  viewer: Viewer;
  /** What is asked, in a sentence: "Gold would give @Platinum." */
  what: string;
  preview: ChangePreview;
  confirmation: Confirmation;
  changedSince: boolean;
  roleName: (roleId: string, fallback: string) => string;
  flash: DashboardFlash | null;
}): string {
  const { access, viewer, preview } = o;
  const line = (verb: string, r: { roleId: string; roleName: string; members: number }, to: string) =>
    html`<li class="item">${verb} ${mention(o.roleName(r.roleId, r.roleName))} ${to} ${plural(r.members, 'member')}</li>`;
  const body = html`<p>${o.what} Nothing has changed yet.</p>
<ul class="list" aria-label="What it would do">${
    preview.gives.length === 0 ? html`<li class="item">Gives no role</li>` : preview.gives.map((r) => line('Gives', r, 'to'))
  }${preview.removes.length === 0 ? html`<li class="item">Removes nothing</li>` : preview.removes.map((r) => line('Removes', r, 'from'))}</ul>${
    preview.examples.length > 0 ? html`<p class="hint">For example: ${preview.examples.join(', ')}.</p>` : null
  }${preview.incomplete ? html`<p class="hint">Some members could not be read just now, so there may be more.</p>` : null}
<div class="actions">
<form method="post" action="${guildPath(access.guildId, '/changes/confirm')}">${csrfField(viewer.csrfToken)}<input type="hidden" name="token" value="${o.confirmation.token}"><button class="btn" type="submit">Confirm</button></form>
<form method="post" action="${guildPath(access.guildId, '/changes/cancel')}">${csrfField(viewer.csrfToken)}<input type="hidden" name="token" value="${o.confirmation.token}"><button class="btn secondary" type="submit">Cancel</button></form>
</div>
<p class="hint">Confirm within ${CHANGE_CONFIRMATION_MS / 60_000} minutes; otherwise nothing changes.</p>`;
  return renderDashboard({
    title: 'Make this change?',
    viewer,
    server: { id: access.guildId, name: access.guildName, tab: 'tiers' },
    flash:
      o.flash ??
      (o.changedSince
        ? {
            tone: 'warning',
            text: 'Roles or settings changed since the preview you confirmed, so nothing was applied. This is what the change would do now.',
          }
        : null),
    intro: 'What the change would do to members’ roles right now, from what Tierlink knows of them. Nothing changes until you confirm.',
    main: html`<div class="stack">${panel({ id: 'preview', title: 'What it would do', body })}</div>`,
  });
}
