import type { KofiUnlinkedSupporter } from '../../../../app/dashboard';
import { KOFI_UNLINKED_DAYS } from '../../../../app/dashboard';
import { type SafeHtml, html, prose } from '../pages/html';
import { type T, translator } from '../../../../core/i18n';
import { dayFor } from './render-overview';
import { panel } from './shell';

/** An email as staff may see it: enough to recognise a supporter, not to write to them (`j…@example.com`). */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '…';
  return `${email[0]}…${email.slice(at)}`;
}

/** Ko-fi's kinds of payment other than a membership, by the name Ko-fi gives them. */
const KINDS = ['Donation', 'Commission', 'Shop Order'] as const;

/**
 * The Members page's panel of Ko-fi supporters who paid and linked no Discord account: Tierlink
 * cannot give them roles until they link (`/link source:Ko-fi`, docs/kofi.md). In the signed-in
 * user's Discord language; a day as the Members page writes it.
 */
export function kofiUnlinkedPanel(list: readonly KofiUnlinkedSupporter[], t: T = translator('en')): SafeHtml {
  const [supporter, paidFor, lastPayment] = [t('dashKofi.supporter'), t('dashKofi.paidFor'), t('dashKofi.lastPayment')];
  const what = (s: KofiUnlinkedSupporter): string => {
    if (s.kind === 'Subscription') return s.tierName ? t('dashKofi.membershipOf', { tier: s.tierName }) : t('dashKofi.membership');
    const kind = KINDS.find((k) => k === s.kind);
    return kind ? t(`dashKofi.kind.${kind}`) : s.kind.toLowerCase();
  };
  const body = list.length
    ? html`<div class="table-wrap"><table class="data stacked compact"><caption class="visually-hidden">${t('dashKofi.title')}</caption>
<thead><tr><th scope="col">${supporter}</th><th scope="col">${paidFor}</th><th scope="col">${lastPayment}</th></tr></thead>
<tbody>${list.map(
        (s) =>
          html`<tr><td data-label="${supporter}">${s.fromName ?? t('dashKofi.someone')} <span class="hint">${maskEmail(s.email)}</span></td><td data-label="${paidFor}">${what(
            s,
          )}</td><td data-label="${lastPayment}">${dayFor(t, s.lastPaidAt)}</td></tr>`,
      )}</tbody></table></div>`
    : html`<p class="hint">${t('dashKofi.allLinked', { days: KOFI_UNLINKED_DAYS })}</p>`;
  return panel({ id: 'kofi-unlinked', title: t('dashKofi.title'), hint: prose(t('dashKofi.hint')), body });
}
