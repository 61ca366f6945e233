import type { GuildAccess } from '../../../../app/dashboard/access';
import type { MemberDetail, MemberHit } from '../../../../app/dashboard/members';
import { MIN_QUERY_LENGTH } from '../../../../app/dashboard/members';
import { type AuditEntry, TRIGGER_LABELS } from '../../../../app/dashboard/views';
import { tierKey } from '../../../../app/linking/status-service';
import { type SafeHtml, html, plural, prose, trustedHtml } from '../pages/html';
import { tierRef } from '../../../../app/admin/tiers-service';
import { grantReason } from '../../../../core/planner';
import { icons, mention } from '../pages/layout';
import { type Viewer, cell, csrfField, guildPath, panel, renderDashboard, when } from './shell';
import type { DashboardFlash } from './views';
import type { MemberListPage } from '../../../../app/dashboard/member-list';
import { filterChips, memberListPanel } from './render-member-list';

/** A member written for people: their names, and the id as the last resort. */
export function memberLabel(m: {
  discordName: string | null;
  username?: string | null;
  patronName: string | null;
  userId: string;
}): string {
  const discord =
    m.discordName && m.username && m.discordName !== m.username ? `${m.discordName} (@${m.username})` : (m.discordName ?? null);
  if (discord && m.patronName) return `${discord} · ${m.patronName} on Patreon`;
  return discord ?? (m.patronName ? `${m.patronName} on Patreon` : `Discord user ${m.userId}`);
}

export function searchForm(guildId: string, query: string): SafeHtml {
  return html`<form class="cols form-row" method="get" action="${guildPath(guildId, '/members')}" role="search">
<div class="field"><label for="q">Discord or Patreon name, or Discord id</label><input type="search" id="q" name="q" value="${query}" minlength="${MIN_QUERY_LENGTH}" maxlength="100" autocomplete="off" aria-describedby="q-hint"><p class="hint" id="q-hint">Discord names match from their start; Patreon names anywhere.</p></div>
<div class="actions"><button class="btn" type="submit">Search</button></div>
</form>`;
}

export function renderMemberSearch(o: {
  access: GuildAccess;
  viewer: Viewer;
  query: string;
  result: { hits: readonly MemberHit[]; unlinkedPatrons: readonly string[] } | null;
  list: MemberListPage;
  joinUrl: string | null;
  flash: DashboardFlash | null;
  /** Further panels below the search (Ko-fi's supporters who have not linked). */
  more?: SafeHtml | null;
}): string {
  const { access, result } = o;
  let body: SafeHtml | null = null;
  if (result) {
    const hits = result.hits.length
      ? html`<ul class="servers">${result.hits.map(
          (h) =>
            html`<li><a class="server" href="${guildPath(access.guildId, `/members/${h.userId}`)}"><span>${memberLabel(h)}<br><span class="hint">${
              h.linked ? 'linked to Patreon' : 'not linked'
            }</span></span>${icons.chevronRight}</a></li>`,
        )}</ul>`
      : html`<p class="hint">Nobody matches “${o.query}”.</p>`;
    const unlinked = result.unlinkedPatrons.length
      ? html`<p class="hint">Patrons named like this who have not linked a Discord account (so Tierlink cannot give them roles): ${result.unlinkedPatrons.join(', ')}.</p>`
      : null;
    body = panel({ id: 'results', title: `Results for “${o.query}”`, body: html`${hits}${unlinked}` });
  }
  return renderDashboard({
    title: 'Members',
    viewer: o.viewer,
    server: { id: access.guildId, name: access.guildName, tab: 'members' },
    flash: o.flash,
    intro: 'Who the server’s patrons are, who has not linked, and why each member has (or lacks) each role.',
    main: html`<div class="stack">${filterChips(access.guildId, o.list)}${panel({ id: 'search', title: 'Find a member', body: searchForm(access.guildId, o.query) })}${body}${memberListPanel(access.guildId, o.list, o.joinUrl)}${o.more ?? null}</div>`,
  });
}

/**
 * Role changes as a table (cards on a phone). `showErrors: false` where the page already says why
 * (the held removals, whose reason heads their panel).
 */
