import type { Locale } from './locales';

/**
 * Numbers, dates and money written the reader's way, all from `Intl` (docs/i18n.md). Money is
 * written as the source states it: the campaign's currency and how often patrons pay.
 */

/** How often a price is paid, as the campaign states it (Patreon's `is_monthly`; per creation otherwise). */
export type Cadence = 'month' | 'year' | 'creation';

export function formatNumber(locale: Locale, value: number): string {
  return new Intl.NumberFormat(locale).format(value);
}

/** An amount of money, without trailing zero cents ("5 €", "$5", "R$ 5,50"). */
export function formatMoney(locale: Locale, amountCents: number, currency: string): string {
  const code = /^[A-Za-z]{3}$/.test(currency) ? currency.toUpperCase() : 'USD';
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
  const amount = amountCents / 10 ** digits;
  const whole = Number.isInteger(amount);
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency: code,
    minimumFractionDigits: whole ? 0 : digits,
    maximumFractionDigits: whole ? 0 : digits,
  }).format(amount);
}

/** A day, written in full in the reader's language and time zone ("28. November 2026"). */
export function formatDate(locale: Locale, date: Date, timeZone = 'UTC'): string {
  return new Intl.DateTimeFormat(locale, { timeZone, year: 'numeric', month: 'long', day: 'numeric' }).format(date);
}

/** A day and time, short, in the reader's language and time zone. */
export function formatDateTime(locale: Locale, date: Date, timeZone = 'UTC'): string {
  return new Intl.DateTimeFormat(locale, { timeZone, dateStyle: 'medium', timeStyle: 'short' }).format(date);
}
