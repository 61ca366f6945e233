import type { Locale } from './locales';

/**
 * The message catalogues' types and the one function that reads them. A message is a string with
 * `{name}` placeholders, or plural forms chosen by `Intl.PluralRules` from the `count` parameter.
 * English is the source (`messages/en.ts`, `as const` so each key's placeholders are typed); every
 * other language is a {@link Catalogue}: a key missing there fails the type-check, and the
 * catalogue test compares placeholders and plural forms key by key (docs/i18n.md).
 */

/** Plural forms of one message, by `Intl.PluralRules` category; `other` always. */
export interface PluralForms {
  readonly zero?: string;
  readonly one?: string;
  readonly two?: string;
  readonly few?: string;
  readonly many?: string;
  readonly other: string;
}

export type Message = string | PluralForms;

/** The placeholders of a message's text, by their names. */
export type PlaceholdersOf<S> = S extends `${string}{${infer Name}}${infer Rest}` ? Name | PlaceholdersOf<Rest> : never;

type FormsText<M> = M extends PluralForms ? Extract<M[keyof M], string> : never;

/** The parameters a message takes: its placeholders, and `count` for plural forms. */
export type ParamsOf<M> = M extends string ? PlaceholdersOf<M> : 'count' | PlaceholdersOf<FormsText<M>>;

/** Every other language's catalogue: the same keys as the source, each a text or plural forms. */
export type Catalogue<Source extends Record<string, Message>> = {
  readonly [K in keyof Source]: Source[K] extends string ? string : PluralForms;
};

export type ParamValue = string | number;

/** `t(key)` for a message without placeholders, `t(key, { name })` with them; `t.locale` its language. */
export type Translate<Source extends Record<string, Message>> = (<K extends keyof Source & string>(
  key: K,
  ...params: [ParamsOf<Source[K]>] extends [never] ? [] : [Record<ParamsOf<Source[K]>, ParamValue>]
) => string) & { readonly locale: Locale };

const PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9_]*)\}/g;

/** The placeholder names in a text, sorted and without repeats (for the catalogue test). */
export function placeholders(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]!))].sort();
}

/** The texts of a message: the one text, or each plural form. */
export function textsOf(message: Message): string[] {
  return typeof message === 'string' ? [message] : Object.values(message).filter((v): v is string => typeof v === 'string');
}

/**
 * A translator for one language: its catalogue, English for a key it lacks (never at run time
 * when the types hold; the test fails first). Numbers in parameters are written the language's way.
 */
export function createTranslator<Source extends Record<string, Message>>(
  locale: Locale,
  catalogue: Partial<Record<keyof Source, Message>>,
  source: Source,
): Translate<Source> {
  const plural = new Intl.PluralRules(locale);
  const number = new Intl.NumberFormat(locale);
  const t = (key: string, params?: Record<string, ParamValue>) => {
    const message = (catalogue as Record<string, Message | undefined>)[key] ?? (source as Record<string, Message>)[key];
    if (message === undefined) throw new Error(`no message "${key}"`);
    let text: string;
    if (typeof message === 'string') text = message;
    else {
      const count = Number(params?.count ?? 0);
      const category = plural.select(count) as keyof PluralForms;
      text = message[category] ?? message.other;
    }
    if (!params) return text;
    return text.replace(PLACEHOLDER, (whole, name: string) => {
      const value = params[name];
      if (value === undefined) return whole;
      return typeof value === 'number' ? number.format(value) : value;
    });
  };
  return Object.assign(t, { locale }) as Translate<Source>;
}
