import {
  type EnglishCatalogue,
  type Locale,
  type MessageKey,
  type ParamValue,
  type ParamsOf,
  type T,
  translator,
} from '../../../../core/i18n';
import { SafeHtml, escapeHtml, trustedHtml } from './html';

/** What a page is written in: its language and that language's translator. */
export interface PageSpeech {
  locale: Locale;
  t: T;
}

export function speech(locale: Locale = 'en'): PageSpeech {
  return { locale, t: translator(locale) };
}

/** A message whose text carries markup (`<strong>`, `<code>`, a link): its parameters escaped, the result markup. */
export type Rich = <K extends MessageKey>(
  key: K,
  ...params: [ParamsOf<EnglishCatalogue[K]>] extends [never] ? [] : [Record<ParamsOf<EnglishCatalogue[K]>, ParamValue | SafeHtml>]
) => SafeHtml;

/**
 * The markup messages of a language. The catalogue's texts are ours (the catalogue test holds each
 * language to the source's markup); every text parameter is escaped, so a name typed by someone
 * else never adds markup. A parameter that is already markup (a `<time>`) goes in as it is.
 */
export function richOf(t: T): Rich {
  return ((key: MessageKey, params?: Record<string, ParamValue | SafeHtml>) => {
    const escaped = params
      ? Object.fromEntries(
          Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? escapeHtml(v) : v instanceof SafeHtml ? v.toString() : v]),
        )
      : undefined;
    return trustedHtml((t as (k: string, p?: Record<string, ParamValue>) => string)(key, escaped));
  }) as Rich;
}
