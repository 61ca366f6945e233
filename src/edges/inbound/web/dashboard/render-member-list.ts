import type { MemberFilter, MemberListPage, MemberRow, MemberSort } from '../../../../app/dashboard/member-list';
import { MEMBER_FILTER_KEYS } from '../../../../app/dashboard/member-list';
import type { ListedStanding } from '../../../../app/dashboard/member-list';
import { type SafeHtml, html, trustedHtml } from '../pages/html';
import { icons } from '../pages/layout';
import { cell, guildPath, panel, when } from './shell';

/**
 * Each filter in words: its name on the chips and the sentence above its list. A filter another
 * source adds (`MEMBER_FILTERS`) without words here shows its key until it gets some.
 */
export const FILTER_WORDS: Partial<Record<string, { label: string; about: string }>> = {
  all: { label: 'Everyone', about: 'Everyone the server’s campaigns and comps know.' },
  patrons: { label: 'Patrons', about: 'Patrons entitled to a tier now.' },
  linked: { label: 'Linked', about: 'Members who linked their Discord account.' },
  'not-linked': {
    label: 'Not linked',
    about: 'Patrons entitled to a tier who have not linked a Discord account: Tierlink cannot give them roles until they do.',
  },
  'not-in-server': {
    label: 'Not in the server',
    about: 'Linked patrons (or comped members) who are not in this server: their roles arrive when they join.',
  },
  grace: { label: 'In grace', about: 'Patrons whose payment was declined: they keep their roles until the grace days end.' },
  former: { label: 'Former', about: 'Former patrons, and patrons whose payment was declined past the grace days.' },
  comped: { label: 'Comped', about: 'Members given a tier for a while by the server’s staff.' },
};

export const filterLabel = (f: string) => FILTER_WORDS[f]?.label ?? f;

const SORT_LABELS: Record<MemberSort, string> = {
  name: 'Name',
  since: 'Newest patrons first',
  amount: 'Highest pledge first',
  standing: 'Standing',
};

const STANDING: Record<ListedStanding, { label: string; pill: string }> = {
  patron: { label: 'patron', pill: 'added' },
  grace: { label: 'declined, in grace', pill: 'warn' },
  lapsed: { label: 'declined, grace over', pill: 'removed' },
  former: { label: 'former patron', pill: 'muted' },
  follower: { label: 'follower', pill: 'muted' },
  none: { label: 'no membership', pill: 'muted' },
};

const SOURCE_NAMES: Record<string, string> = { patreon: 'Patreon', kofi: 'Ko-fi' };
const sourceName = (s: string) => SOURCE_NAMES[s] ?? s;

export function listHref(guildId: string, q: { filter: MemberFilter; sort: MemberSort; page?: number }, path = '/members'): string {
  const params = new URLSearchParams({ filter: q.filter });
  if (q.sort !== 'name') params.set('sort', q.sort);
  if (q.page && q.page > 1) params.set('page', String(q.page));
  return `${guildPath(guildId, path)}?${params.toString()}`;
}

function whoCell(guildId: string, m: MemberRow): SafeHtml {
  const discord = m.displayName ?? (m.discordUserId ? `Discord user ${m.discordUserId}` : null);
  const head = m.discordUserId
    ? html`<a href="${guildPath(guildId, `/members/${m.discordUserId}`)}">${discord}</a>`
    : html`<span>${m.patronName ?? 'unnamed'}</span>`;
  const sub =
    m.discordUserId && m.patronName
      ? `${m.patronName} on ${sourceName(m.source)}`
      : m.discordUserId
        ? null
        : `on ${sourceName(m.source)}, not linked`;
  return html`${head}${sub ? html`<br><span class="hint">${sub}</span>` : null}`;
}

function discordCell(m: MemberRow): string {
  if (!m.discordUserId) return 'not linked';
  return m.inServer ? 'in the server' : 'not in the server';
}

const since = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : '—');

