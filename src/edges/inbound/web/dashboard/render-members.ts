import type { GuildAccess } from '../../../../app/dashboard/access';
import type { MemberDetail, MemberHit } from '../../../../app/dashboard/members';
import { MIN_QUERY_LENGTH } from '../../../../app/dashboard/members';
import type { AuditEntry } from '../../../../app/dashboard/views';
import { tierKey } from '../../../../app/linking/status-service';
import { ENGLISH, type MessageKey, type T, translator } from '../../../../core/i18n';
import { type SafeHtml, html, prose, trustedHtml } from '../pages/html';
import { richOf } from '../pages/speech';
import { tierRef } from '../../../../app/admin/tiers-service';
import { grantReason } from '../../../../core/planner';
import { icons, mention } from '../pages/layout';
import { type Viewer, cell, csrfField, guildPath, panel, renderDashboard } from './shell';
import type { DashboardFlash } from './views';
import type { MemberListPage } from '../../../../app/dashboard/member-list';
import { filterChips, memberListPanel } from './render-member-list';
import { dayFor, whenFor } from './render-overview';
import { grantReasonText, noteReasonOnPage, standingText } from '../role-reasons';
import { heldReasonText, reasonText } from '../../../../core/reason-text';

const ENGLISH_T = translator('en');

/** The audit log's trigger in words (`trigger.*`, as /audit says it); one Tierlink does not know shows as stored. */
export function triggerWords(trigger: string, t: T = ENGLISH_T): string {
  const key = `trigger.${trigger}`;
  return key in ENGLISH ? t(key as Extract<MessageKey, `trigger.${string}`>) : trigger;
}

/** A member written for people: their names, and the id as the last resort. */
export function memberLabel(
  m: {
    discordName: string | null;
    username?: string | null;
    patronName: string | null;
    userId: string;
  },
  t: T = ENGLISH_T,
): string {
  const discord =
    m.discordName && m.username && m.discordName !== m.username ? `${m.discordName} (@${m.username})` : (m.discordName ?? null);
  if (discord && m.patronName) return `${discord} · ${t('dashMem.onPatreon', { name: m.patronName })}`;
  return discord ?? (m.patronName ? t('dashMem.onPatreon', { name: m.patronName }) : t('dashMem.discordUser', { id: m.userId }));
}

