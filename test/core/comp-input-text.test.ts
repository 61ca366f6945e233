import { type CompInputFacts, compInputWords } from '../../src/core/comp-input-text';
import { translator } from '../../src/core/i18n';
import { COMP_REASON_MAX, parseUntil } from '../../src/app/comps/comp-service';
import { englishIn } from '../support/english-leaks';

/** A comp's date or reason refused: English as the service wrote it, the other languages from its facts. */

const NOW = new Date('2026-11-28T12:00:00Z');

const refusals: Array<{ message: string; facts: CompInputFacts }> = [
  ...['next friday', '2026-11-01', '2032-01-01'].map((text) => {
    const parsed = parseUntil(text, NOW);
    if (parsed.ok) throw new Error(`${text} was accepted`);
    return parsed;
  }),
  { message: 'Say why the comp is given (it is shown to staff and in the audit log).', facts: { code: 'no_reason' } },
  { message: `Keep the reason under ${COMP_REASON_MAX} characters.`, facts: { code: 'reason_too_long', max: COMP_REASON_MAX } },
];

test('each refused date says why, as facts', () => {
  expect(refusals.slice(0, 3).map((r) => r.facts)).toEqual([
    { code: 'not_a_date', given: 'next friday' },
    { code: 'past' },
    { code: 'too_far' },
  ]);
  expect(parseUntil('2026-12-31', NOW)).toEqual({ ok: true, until: new Date('2027-01-01T00:00:00Z') });
});

test('English says the service’s sentence, which the English catalogue says word for word', () => {
  const en = translator('en');
  const catalogue = [
    en('compSays.notADate', { given: 'next friday' }),
    en('compSays.past'),
    en('compSays.tooFar'),
    en('compSays.noReason'),
    en('compSays.reasonTooLong', { max: COMP_REASON_MAX }),
  ];
  expect(refusals.map((r) => compInputWords(en, r))).toEqual(refusals.map((r) => r.message));
  expect(catalogue).toEqual(refusals.map((r) => r.message));
});

test.each(['de', 'es-ES', 'pt-BR'] as const)('in %s, every refusal is said with no English left, the date as typed', (locale) => {
  const t = translator(locale);
  for (const r of refusals) {
    const said = compInputWords(t, r);
    expect(said).not.toBe(r.message);
    expect(englishIn(said)).toEqual([]);
  }
  expect(compInputWords(t, refusals[0]!)).toContain('next friday');
  expect(compInputWords(t, refusals[4]!)).toContain(String(COMP_REASON_MAX));
});