export function auditTable(
  entries: readonly AuditEntry[],
  caption: string,
  showMember: boolean,
  guildId: string,
  showErrors = true,
): SafeHtml {
  if (entries.length === 0) return html`<p class="hint">No role changes match.</p>`;
  return html`<div class="table-wrap"><table class="data stacked compact"><caption class="visually-hidden">${caption}</caption>
<thead><tr><th scope="col">When</th>${showMember ? html`<th scope="col">Member</th>` : null}<th scope="col">Change</th><th scope="col">Outcome</th><th scope="col">Why</th></tr></thead>
<tbody>${entries.map((e) => {
    const role = e.roleName ? mention(e.roleName) : html`<span>deleted role ${e.roleId}</span>`;
    const verb = e.action === 'add' ? 'gave' : e.action === 'remove' ? 'took away' : 'forgot';
    const pill = e.outcome === 'applied' ? 'added' : e.outcome === 'held' ? 'warn' : e.outcome === 'blocked' ? 'muted' : 'removed';
    return html`<tr>${cell('When', html`<span class="nowrap">${when(e.at)}</span>`, 'lead-cell')}${
      showMember
        ? cell(
            'Member',
            html`<a href="${guildPath(guildId, `/members/${e.userId}`)}">${e.patronName ?? e.userId}</a>${
              e.patronName ? html`<br><span class="hint nowrap">${e.userId}</span>` : null
            }`,
          )
        : null
    }${cell('Change', html`${verb} ${role}`)}${cell('Outcome', html`<span class="pill ${pill}">${e.outcome}</span>`, 'side-cell')}${cell(
      'Why',
      html`${prose(e.reason)}<br><span class="hint">${TRIGGER_LABELS[e.trigger as keyof typeof TRIGGER_LABELS] ?? e.trigger}${e.error && showErrors ? ` · ${e.error}` : ''}</span>`,
    )}</tr>`;
  })}</tbody></table></div>`;
}

