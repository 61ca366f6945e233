import { matchLocale } from '../../../core/i18n';

/**
 * A one-time link's address with the member's language, when Discord's client names one of ours
 * other than English: the pages of the flow then speak it (a `lang` the web pages read;
 * src/edges/inbound/web/page-language.ts). English, the default, leaves the browser's language to decide.
 */
export function withLanguage(url: string, discordLocale: string | null | undefined): string {
  const locale = matchLocale(discordLocale);
  if (!locale || locale === 'en') return url;
  const address = new URL(url);
  address.searchParams.set('lang', locale);
  return address.toString();
}
