import { pricingOf } from '../../../../src/core/i18n/price';
import { renderConnectResult } from '../../../../src/edges/inbound/web/pages';
import type { ConnectResultView } from '../../../../src/edges/inbound/web/pages/views';

/** The `/connect` result writes each tier's price as the campaign states it, never dollars by default. */
function view(tiers: ConnectResultView['tiers']): ConnectResultView {
  return {
    campaignName: 'Atelier Nord',
    guildName: 'Nordlicht',
    tiers,
    webhook: { state: 'registered', detail: null },
    dryRun: { linkedMembers: 0, adds: 0, removes: 0, held: false },
    problems: [],
  };
}

const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

test('a campaign in euros paid per creation: "€5 per creation", no dollars', () => {
  const pricing = pricingOf({ currency: 'EUR', payPer: 'creation', payPerName: null });
  const page = text(renderConnectResult(view([{ title: 'Skizze', amountCents: 500, patronCount: 3, roles: ['Patron'], pricing }])));
  expect(page).toContain('€5 per creation');
  expect(page).not.toContain('$');
});

test('a per-creation campaign with its own word, and a monthly one in dollars', () => {
  const perSong = pricingOf({ currency: 'USD', payPer: 'creation', payPerName: 'song' });
  const monthly = pricingOf({ currency: 'USD', payPer: 'month', payPerName: null });
  const page = text(
    renderConnectResult(
      view([
        { title: 'Demo', amountCents: 250, patronCount: 1, roles: [], pricing: perSong },
        { title: 'Gold', amountCents: 1000, patronCount: 2, roles: ['Gold'], pricing: monthly },
      ]),
    ),
  );
  expect(page).toContain('$2.50 per song');
  expect(page).toContain('$10 a month');
});
