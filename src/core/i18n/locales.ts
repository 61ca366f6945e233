/**
 * The languages Tierlink speaks and how a reader's language is chosen: a Discord client's
 * `locale` (an interaction's, or the server's `guild_locale`), or a browser's `Accept-Language`.
 * English is the source; a language we do not have falls back to it (docs/i18n.md).
 */

/** Our languages, named as Discord names them (its `de`, `es-ES`, `pt-BR`; `en` stands for `en-US` and `en-GB`). */
export const LOCALES = ['en', 'de', 'es-ES', 'pt-BR'] as const;
export type Locale = (typeof LOCALES)[number];

/** The languages commands are registered with localizations for (Discord's locale codes). */
export const DISCORD_LOCALIZED: readonly Exclude<Locale, 'en'>[] = ['de', 'es-ES', 'pt-BR'];

/** The name of each language in itself, for the switch on the pages. */
export const LANGUAGE_NAMES: Record<Locale, string> = { en: 'English', de: 'Deutsch', 'es-ES': 'Español', 'pt-BR': 'Português (Brasil)' };

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/**
 * Our language for a language tag: by its primary subtag, so `de-AT` reads German, `es-419`
 * reads the Spanish of Spain and `pt-PT` the Portuguese of Brazil (closer than English for both);
 * null for a language we do not have.
 */
export function matchLocale(tag: string | null | undefined): Locale | null {
  if (!tag) return null;
  const primary = tag.trim().toLowerCase().split(/[-_]/)[0];
  switch (primary) {
    case 'en':
      return 'en';
    case 'de':
      return 'de';
    case 'es':
      return 'es-ES';
    case 'pt':
      return 'pt-BR';
    default:
      return null;
  }
}

/** A Discord `locale` or `guild_locale` (`de`, `es-ES`, `pt-BR`, `en-US`, `fr`, …): ours, or English. */
export function fromDiscordLocale(locale: string | null | undefined): Locale {
  return matchLocale(locale) ?? 'en';
}

/**
 * The best of our languages for an `Accept-Language` header (RFC 9110 §12.5.4): the tags in order
 * of their `q`, the first we speak; English when none is ours. At most 20 tags are read.
 */
export function fromAcceptLanguage(header: string | null | undefined): Locale {
  if (!header) return 'en';
  const ranked = header
    .slice(0, 1000)
    .split(',')
    .slice(0, 20)
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=(.*)$/i.exec(p)?.[1]?.trim()).find((v) => v !== undefined);
      // A weight that is not a number counts as 0: the tag is not wanted.
      const weight = q === undefined ? 1 : /^[01](\.\d{0,3})?$/.test(q) ? Number(q) : 0;
      return { tag: tag.trim(), weight, index };
    })
    .filter((t) => t.tag !== '' && t.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  for (const { tag } of ranked) {
    const locale = matchLocale(tag);
    if (locale) return locale;
  }
  return 'en';
}
