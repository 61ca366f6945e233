import { DELIVERIES_SHOWN, type DeliveryEntry } from '../../../../app/dashboard/deliveries';
import type { MessageKey, T } from '../../../../core/i18n';
import { type SafeHtml, html, prose } from '../pages/html';
import { richOf } from '../pages/speech';
import { whenFor } from './render-overview';
import { cell, guildPath, panel } from './shell';

/** Patreon's event names, in words; an event Tierlink does not know is shown as Patreon named it. */
const EVENTS: Record<string, Extract<MessageKey, `dashDel.event.${string}`>> = {
  'members:create': 'dashDel.event.memberCreate',
  'members:update': 'dashDel.event.memberUpdate',
  'members:delete': 'dashDel.event.memberDelete',
  'members:pledge:create': 'dashDel.event.pledgeCreate',
  'members:pledge:update': 'dashDel.event.pledgeUpdate',
  'members:pledge:delete': 'dashDel.event.pledgeDelete',
  'posts:publish': 'dashDel.event.postPublish',
  'posts:update': 'dashDel.event.postUpdate',
  'posts:delete': 'dashDel.event.postDelete',
};

/** A stored error, as long as a table cell can hold. */
const MAX_ERROR = 200;
const shortError = (error: string) => (error.length > MAX_ERROR ? `${error.slice(0, MAX_ERROR - 1)}…` : error);

function eventText(t: T, event: string | null): string {
  if (event === null) return t('dashDel.event.unnamed');
  const key = EVENTS[event];
  return key ? t(key) : event;
}

function saysText(t: T, about: DeliveryEntry['about']): string {
  if (about.kind === 'post') return about.title ?? t('dashDel.says.untitled');
  if (about.kind === 'other') return '—';
  const tiers = about.tiers.join(', ');
  switch (about.standing) {
    case 'active_patron':
      return tiers ? t('standing.activeTiers', { tiers }) : t('standing.active');
    case 'declined_patron':
      return tiers ? t('dashDel.says.declinedTiers', { tiers }) : t('dashDel.says.declined');
    case 'former_patron':
      return t('standing.former');
    case 'no_pledge':
      return t('dashDel.says.noPledge');
    case 'unreadable':
      return t('dashDel.says.unreadable');
  }
}

function memberCell(t: T, guildId: string, about: DeliveryEntry['about']): SafeHtml | string {
  if (about.kind !== 'member') return '—';
  const name = about.name ?? t('dashDel.noName');
  return about.discordUserId ? html`<a href="${guildPath(guildId, `/members/${about.discordUserId}`)}">${name}</a>` : name;
}

function handledCell(t: T, state: DeliveryEntry['state']): SafeHtml {
  const error = state.kind !== 'done' && state.error ? html`<br><span class="hint">${prose(shortError(state.error))}</span>` : null;
  switch (state.kind) {
    case 'done':
      return html`<span class="pill added">${t('dashDel.done')}</span> <span class="nowrap">${whenFor(t, state.at)}</span>`;
    case 'waiting':
      return state.attempts === 0
        ? html`<span class="pill kept">${t('dashDel.waiting')}</span>`
        : html`<span class="pill warn">${t('dashDel.retrying')}</span> ${richOf(t)('dashDel.retryingAt', { count: state.attempts, when: html`<span class="nowrap">${whenFor(t, state.nextAt)}</span>` })}${error}`;
    case 'failed':
      return html`<span class="pill removed">${t('dashDel.failed')}</span> ${t('dashDel.failedAfter', { count: state.attempts })}${error}`;
  }
}

/** The Syncs page's panel of Patreon's webhook deliveries (src/app/dashboard/deliveries.ts). */
export function deliveriesPanel(t: T, guildId: string, deliveries: readonly DeliveryEntry[]): SafeHtml {
  const [received, event, member, says, handled] = [
    t('dashDel.col.received'),
    t('dashDel.col.event'),
    t('dashMem.col.member'),
    t('dashDel.col.says'),
    t('dashDel.col.handled'),
  ];
  const body = deliveries.length
    ? html`<div class="table-wrap"><table class="data stacked"><caption class="visually-hidden">${t('dashDel.caption')}</caption>
<thead><tr><th scope="col">${received}</th><th scope="col">${event}</th><th scope="col">${member}</th><th scope="col">${says}</th><th scope="col">${handled}</th></tr></thead><tbody>${deliveries.map(
        (d) =>
          html`<tr>${cell(received, html`<span class="nowrap">${whenFor(t, d.receivedAt)}</span>`)}${cell(event, eventText(t, d.event))}${cell(
            member,
            memberCell(t, guildId, d.about),
          )}${cell(says, saysText(t, d.about))}${cell(handled, handledCell(t, d.state))}</tr>`,
      )}</tbody></table></div>`
    : html`<p class="hint">${t('dashDel.none')}</p>`;
  return panel({ id: 'deliveries', title: t('dashDel.title'), hint: t('dashDel.hint', { count: DELIVERIES_SHOWN }), body });
}
