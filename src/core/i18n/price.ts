import { type Cadence, formatMoney } from './format';
import { type T, translator } from './index';

/** How a campaign states its prices: its currency, how often patrons pay, and its word for a creation. */
export interface Pricing {
  currency: string;
  cadence: Cadence;
  /** A per-creation campaign's own word for a creation (Patreon's `pay_per_name`), if any. */
  payPerName: string | null;
}

const CADENCES: readonly string[] = ['month', 'year', 'creation'] satisfies Cadence[];

/**
 * A campaign's pricing from what is stored of it (`campaigns.currency`, `pay_per`, `pay_per_name`):
 * the currency a source stated, else `fallbackCurrency` (PATREON_CURRENCY; Patreon's API states
 * none), else US dollars; a cadence it does not know reads as a month.
 */
export function pricingOf(
  campaign: { currency: string | null; payPer: string | null; payPerName: string | null } | null,
  fallbackCurrency?: string,
): Pricing {
  return {
    currency: campaign?.currency ?? fallbackCurrency ?? 'USD',
    cadence: campaign?.payPer && CADENCES.includes(campaign.payPer) ? (campaign.payPer as Cadence) : 'month',
    payPerName: campaign?.payPerName ?? null,
  };
}

/**
 * A tier's price as the campaign states it, in the reader's language: "€5 per creation",
 * "5 € im Monat", "R$ 10 por mês". A per-creation campaign's own word for a creation is used when
 * it names one.
 */
export function priceText(tier: Pricing & { amountCents: number }, t: T = translator('en')): string {
  if (tier.amountCents === 0) return t('price.free');
  const amount = formatMoney(t.locale, tier.amountCents, tier.currency);
  if (tier.cadence === 'month') return t('price.month', { amount });
  if (tier.cadence === 'year') return t('price.year', { amount });
  const thing = tier.payPerName?.trim();
  return thing && !/^(creation|month)$/i.test(thing) ? t('price.per', { amount, thing }) : t('price.creation', { amount });
}
