import type { MemberFilter, MemberListPage, MemberRow, MemberSort } from '../../../../app/dashboard/member-list';
import { MEMBER_FILTER_KEYS } from '../../../../app/dashboard/member-list';
import type { ListedStanding } from '../../../../app/dashboard/member-list';
import { ENGLISH, type MessageKey, type T, formatNumber, translator } from '../../../../core/i18n';
import { type SafeHtml, html, trustedHtml } from '../pages/html';
import { icons } from '../pages/layout';
import { dayFor, whenFor } from './render-overview';
import { richOf } from '../pages/speech';
import { cell, guildPath, panel } from './shell';

const ENGLISH_T = translator('en');

/** A key of the catalogue if it has one (a filter another source adds without words shows its key). */
function known<K extends MessageKey>(key: string): K | null {
  return key in ENGLISH ? (key as K) : null;
}

/** Each filter's name on the chips, in the reader's language; a filter without words shows its key. */
export function filterLabel(f: string, t: T = ENGLISH_T): string {
  const key = known<Extract<MessageKey, `dashMem.filter.${string}`>>(`dashMem.filter.${f}`);
  return key ? t(key) : f;
}

/** The sentence above a filter's list. */
function filterAbout(f: string, t: T): string {
  const key = known<Extract<MessageKey, `dashMem.about.${string}`>>(`dashMem.about.${f}`);
  return key ? t(key) : '';
}

/** The orders the list offers, as the menu lists them. */
const SORTS: readonly MemberSort[] = ['name', 'since', 'amount', 'standing'];

const STANDING_PILL: Record<ListedStanding, string> = {
  patron: 'added',
  grace: 'warn',
  lapsed: 'removed',
  former: 'muted',
  follower: 'muted',
  none: 'muted',
};

const SOURCE_NAMES: Record<string, string> = { patreon: 'Patreon', kofi: 'Ko-fi' };
const sourceName = (s: string) => SOURCE_NAMES[s] ?? s;

export function listHref(guildId: string, q: { filter: MemberFilter; sort: MemberSort; page?: number }, path = '/members'): string {
  const params = new URLSearchParams({ filter: q.filter });
  if (q.sort !== 'name') params.set('sort', q.sort);
  if (q.page && q.page > 1) params.set('page', String(q.page));
  return `${guildPath(guildId, path)}?${params.toString()}`;
}

function whoCell(guildId: string, m: MemberRow, t: T): SafeHtml {
  const discord = m.displayName ?? (m.discordUserId ? t('dashMem.discordUser', { id: m.discordUserId }) : null);
  const head = m.discordUserId
    ? html`<a href="${guildPath(guildId, `/members/${m.discordUserId}`)}">${discord}</a>`
    : html`<span>${m.patronName ?? t('dashMem.unnamed')}</span>`;
  const sub =
    m.discordUserId && m.patronName
      ? t('dashMem.onSource', { name: m.patronName, source: sourceName(m.source) })
      : m.discordUserId
        ? null
        : t('dashMem.onSourceUnlinked', { source: sourceName(m.source) });
  return html`${head}${sub ? html`<br><span class="hint">${sub}</span>` : null}`;
}

function discordCell(m: MemberRow, t: T): string {
  if (!m.discordUserId) return t('dashMem.notLinked');
  return m.inServer ? t('dashMem.inServer') : t('dashMem.notInServer');
}

/** The counts as chips, each a link to its filter; the current one marked. */
export function filterChips(guildId: string, list: Pick<MemberListPage, 'counts' | 'filter' | 'sort'>, t: T = ENGLISH_T): SafeHtml {
  return html`<nav class="filters" aria-label="${t('dashMem.filters')}"><ul class="chips">${MEMBER_FILTER_KEYS.map(
    (f) =>
      html`<li><a class="chip filter" href="${listHref(guildId, { filter: f, sort: list.sort })}"${
        f === list.filter ? trustedHtml(' aria-current="true"') : null
      }><span>${filterLabel(f, t)}</span> <strong>${formatNumber(t.locale, list.counts[f])}</strong></a></li>`,
  )}</ul></nav>`;
}

