import { de } from './messages/de';
import { en, type EnglishCatalogue, type MessageKey } from './messages/en';
import { esES } from './messages/es-es';
import { ptBR } from './messages/pt-br';
import type { Locale } from './locales';
import { type Catalogue, type Message, type Translate, createTranslator } from './translate';

export * from './format';
export * from './locales';
export { catalogueProblems, pluralCategories } from './check';
export { placeholders, textsOf, type Catalogue, type Message, type ParamsOf, type ParamValue, type PluralForms } from './translate';
export type { EnglishCatalogue, MessageKey };

/** What a reply, a page or a view takes to speak: `t('key', { param })`. */
export type T = Translate<EnglishCatalogue>;

/** Every language's catalogue, English the source. */
export const CATALOGUES: Record<Locale, Catalogue<EnglishCatalogue> | EnglishCatalogue> = { en, de, 'es-ES': esES, 'pt-BR': ptBR };

export const ENGLISH: EnglishCatalogue = en;

const translators = new Map<Locale, T>();

/** The translator of a language (made once per language). */
export function translator(locale: Locale): T {
  let t = translators.get(locale);
  if (!t) {
    t = createTranslator<EnglishCatalogue>(locale, CATALOGUES[locale] as Partial<Record<MessageKey, Message>>, en);
    translators.set(locale, t);
  }
  return t;
}
