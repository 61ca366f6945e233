import type { Locale } from './locales';
import { type Message, placeholders, textsOf } from './translate';

/**
 * What is wrong with a catalogue against the English source, one sentence each: a key missing
 * (the reader would get English), a key English does not have, placeholders or markup that differ,
 * plural forms the language needs and lacks. The catalogue test asserts none (docs/i18n.md).
 */
export function catalogueProblems(
  locale: Locale,
  source: Readonly<Record<string, Message>>,
  catalogue: Readonly<Record<string, Message | undefined>>,
): string[] {
  const problems: string[] = [];
  const needed = pluralCategories(locale);
  for (const [key, english] of Object.entries(source)) {
    const message = catalogue[key];
    if (message === undefined) {
      problems.push(`${locale}: "${key}" is missing`);
      continue;
    }
    if (typeof english !== typeof message)
      problems.push(`${locale}: "${key}" is ${typeof message === 'string' ? 'not plural' : 'plural'} in ${locale} only`);
    const want = namesIn(english);
    const got = namesIn(message);
    if (want.join() !== got.join())
      problems.push(`${locale}: "${key}" has placeholders {${got.join('}, {')}} where English has {${want.join('}, {')}}`);
    const wantTags = tagsIn(english);
    const gotTags = tagsIn(message);
    if (wantTags.join() !== gotTags.join())
      problems.push(`${locale}: "${key}" has markup ${gotTags.join(' ')} where English has ${wantTags.join(' ')}`);
    if (typeof message !== 'string') {
      for (const category of needed) {
        if (category !== 'other' && !(category in message)) problems.push(`${locale}: "${key}" lacks the plural form "${category}"`);
      }
    }
    for (const text of textsOf(message)) {
      if (text.trim() === '') problems.push(`${locale}: "${key}" is empty`);
    }
  }
  for (const key of Object.keys(catalogue)) {
    if (!(key in source)) problems.push(`${locale}: "${key}" is not an English key`);
  }
  return problems;
}

/**
 * The plural categories a language's whole numbers up to a hundred thousand fall into (the forms a
 * plural message must have). Spanish and Portuguese have a `many` form for exact millions ("un
 * millón de roles"); no count Tierlink shows gets there, and a missing form falls back to `other`.
 */
export function pluralCategories(locale: Locale): string[] {
  const rules = new Intl.PluralRules(locale);
  const seen = new Set<string>();
  for (let n = 0; n <= 1000; n++) seen.add(rules.select(n));
  for (const n of [1e4, 1e5]) seen.add(rules.select(n));
  return [...seen].sort();
}

function namesIn(message: Message): string[] {
  return [...new Set(textsOf(message).flatMap(placeholders))].sort();
}

/** The HTML tags of a message, sorted: a translation keeps the source's markup, no more. */
function tagsIn(message: Message): string[] {
  return textsOf(message)
    .flatMap((text) => [...text.matchAll(/<\/?(?:strong|code|a)\b[^>]*>/g)].map((m) => m[0]))
    .sort();
}