/** One member: the `/status` view for anyone, their roles now and their last changes. */
export function renderMember(o: {
  access: GuildAccess;
  viewer: Viewer;
  detail: MemberDetail;
  tiers: ReadonlyArray<{ ref: string; title: string }>;
  flash: DashboardFlash | null;
}): string {
  const { access, detail } = o;
  const locked = !access.canChange;
  const compAction = guildPath(access.guildId, `/members/${detail.userId}/comps`);
  const ends = (at: Date) => `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const compList = detail.comps.length
    ? html`<ul class="list">${detail.comps.map(
        ({ comp, tierTitle }) =>
          html`<li class="item"><div class="item-head"><span class="item-title">${tierTitle}</span><span class="muted">until ${ends(comp.until)}</span></div><p class="item-text">${prose(comp.reason)}</p>${
            locked
              ? null
              : html`<form method="post" action="${compAction}">${csrfField(o.viewer.csrfToken)}<input type="hidden" name="action" value="revoke"><input type="hidden" name="tier" value="${tierRef(comp.campaignId, comp.tierId)}"><button class="link-button" type="submit">End this comp now</button></form>`
          }</li>`,
      )}</ul>`
    : html`<p class="hint">No comp in force.</p>`;
  const compForm =
    o.tiers.length === 0
      ? html`<p class="hint">No tiers yet: connect a campaign first.</p>`
      : html`<form class="cols form-row" method="post" action="${compAction}">${csrfField(o.viewer.csrfToken)}<input type="hidden" name="action" value="grant">
<div class="field"><label for="comp-tier">Tier</label><select id="comp-tier" name="tier" required${locked ? trustedHtml(' disabled') : null}><option value="">Choose a tier</option>${o.tiers.map((t) => html`<option value="${t.ref}">${t.title}</option>`)}</select></div>
<div class="field"><label for="comp-until">Until (last day, UTC)</label><input type="date" id="comp-until" name="until" required${locked ? trustedHtml(' disabled') : null}></div>
<div class="field"><label for="comp-reason">Why</label><input type="text" id="comp-reason" name="reason" maxlength="200" required${locked ? trustedHtml(' disabled') : null}></div>
<div class="actions"><button class="btn" type="submit"${locked ? trustedHtml(' disabled') : null}>Give as a comp</button></div>
</form>`;
  const { status } = detail;
  const outcome = status.outcome;
  const link = status.linked
    ? `Linked to Patreon${status.method === 'social' ? ' (through the Discord connection on their Patreon account)' : ''}.`
    : status.lastEvent?.kind === 'moved_away'
      ? `Not linked: their Patreon membership moved to another Discord account on ${status.lastEvent.at.toISOString().slice(0, 10)}.`
      : status.lastEvent?.kind === 'unlinked'
        ? `Not linked: they ran /unlink on ${status.lastEvent.at.toISOString().slice(0, 10)}.`
        : 'Not linked: they have not run /link yet.';
  const standing = status.linked
    ? html`<ul class="list">${status.campaigns.map(
        (c) =>
          html`<li class="item"><div class="item-head"><span class="item-title">${c.name}</span><span class="pill ${c.entitlement.kind === 'active' ? 'added' : c.entitlement.kind === 'grace' ? 'warn' : 'muted'}">${c.entitlement.kind}</span></div><p class="item-text">${prose(c.entitlement.reason)}${
            c.tierTitles.length ? ` · ${c.tierTitles.join(', ')}` : ''
          }</p></li>`,
      )}</ul>`
    : null;
  const grants = [...outcome.desired.grants.values()];
  const given = grants.length
    ? html`<ul class="list">${grants.map((g) => {
        const blocked = outcome.plan.blocked.find((b) => b.roleId === g.roleId);
        const pending = outcome.plan.changes.some((c) => c.op === 'add' && c.roleId === g.roleId);
        return html`<li class="item"><div class="item-head"><span class="item-title">${mention(g.roleName)}</span>${
          blocked
            ? html`<span class="pill removed">cannot be given</span>`
            : pending
              ? html`<span class="pill warn">on its way</span>`
              : html`<span class="pill added">has it</span>`
        }</div><p class="item-text">${prose(grantReason(g))}</p>${blocked ? html`<p class="item-fix"><strong>Fix:</strong> ${prose(blocked.problem.fix)}</p>` : null}</li>`;
      })}</ul>`
    : html`<p class="hint">Tierlink gives this member no role.</p>`;
  const notes = outcome.desired.notes.filter((n) => n.roleId !== '' && n.roleName !== null);
  const notGiven = notes.length
    ? html`<ul class="list">${notes.map((n) => {
        const tier = n.campaignId && n.tierId ? status.tierTitles.get(tierKey(n.campaignId, n.tierId)) : null;
        const reason = status.linked ? n.reason : `${tier ? `${tier} tier: ` : ''}needs a linked Patreon membership`;
        return html`<li class="item"><span class="item-title">${mention(n.roleName!)}</span><p class="item-text">${prose(reason)}</p></li>`;
      })}</ul>`
    : null;
  const leaving = outcome.plan.changes.filter((c) => c.op === 'remove');
  const title = detail.discordName ?? detail.patronName ?? `Discord user ${detail.userId}`;
  return renderDashboard({
    title,
    viewer: o.viewer,
    server: { id: access.guildId, name: access.guildName, tab: 'members' },
    flash: o.flash,
    intro: [
      detail.username && detail.username !== detail.discordName ? `@${detail.username}` : null,
      detail.patronName ? `${detail.patronName} on Patreon` : null,
      `Discord id ${detail.userId}`,
    ]
      .filter(Boolean)
      .join(' · '),
    main: html`<div class="stack">
<div class="cols two">
${panel({
  id: 'link',
  title: 'Link and standing',
  body: html`<p>${prose(link)}</p>${!detail.inGuild ? html`<p class="hint">Not a member of this server now: roles arrive when they join.</p>` : null}${standing}`,
})}
${panel({
  id: 'roles',
  title: 'Roles now',
  body: detail.roles.length
    ? html`<ul class="chips">${detail.roles.map((r) => html`<li class="chip">${mention(r.name)}</li>`)}</ul>`
    : html`<p class="hint">${detail.inGuild ? 'No roles.' : 'Not in the server.'}</p>`,
})}
</div>
${panel({ id: 'given', title: 'Roles from Tierlink, and why', body: given })}
${panel({
  id: 'comps',
  title: 'Comps',
  hint: 'A tier given for a while, whatever their membership says; it ends by itself.',
  body: html`${compList}${compForm}`,
})}
${notGiven ? panel({ id: 'not-given', title: 'Roles they do not get, and why', body: notGiven }) : null}
${leaving.length ? panel({ id: 'leaving', title: 'Roles on their way out', body: html`<ul class="list">${leaving.map((c) => html`<li class="item"><span class="item-title">${mention(c.roleName)}</span><p class="item-text">${prose(c.reason)}</p></li>`)}</ul>` }) : null}
${panel({
  id: 'changes',
  title: 'Last role changes',
  hint: plural(detail.recentChanges.length, 'change') + ' shown.',
  body: html`${auditTable(detail.recentChanges, 'Last role changes of this member', false, access.guildId)}<p class="actions"><a href="${guildPath(access.guildId, `/audit?member=${detail.userId}`)}">Every change of this member in the audit log${icons.chevronRight}</a></p>`,
})}
</div>`,
  });
}
