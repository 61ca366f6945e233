import type { KofiUnlinkedSupporter } from '../../../../app/dashboard';
import { KOFI_UNLINKED_DAYS } from '../../../../app/dashboard';
import { type SafeHtml, html } from '../pages/html';
import { panel } from './shell';

/** An email as staff may see it: enough to recognise a supporter, not to write to them (`j…@example.com`). */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '…';
  return `${email[0]}…${email.slice(at)}`;
}

/**
 * The Members page's panel of Ko-fi supporters who paid and linked no Discord account: Tierlink
 * cannot give them roles until they link (`/link source:Ko-fi`, docs/kofi.md).
 */
export function kofiUnlinkedPanel(list: readonly KofiUnlinkedSupporter[]): SafeHtml {
  const body = list.length
    ? html`<div class="table-wrap"><table class="data stacked compact"><caption class="visually-hidden">Paid on Ko-fi, not linked</caption>
<thead><tr><th scope="col">Supporter</th><th scope="col">Paid for</th><th scope="col">Last payment</th></tr></thead>
<tbody>${list.map(
        (s) =>
          html`<tr><td data-label="Supporter">${s.fromName ?? 'Someone'} <span class="hint">${maskEmail(s.email)}</span></td><td data-label="Paid for">${
            s.kind === 'Subscription' ? (s.tierName ? `${s.tierName} (membership)` : 'a membership') : s.kind.toLowerCase()
          }</td><td data-label="Last payment">${s.lastPaidAt.toISOString().slice(0, 10)}</td></tr>`,
      )}</tbody></table></div>`
    : html`<p class="hint">Everyone who paid on Ko-fi in the last ${KOFI_UNLINKED_DAYS} days is linked.</p>`;
  return panel({
    id: 'kofi-unlinked',
    title: 'Paid on Ko-fi, not linked',
    hint: 'Tierlink cannot give them roles yet: Ko-fi did not say who they are on Discord. Ask them to run /link source:Ko-fi and put the code it shows in the message of their next Ko-fi payment.',
    body,
  });
}
