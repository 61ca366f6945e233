import type { GuildAccess } from '../../../../app/dashboard/access';
import type { StrictRequest } from '../../../../app/admin/settings-service';
import { STRICT_CONFIRMATION_MS } from '../../../../app/admin/settings-service';
import { html, plural } from '../pages/html';
import { mention } from '../pages/layout';
import { type Viewer, csrfField, guildPath, panel, renderDashboard } from './shell';
import type { DashboardFlash } from './views';

/**
 * Turning strict mode on, as `/settings strict:true` does in Discord: what it would take away right
 * now, and a button that confirms it. The confirmation token is signed for this person and expires;
 * the service checks the person's authority again when it is used.
 */
export function renderStrictConfirm(o: {
  access: GuildAccess;
  viewer: Viewer;
  request: StrictRequest;
  flash: DashboardFlash | null;
}): string {
  const { access, viewer, request } = o;
  const { preview } = request;
  const removes =
    preview.roles.length === 0
      ? html`<p>Right now it would remove nothing${preview.incomplete ? ' that Tierlink could read' : ''}.</p>`
      : html`<p>Right now it would remove, from ${plural(preview.members, 'member')}:</p>
<ul class="list">${preview.roles.map((r) => html`<li class="item">${mention(r.roleName)} from ${plural(r.members, 'member')}</li>`)}</ul>${
          preview.examples.length > 0 ? html`<p class="hint">For example: ${preview.examples.join(', ')}.</p>` : null
        }`;
  const body = html`<p>Strict mode removes the roles Tierlink manages from every member who is not entitled to them, even roles given by hand.</p>
${removes}${preview.incomplete ? html`<p class="hint">Some members could not be read just now, so there may be more.</p>` : null}${
    preview.spared.length > 0
      ? html`<p>Never removed by strict mode, because they carry powerful permissions: ${preview.spared.map((r, i) => html`${i > 0 ? ', ' : ''}${mention(r.roleName)}`)}.</p>`
      : null
  }
<form class="fields" method="post" action="${guildPath(access.guildId, '/settings/strict')}">${csrfField(viewer.csrfToken)}<input type="hidden" name="confirmation" value="${request.confirmation}">
<label class="check"><input type="checkbox" name="confirm" value="yes" required> I checked what strict mode would take away.</label>
<div class="actions"><button class="btn danger" type="submit">Turn strict mode on</button> <a class="btn secondary" href="${guildPath(access.guildId, '/tiers')}">Keep it off</a></div>
</form>
<p class="hint">Confirm within ${STRICT_CONFIRMATION_MS / 60_000} minutes; otherwise nothing changes.</p>`;
  return renderDashboard({
    title: 'Turn strict mode on?',
    viewer,
    server: { id: access.guildId, name: access.guildName, tab: 'tiers' },
    flash: o.flash,
    intro: 'Strict mode is not on yet: nothing changes until you confirm.',
    main: html`<div class="stack">${panel({ id: 'strict', title: 'What strict mode would take away', body })}</div>`,
  });
}