/** The Members list panel: the filter's sentence, the sort, the table, the pager, the CSV and the join link. */
export function memberListPanel(guildId: string, list: MemberListPage, joinUrl: string | null, t: T = ENGLISH_T): SafeHtml {
  const total = list.counts[list.filter];
  const sortForm = html`<form class="cols form-row" method="get" action="${guildPath(guildId, '/members')}">
<input type="hidden" name="filter" value="${list.filter}">
<div class="field"><label for="sort">${t('dashMem.order')}</label><select id="sort" name="sort">${SORTS.map(
    (s) => html`<option value="${s}"${s === list.sort ? trustedHtml(' selected') : null}>${t(`dashMem.sort.${s}`)}</option>`,
  )}</select></div>
<div class="actions"><button class="btn secondary" type="submit">${t('dashMem.sortButton')}</button></div>
</form>`;
  const [member, standing, tiers, discord, since] = (['member', 'standing', 'tiers', 'discord', 'since'] as const).map((c) =>
    t(`dashMem.col.${c}`),
  ) as [string, string, string, string, string];
  const pages = { page: formatNumber(t.locale, list.page), pages: formatNumber(t.locale, list.pages) };
  const table =
    list.rows.length === 0
      ? html`<p class="hint">${t('dashMem.nobody')}</p>`
      : html`<div class="table-wrap"><table class="data stacked"><caption class="visually-hidden">${t('dashMem.caption', { filter: filterLabel(list.filter, t), ...pages })}</caption>
<thead><tr><th scope="col">${member}</th><th scope="col">${standing}</th><th scope="col">${tiers}</th><th scope="col">${discord}</th><th scope="col">${since}</th></tr></thead>
<tbody>${list.rows.map(
          (m) =>
            html`<tr>${cell(member, whoCell(guildId, m, t), 'lead-cell')}${cell(
              standing,
              html`<span class="pill ${STANDING_PILL[m.standing]}">${t(`dashMem.standing.${m.standing}`)}</span>${m.comped ? html` <span class="pill kept">${t('dashMem.comped')}</span>` : null}`,
            )}${cell(tiers, m.tierTitles.length ? m.tierTitles.join(', ') : '—')}${cell(discord, discordCell(m, t))}${cell(
              since,
              html`<span class="nowrap">${dayFor(t, m.since)}</span>`,
            )}</tr>`,
        )}</tbody></table></div>`;
  const pager =
    list.pages > 1
      ? html`<nav class="pager" aria-label="${t('dashMem.pages')}">${
          list.page > 1
            ? html`<a href="${listHref(guildId, { ...list, page: list.page - 1 })}" rel="prev">${t('dashMem.previous')}</a>`
            : html`<span></span>`
        }<span class="muted">${t('dashMem.pageOf', pages)}</span>${
          list.page < list.pages
            ? html`<a href="${listHref(guildId, { ...list, page: list.page + 1 })}" rel="next">${t('dashMem.next')}${icons.chevronRight}</a>`
            : html`<span></span>`
        }</nav>`
      : null;
  const reach =
    joinUrl && (list.filter === 'not-linked' || list.filter === 'not-in-server')
      ? html`<div class="field join-copy"><label for="join-url">${t('dashMem.joinCopy')}</label><input type="text" id="join-url" value="${joinUrl}" readonly></div>`
      : null;
  const counted = { when: whenFor(t, list.asOf) };
  return panel({
    id: 'list',
    title: `${filterLabel(list.filter, t)} (${formatNumber(t.locale, total)})`,
    hint: html`${filterAbout(list.filter, t)} ${list.refreshing ? richOf(t)('dashMem.countedRefreshing', counted) : richOf(t)('dashMem.counted', counted)}`,
    // The CSV's column headers stay English: a file for spreadsheets and scripts, read by column name.
    body: html`${sortForm}${reach}${table}${pager}<p class="actions"><a class="btn secondary" href="${listHref(guildId, { filter: list.filter, sort: 'name' }, '/members.csv')}" download>${t('dashMem.csv')}</a></p>`,
  });
}
