import type { GuildAccess } from '../../../../app/dashboard/access';
import type { StrictRequest } from '../../../../app/admin/settings-service';
import { STRICT_CONFIRMATION_MS } from '../../../../app/admin/settings-service';
import { type SafeHtml, html } from '../pages/html';
import { mention } from '../pages/layout';
import { richOf } from '../pages/speech';
import { type Viewer, csrfField, guildPath, panel, renderDashboard } from './shell';
import { viewerT } from './speech';
import type { DashboardFlash } from './views';

/**
 * Turning strict mode on, as `/settings strict:true` does in Discord: what it would take away right
 * now, and a button that confirms it, in the signed-in user's Discord language (the words of
 * Discord's preview, `strict.*`, where they are the same). The confirmation token is signed for
 * this person and expires; the service checks the person's authority again when it is used.
 */
export function renderStrictConfirm(o: {
  access: GuildAccess;
  viewer: Viewer;
  request: StrictRequest;
  flash: DashboardFlash | null;
}): string {
  const { access, viewer, request } = o;
  const { preview } = request;
  const t = viewerT(viewer);
  const members = (count: number) => t('apply.members', { count });
  const roleLine = (r: { roleName: string; members: number }): SafeHtml => {
    // The role is a styled mention inside the sentence: the sentence is cut where it goes.
    const [before = '', after = ''] = t('dashStrict.roleFrom', { role: '\u0000', members: members(r.members) }).split('\u0000');
    return html`<li class="item">${before}${mention(r.roleName)}${after}</li>`;
  };
  const removes =
    preview.roles.length === 0
      ? html`<p>${t(preview.incomplete ? 'strict.removeNothingRead' : 'strict.removeNothing')}</p>`
      : html`<p>${t('strict.removeFrom', { members: members(preview.members) })}</p>
<ul class="list">${preview.roles.map(roleLine)}</ul>${
          preview.examples.length > 0 ? html`<p class="hint">${t('strict.examples', { names: preview.examples.join(', ') })}</p>` : null
        }`;
  const spared = preview.spared.map((r, i) => html`${i > 0 ? ', ' : ''}${mention(r.roleName)}`);
  const body = html`<p>${t('dashStrict.about')}</p>
${removes}${preview.incomplete ? html`<p class="hint">${t('strict.incomplete')}</p>` : null}${
    preview.spared.length > 0 ? html`<p>${richOf(t)('strict.spared', { roles: html`${spared}` })}</p>` : null
  }
<form class="fields" method="post" action="${guildPath(access.guildId, '/settings/strict')}">${csrfField(viewer.csrfToken)}<input type="hidden" name="confirmation" value="${request.confirmation}">
<label class="check"><input type="checkbox" name="confirm" value="yes" required> ${t('dashStrict.confirm')}</label>
<div class="actions"><button class="btn danger" type="submit">${t('strict.button')}</button> <a class="btn secondary" href="${guildPath(access.guildId, '/tiers')}">${t('dashStrict.keepOff')}</a></div>
</form>
<p class="hint">${t('dashPrev.within', { minutes: STRICT_CONFIRMATION_MS / 60_000 })}</p>`;
  return renderDashboard({
    title: t('dashStrict.title'),
    viewer,
    server: { id: access.guildId, name: access.guildName, tab: 'tiers' },
    flash: o.flash,
    intro: t('dashStrict.intro'),
    main: html`<div class="stack">${panel({ id: 'strict', title: t('dashStrict.panel'), body })}</div>`,
  });
}