export function searchForm(guildId: string, query: string, t: T = ENGLISH_T): SafeHtml {
  return html`<form class="cols form-row" method="get" action="${guildPath(guildId, '/members')}" role="search">
<div class="field"><label for="q">${t('dashMem.searchLabel')}</label><input type="search" id="q" name="q" value="${query}" minlength="${MIN_QUERY_LENGTH}" maxlength="100" autocomplete="off" aria-describedby="q-hint"><p class="hint" id="q-hint">${t('dashMem.searchHint')}</p></div>
<div class="actions"><button class="btn" type="submit">${t('dashMem.searchButton')}</button></div>
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
  // In the signed-in user's Discord language, as the Overview.
  const t = translator(o.viewer.locale ?? 'en');
  let body: SafeHtml | null = null;
  if (result) {
    const hits = result.hits.length
      ? html`<ul class="servers">${result.hits.map(
          (h) =>
            html`<li><a class="server" href="${guildPath(access.guildId, `/members/${h.userId}`)}"><span>${memberLabel(h, t)}<br><span class="hint">${
              h.linked ? t('dashMem.linkedToPatreon') : t('dashMem.notLinked')
            }</span></span>${icons.chevronRight}</a></li>`,
        )}</ul>`
      : html`<p class="hint">${t('dashMem.noMatch', { query: o.query })}</p>`;
    const unlinked = result.unlinkedPatrons.length
      ? html`<p class="hint">${t('dashMem.unlinkedPatrons', { names: result.unlinkedPatrons.join(', ') })}</p>`
      : null;
    body = panel({ id: 'results', title: t('dashMem.results', { query: o.query }), body: html`${hits}${unlinked}` });
  }
  return renderDashboard({
    title: t('dashMem.title'),
    viewer: o.viewer,
    server: { id: access.guildId, name: access.guildName, tab: 'members' },
    flash: o.flash,
    intro: t('dashMem.intro'),
    main: html`<div class="stack">${filterChips(access.guildId, o.list, t)}${panel({ id: 'search', title: t('dashMem.searchTitle'), body: searchForm(access.guildId, o.query, t) })}${body}${memberListPanel(access.guildId, o.list, o.joinUrl, t)}${o.more ?? null}</div>`,
  });
}

const OUTCOME_PILL: Record<AuditEntry['outcome'], string> = { applied: 'added', held: 'warn', blocked: 'muted', failed: 'removed' };

/**
 * Role changes as a table (cards on a phone). `showErrors: false` where the page already says why
 * (the held removals, whose reason heads their panel). The reasons are the planner's, said from
 * their codes in the reader's language; rows recorded before codes were are shown as recorded, in
 * English (docs/i18n.md). Why removals were held too; Discord's errors stay as it answered.
 */
export function auditTable(
  entries: readonly AuditEntry[],
  caption: string,
  showMember: boolean,
  guildId: string,
  showErrors = true,
  t: T = ENGLISH_T,
): SafeHtml {
  if (entries.length === 0) return html`<p class="hint">${t('dashMem.audit.none')}</p>`;
  const [whenCol, member, change, outcome, why] = [
    t('dashMem.audit.when'),
    t('dashMem.col.member'),
    t('dashMem.audit.change'),
    t('dashMem.audit.outcome'),
    t('dashMem.audit.why'),
  ];
  return html`<div class="table-wrap"><table class="data stacked compact"><caption class="visually-hidden">${caption}</caption>
<thead><tr><th scope="col">${whenCol}</th>${showMember ? html`<th scope="col">${member}</th>` : null}<th scope="col">${change}</th><th scope="col">${outcome}</th><th scope="col">${why}</th></tr></thead>
<tbody>${entries.map((e) => {
    const role = e.roleName ? mention(e.roleName) : html`<span>${t('dashMem.audit.deletedRole', { id: e.roleId })}</span>`;
    const verb = t(e.action === 'add' ? 'dashMem.verb.add' : e.action === 'remove' ? 'dashMem.verb.remove' : 'dashMem.verb.forget');
    return html`<tr>${cell(whenCol, whenFor(t, e.at), 'lead-cell')}${
      showMember
        ? cell(
            member,
            html`<a href="${guildPath(guildId, `/members/${e.userId}`)}">${e.patronName ?? e.userId}</a>${
              e.patronName ? html`<br><span class="hint nowrap">${e.userId}</span>` : null
            }`,
          )
        : null
    }${cell(change, html`${verb} ${role}`)}${cell(
      outcome,
      html`<span class="pill ${OUTCOME_PILL[e.outcome] ?? 'removed'}">${t(`dashMem.outcome.${e.outcome}`)}</span>`,
      'side-cell',
    )}${cell(why, html`${prose(reasonText(t, e))}<br><span class="hint">${triggerWords(e.trigger, t)}${e.error && showErrors ? ` · ${auditError(t, e)}` : ''}</span>`)}</tr>`;
  })}</tbody></table></div>`;
}

/** A row's error: why removals were held, in the reader's language where its facts were recorded; Discord's own answer otherwise. */
function auditError(t: T, e: AuditEntry): string {
  return e.outcome === 'held' && e.error ? heldReasonText(t, { reason: e.error, why: e.heldWhy }) : (e.error ?? '');
}

const ENTITLEMENT_PILL: Record<string, string> = { active: 'added', grace: 'warn' };

/** One member: the `/status` view for anyone, their roles now and their last changes. */
export function renderMember(o: {
  access: GuildAccess;
  viewer: Viewer;
  detail: MemberDetail;
  tiers: ReadonlyArray<{ ref: string; title: string }>;
  flash: DashboardFlash | null;
}): string {
  const { access, detail } = o;
  const t = translator(o.viewer.locale ?? 'en');
  const locked = !access.canChange;
  const off = locked ? trustedHtml(' disabled') : null;
  const compAction = guildPath(access.guildId, `/members/${detail.userId}/comps`);
  const compList = detail.comps.length
    ? html`<ul class="list">${detail.comps.map(
        ({ comp, tierTitle }) =>
          html`<li class="item"><div class="item-head"><span class="item-title">${tierTitle}</span><span class="muted">${richOf(t)('dashMem.until', { when: whenFor(t, comp.until) })}</span></div><p class="item-text">${prose(comp.reason)}</p>${
            locked
              ? null
              : html`<form method="post" action="${compAction}">${csrfField(o.viewer.csrfToken)}<input type="hidden" name="action" value="revoke"><input type="hidden" name="tier" value="${tierRef(comp.campaignId, comp.tierId)}"><button class="link-button" type="submit">${t('dashMem.endComp')}</button></form>`
          }</li>`,
      )}</ul>`
    : html`<p class="hint">${t('dashMem.noComp')}</p>`;
  const compForm =
    o.tiers.length === 0
      ? html`<p class="hint">${t('dashMem.noTiers')}</p>`
      : html`<form class="cols form-row" method="post" action="${compAction}">${csrfField(o.viewer.csrfToken)}<input type="hidden" name="action" value="grant">
<div class="field"><label for="comp-tier">${t('dashMem.tier')}</label><select id="comp-tier" name="tier" required${off}><option value="">${t('dashMem.chooseTier')}</option>${o.tiers.map((x) => html`<option value="${x.ref}">${x.title}</option>`)}</select></div>
<div class="field"><label for="comp-until">${t('dashMem.compUntil')}</label><input type="date" id="comp-until" name="until" required${off}></div>
<div class="field"><label for="comp-reason">${t('dashMem.compWhy')}</label><input type="text" id="comp-reason" name="reason" maxlength="200" required${off}></div>
<div class="actions"><button class="btn" type="submit"${off}>${t('dashMem.giveComp')}</button></div>
</form>`;
  const { status } = detail;
  const outcome = status.outcome;
  const link = status.linked
    ? status.method === 'social'
      ? t('dashMem.linkedSocial')
      : t('dashMem.linked')
    : status.lastEvent?.kind === 'moved_away'
      ? t('dashMem.movedAway', { date: dayFor(t, status.lastEvent.at) })
      : status.lastEvent?.kind === 'unlinked'
        ? t('dashMem.unlinked', { date: dayFor(t, status.lastEvent.at) })
        : t('dashMem.neverLinked');
  const entitlementWord = (kind: string) =>
    kind === 'active'
      ? t('dashMem.entitlement.active')
      : kind === 'grace'
        ? t('dashMem.entitlement.grace')
        : kind === 'lapsed'
          ? t('dashMem.entitlement.lapsed')
          : t('dashMem.entitlement.none');
  const standing = status.linked
    ? html`<ul class="list">${status.campaigns.map(
        (c) =>
          html`<li class="item"><div class="item-head"><span class="item-title">${c.name}</span><span class="pill ${ENTITLEMENT_PILL[c.entitlement.kind] ?? 'muted'}">${entitlementWord(c.entitlement.kind)}</span></div><p class="item-text">${prose(t.locale === 'en' ? c.entitlement.reason : standingText(t, c.entitlement))}${
            c.tierTitles.length ? ` · ${c.tierTitles.join(', ')}` : ''
          }</p></li>`,
      )}</ul>`
    : null;
  const grants = [...outcome.desired.grants.values()];
  const tierTitle = (campaignId: string, tierId: string) => status.tierTitles.get(tierKey(campaignId, tierId)) ?? tierId;
  const given = grants.length
    ? html`<ul class="list">${grants.map((g) => {
        const blocked = outcome.plan.blocked.find((b) => b.roleId === g.roleId);
        const pending = outcome.plan.changes.some((c) => c.op === 'add' && c.roleId === g.roleId);
        return html`<li class="item"><div class="item-head"><span class="item-title">${mention(g.roleName)}</span>${
          blocked
            ? html`<span class="pill removed">${t('dashMem.cannotGive')}</span>`
            : pending
              ? html`<span class="pill warn">${t('dashMem.onItsWay')}</span>`
              : html`<span class="pill added">${t('dashMem.hasIt')}</span>`
        }</div><p class="item-text">${prose(grantReasonText({ ...g, reason: grantReason(g) }, tierTitle, t))}</p>${blocked ? html`<p class="item-fix"><strong>${t('dashMem.fix')}</strong> ${prose(blocked.problem.fix)}</p>` : null}</li>`;
      })}</ul>`
    : html`<p class="hint">${t('dashMem.givesNone')}</p>`;
  const notes = outcome.desired.notes.filter((n) => n.roleId !== '' && n.roleName !== null);
  const notGiven = notes.length
    ? html`<ul class="list">${notes.map((n) => {
        const tier = n.campaignId && n.tierId ? status.tierTitles.get(tierKey(n.campaignId, n.tierId)) : null;
        const reason = status.linked ? noteReasonOnPage(n, t) : tier ? t('dashMem.needsLinkTier', { tier }) : t('dashMem.needsLink');
        return html`<li class="item"><span class="item-title">${mention(n.roleName!)}</span><p class="item-text">${prose(reason)}</p></li>`;
      })}</ul>`
    : null;
  const leaving = outcome.plan.changes.filter((c) => c.op === 'remove');
  const title = detail.discordName ?? detail.patronName ?? t('dashMem.discordUser', { id: detail.userId });
  return renderDashboard({
    title,
    viewer: o.viewer,
    server: { id: access.guildId, name: access.guildName, tab: 'members' },
    flash: o.flash,
    intro: [
      detail.username && detail.username !== detail.discordName ? `@${detail.username}` : null,
      detail.patronName ? t('dashMem.onPatreon', { name: detail.patronName }) : null,
      t('dashMem.discordId', { id: detail.userId }),
    ]
      .filter(Boolean)
      .join(' · '),
    main: html`<div class="stack">
<div class="cols two">
${panel({
  id: 'link',
  title: t('dashMem.linkTitle'),
  body: html`<p>${prose(link)}</p>${
    detail.pending
      ? html`<p class="hint">${t('dashMem.screening')}</p>`
      : !detail.inGuild
        ? html`<p class="hint">${t('dashMem.notMember')}</p>`
        : null
  }${standing}`,
})}
${panel({
  id: 'roles',
  title: t('dashMem.rolesNow'),
  body: detail.roles.length
    ? html`<ul class="chips">${detail.roles.map((r) => html`<li class="chip">${mention(r.name)}</li>`)}</ul>`
    : html`<p class="hint">${detail.inGuild ? t('dashMem.noRoles') : t('dashMem.notInServerNow')}</p>`,
})}
</div>
${panel({ id: 'given', title: t('dashMem.given'), body: given })}
${panel({
  id: 'comps',
  title: t('dashMem.comps'),
  hint: t('dashMem.compsHint'),
  body: html`${compList}${compForm}`,
})}
${notGiven ? panel({ id: 'not-given', title: t('dashMem.notGiven'), body: notGiven }) : null}
${leaving.length ? panel({ id: 'leaving', title: t('dashMem.leaving'), body: html`<ul class="list">${leaving.map((c) => html`<li class="item"><span class="item-title">${mention(c.roleName)}</span><p class="item-text">${prose(reasonText(t, c))}</p></li>`)}</ul>` }) : null}
${panel({
  id: 'changes',
  title: t('dashMem.changes'),
  hint: t('dashMem.changesShown', { count: detail.recentChanges.length }),
  body: html`${auditTable(detail.recentChanges, t('dashMem.changesCaption'), false, access.guildId, true, t)}<p class="actions"><a href="${guildPath(access.guildId, `/audit?member=${detail.userId}`)}">${t('dashMem.everyChange')}${icons.chevronRight}</a></p>`,
})}
</div>`,
  });
}
