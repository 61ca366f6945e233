import { formatDate, formatMoney, fromAcceptLanguage, fromDiscordLocale } from '../../../src/core/i18n';

describe('choosing the language', () => {
  it.each([
    ['de', 'de'],
    ['es-ES', 'es-ES'],
    ['pt-BR', 'pt-BR'],
    ['en-US', 'en'],
    ['en-GB', 'en'],
    ['es-419', 'es-ES'],
    ['fr', 'en'],
    [undefined, 'en'],
  ] as const)('Discord locale %s reads %s', (discord, ours) => {
    expect(fromDiscordLocale(discord)).toBe(ours);
  });

  it.each([
    ['de-DE,de;q=0.9,en;q=0.8', 'de'],
    ['fr-FR,fr;q=0.9,pt-BR;q=0.8,en;q=0.5', 'pt-BR'],
    ['en;q=0.4, es;q=0.8', 'es-ES'],
    ['de;q=0, es', 'es-ES'],
    ['ja,zh', 'en'],
    ['', 'en'],
    ['*', 'en'],
    ['pt-PT', 'pt-BR'],
    ['de;q=abc,es;q=0.1', 'es-ES'],
  ] as const)('Accept-Language %j reads %s', (header, ours) => {
    expect(fromAcceptLanguage(header)).toBe(ours);
  });
});

describe('money and dates', () => {
  it('writes the campaign’s currency the reader’s way, without zero cents', () => {
    expect(formatMoney('en', 500, 'EUR')).toBe('€5');
    expect(formatMoney('de', 500, 'EUR')).toBe('5\u00a0€');
    expect(formatMoney('pt-BR', 550, 'BRL')).toBe('R$\u00a05,50');
    expect(formatMoney('es-ES', 1000, 'USD')).toBe('10\u00a0US$');
    expect(formatMoney('en', 500, 'JPY')).toBe('¥500');
  });

  it('writes a day in the reader’s language and time zone', () => {
    const at = new Date('2026-11-09T23:30:00Z');
    expect(formatDate('de', at)).toBe('9. November 2026');
    expect(formatDate('pt-BR', at, 'America/Sao_Paulo')).toBe('9 de novembro de 2026');
    expect(formatDate('es-ES', at, 'Europe/Madrid')).toBe('10 de noviembre de 2026');
  });
});
