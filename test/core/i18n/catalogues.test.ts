import { CATALOGUES, ENGLISH, LOCALES, catalogueProblems, placeholders, textsOf, translator } from '../../../src/core/i18n';
import { createTranslator } from '../../../src/core/i18n/translate';
import { en } from '../../../src/core/i18n/messages/en';

const others = LOCALES.filter((l) => l !== 'en');

describe('the catalogues', () => {
  it.each(others)('%s has every English key, the same placeholders and markup, and the plural forms it needs', (locale) => {
    expect(catalogueProblems(locale, ENGLISH, CATALOGUES[locale])).toEqual([]);
  });

  it('finds a missing key, a placeholder that differs, a plural form that is missing, and markup that differs', () => {
    const { ['link.intro']: _dropped, ...rest } = CATALOGUES.de;
    const doctored = {
      ...rest,
      'link.once': 'Dieser Button ist nur für dich: Er funktioniert einmal, {minuten} Minuten lang.',
      'unlink.elsewhere': { other: 'Außerdem wurden {count} Rollen auf anderen Servern entfernt.' },
      'join.leadPatrons': 'Mitglieder von {campaign} kommen in einem Schritt mit ihren Stufenrollen auf <strong>{server}</strong>.',
    };
    expect(catalogueProblems('de', ENGLISH, doctored)).toEqual([
      'de: "link.intro" is missing',
      'de: "link.once" has placeholders {minuten} where English has {minutes}',
      'de: "unlink.elsewhere" lacks the plural form "one"',
      'de: "join.leadPatrons" has markup </strong> <strong> where English has </strong> </strong> <strong> <strong>',
    ]);
  });

  it('keeps every command description and choice within Discord’s 100 characters, in every language', () => {
    const long = LOCALES.flatMap((locale) =>
      Object.entries(CATALOGUES[locale])
        .filter(([key, text]) => key.startsWith('command.') && typeof text === 'string' && (text.length < 1 || text.length > 100))
        .map(([key]) => `${locale}: ${key}`),
    );
    expect(long).toEqual([]);
  });

  it('falls back to English for a key a language lacks', () => {
    const t = createTranslator('de', { 'link.button': 'Patreon verknüpfen' }, en);
    expect(t('link.button')).toBe('Patreon verknüpfen');
    expect(t('link.intro')).toBe(en['link.intro']);
  });

  it('differs from English in every language for every message of more than two words', () => {
    // A text left in English is a missing translation that the type-check cannot see.
    const same = others.flatMap((locale) =>
      Object.entries(ENGLISH)
        .filter(([key, message]) => {
          const english = textsOf(message).join('|');
          return (
            english.split(/\s+/).length > 2 && textsOf((CATALOGUES[locale] as Record<string, typeof message>)[key]!).join('|') === english
          );
        })
        .map(([key]) => `${locale}: ${key}`),
    );
    expect(same).toEqual([]);
  });

  it('chooses plural forms with Intl.PluralRules and writes numbers the language’s way', () => {
    expect(translator('en')('unlink.elsewhere', { count: 1 })).toBe('Also removed 1 role in other servers.');
    expect(translator('en')('unlink.elsewhere', { count: 2 })).toBe('Also removed 2 roles in other servers.');
    expect(translator('de')('unlink.elsewhere', { count: 1 })).toBe('Außerdem wurde 1 Rolle auf anderen Servern entfernt.');
    expect(translator('de')('unlink.elsewhere', { count: 1200 })).toBe('Außerdem wurden 1.200 Rollen auf anderen Servern entfernt.');
    // Portuguese counts zero with one.
    expect(translator('pt-BR')('unlink.elsewhere', { count: 0 })).toBe('Também foi removido 0 cargo em outros servidores.');
    expect(translator('es-ES')('unlink.failed', { count: 3 })).toBe(
      'No se han podido quitar 3 roles: el propietario del servidor puede usar /doctor.',
    );
  });

  it('names placeholders the same way the translator fills them', () => {
    expect(placeholders('{a} and {b} and {a}')).toEqual(['a', 'b']);
    expect(translator('es-ES')('link.once', { minutes: 15 })).toBe('Este botón es solo para ti: funciona una vez, durante 15 minutos.');
  });
});
