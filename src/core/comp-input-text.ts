import type { T } from './i18n';

/**
 * Why a comp's end or reason was refused, as facts: the comp service writes the English sentence
 * where it decides (English replies show it as it is), another language says it from these.
 */
export type CompInputFacts =
  | { code: 'not_a_date'; given: string }
  | { code: 'past' }
  | { code: 'too_far' }
  | { code: 'no_reason' }
  | { code: 'reason_too_long'; max: number };

/** A comp's date or reason refused, in the reader's language: English as the service wrote it. */
export function compInputWords(t: T, refusal: { message: string; facts?: CompInputFacts }): string {
  const { facts } = refusal;
  if (t.locale === 'en' || !facts) return refusal.message;
  switch (facts.code) {
    case 'not_a_date':
      return t('compSays.notADate', { given: facts.given });
    case 'past':
      return t('compSays.past');
    case 'too_far':
      return t('compSays.tooFar');
    case 'no_reason':
      return t('compSays.noReason');
    case 'reason_too_long':
      return t('compSays.reasonTooLong', { max: facts.max });
  }
}
