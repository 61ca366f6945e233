import type { GuildAccess } from '../../../../app/dashboard/access';
import type { ChangePreview } from '../../../../app/sync/change-preview';
import { CHANGE_CONFIRMATION_MS, type Confirmation } from '../../../../app/admin/pending-changes';
import { type SafeHtml, html } from '../pages/html';
import { type T, translator } from '../../../../core/i18n';
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
  /** What is asked, in a sentence of the reader's language: "Gold would give @Platinum." */
  what: (t: T) => string;
  preview: ChangePreview;
  confirmation: Confirmation;
  changedSince: boolean;
  roleName: (roleId: string, fallback: string) => string;
  flash: DashboardFlash | null;
}): string {
  const { access, viewer, preview } = o;
  // In the signed-in user's Discord language, as the Overview.
  const t = translator(viewer.locale ?? 'en');
  const line = (key: 'dashPrev.gives' | 'dashPrev.removes', r: { roleId: string; roleName: string; members: number }): SafeHtml => {
    // The role is a styled mention inside the sentence: the sentence is cut where it goes.
    const [before = '', after = ''] = t(key, { count: r.members, role: '\u0000' }).split('\u0000');
    return html`<li class="item">${before}${mention(o.roleName(r.roleId, r.roleName))}${after}</li>`;
  };
  const body = html`<p>${t('dashPrev.notYet', { what: o.what(t) })}</p>
<ul class="list" aria-label="${t('dashPrev.panel')}">${
    preview.gives.length === 0
      ? html`<li class="item">${t('dashPrev.givesNone')}</li>`
      : preview.gives.map((r) => line('dashPrev.gives', r))
  }${preview.removes.length === 0 ? html`<li class="item">${t('dashPrev.removesNone')}</li>` : preview.removes.map((r) => line('dashPrev.removes', r))}</ul>${
    preview.examples.length > 0 ? html`<p class="hint">${t('dashPrev.examples', { names: preview.examples.join(', ') })}</p>` : null
  }${preview.incomplete ? html`<p class="hint">${t('dashPrev.incomplete')}</p>` : null}
<div class="actions">
<form method="post" action="${guildPath(access.guildId, '/changes/confirm')}">${csrfField(viewer.csrfToken)}<input type="hidden" name="token" value="${o.confirmation.token}"><button class="btn" type="submit">${t('dashPrev.confirm')}</button></form>
<form method="post" action="${guildPath(access.guildId, '/changes/cancel')}">${csrfField(viewer.csrfToken)}<input type="hidden" name="token" value="${o.confirmation.token}"><button class="btn secondary" type="submit">${t('dashPrev.cancel')}</button></form>
</div>
<p class="hint">${t('dashPrev.within', { minutes: CHANGE_CONFIRMATION_MS / 60_000 })}</p>`;
  return renderDashboard({
    title: t('dashPrev.title'),
    viewer,
    server: { id: access.guildId, name: access.guildName, tab: 'tiers' },
    flash:
      o.flash ??
      (o.changedSince
        ? {
            tone: 'warning',
            text: t('dashPrev.changedSince'),
          }
        : null),
    intro: t('dashPrev.intro'),
    main: html`<div class="stack">${panel({ id: 'preview', title: t('dashPrev.panel'), body })}</div>`,
  });
}