/** The counts as chips, each a link to its filter; the current one marked. */
export function filterChips(guildId: string, list: Pick<MemberListPage, 'counts' | 'filter' | 'sort'>): SafeHtml {
  return html`<nav class="filters" aria-label="Filter members"><ul class="chips">${MEMBER_FILTER_KEYS.map(
    (f) =>
      html`<li><a class="chip filter" href="${listHref(guildId, { filter: f, sort: list.sort })}"${
        f === list.filter ? trustedHtml(' aria-current="true"') : null
      }><span>${filterLabel(f)}</span> <strong>${list.counts[f].toLocaleString('en-US')}</strong></a></li>`,
  )}</ul></nav>`;
}

/** The Members list panel: the filter's sentence, the sort, the table, the pager, the CSV and the join link. */
export function memberListPanel(guildId: string, list: MemberListPage, joinUrl: string | null): SafeHtml {
  const total = list.counts[list.filter];
  const sortForm = html`<form class="cols form-row" method="get" action="${guildPath(guildId, '/members')}">
<input type="hidden" name="filter" value="${list.filter}">
<div class="field"><label for="sort">Order</label><select id="sort" name="sort">${(Object.keys(SORT_LABELS) as MemberSort[]).map(
    (s) => html`<option value="${s}"${s === list.sort ? trustedHtml(' selected') : null}>${SORT_LABELS[s]}</option>`,
  )}</select></div>
<div class="actions"><button class="btn secondary" type="submit">Sort</button></div>
</form>`;
  const table =
    list.rows.length === 0
      ? html`<p class="hint">Nobody here.</p>`
      : html`<div class="table-wrap"><table class="data stacked"><caption class="visually-hidden">${filterLabel(list.filter)}: page ${list.page} of ${list.pages}</caption>
<thead><tr><th scope="col">Member</th><th scope="col">Standing</th><th scope="col">Tiers</th><th scope="col">Discord</th><th scope="col">Patron since</th></tr></thead>
<tbody>${list.rows.map(
          (m) =>
            html`<tr>${cell('Member', whoCell(guildId, m), 'lead-cell')}${cell(
              'Standing',
              html`<span class="pill ${STANDING[m.standing].pill}">${STANDING[m.standing].label}</span>${m.comped ? html` <span class="pill kept">comped</span>` : null}`,
            )}${cell('Tiers', m.tierTitles.length ? m.tierTitles.join(', ') : '—')}${cell('Discord', discordCell(m))}${cell(
              'Patron since',
              html`<span class="nowrap">${since(m.since)}</span>`,
            )}</tr>`,
        )}</tbody></table></div>`;
  const pager =
    list.pages > 1
      ? html`<nav class="pager" aria-label="Pages">${
          list.page > 1
            ? html`<a href="${listHref(guildId, { ...list, page: list.page - 1 })}" rel="prev">Previous page</a>`
            : html`<span></span>`
        }<span class="muted">Page ${list.page.toLocaleString('en-US')} of ${list.pages.toLocaleString('en-US')}</span>${
          list.page < list.pages
            ? html`<a href="${listHref(guildId, { ...list, page: list.page + 1 })}" rel="next">Next page${icons.chevronRight}</a>`
            : html`<span></span>`
        }</nav>`
      : null;
  const reach =
    joinUrl && (list.filter === 'not-linked' || list.filter === 'not-in-server')
      ? html`<div class="field join-copy"><label for="join-url">Send them the join page: they sign in with Patreon and Discord, and join with their roles</label><input type="text" id="join-url" value="${joinUrl}" readonly></div>`
      : null;
  return panel({
    id: 'list',
    title: `${filterLabel(list.filter)} (${total.toLocaleString('en-US')})`,
    hint: html`${FILTER_WORDS[list.filter]?.about ?? ''} Counted ${when(list.asOf)}${
      list.refreshing ? '; the data changed since, and a new count is on its way: reload in a moment.' : '.'
    }`,
    body: html`${sortForm}${reach}${table}${pager}<p class="actions"><a class="btn secondary" href="${listHref(guildId, { filter: list.filter, sort: 'name' }, '/members.csv')}" download>Download this list (CSV)</a></p>`,
  });
}
