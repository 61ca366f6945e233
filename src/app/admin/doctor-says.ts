import { type MessageKey, type ParamValue, type T, translator } from '../../core/i18n';
import { type RefusalFacts, permissionsIn, refusalFromFacts } from '../../core/refusal-text';
import type { DoctorCheck } from './doctor';

/*
 * `/doctor`'s sentences as catalogue keys and parameters: a check says what it found as a `Said`,
 * English is written from the source catalogue when the check is made (the text tests and the
 * dashboard's English read), and another language when it is shown (`checkDetail`, `checkFix`).
 */

/**
 * A check's sentence: a catalogue key (`doctorSays.*`) and its parameters, which may be sentences
 * too; a refusal about a role said from its facts (src/core/refusal-text.ts); Discord permissions
 * by their English names, listed as Discord names them; or several sentences one after the other.
 */
export type Said =
  | { key: Extract<MessageKey, `doctorSays.${string}`>; params?: Record<string, ParamValue | Said> }
  | { refusal: RefusalFacts; part: 'message' | 'fix' }
  | { permissions: readonly string[] }
  | { all: readonly Said[] };

type SaidKey = Extract<Said, { key: unknown }>['key'];

/** A `Said` of a key and its parameters. */
export function says(key: SaidKey, params?: Record<string, ParamValue | Said>): Said {
  return params ? { key, params } : { key };
}

/** A `Said` in a language. */
export function sayIn(t: T, said: Said): string {
  if ('refusal' in said) return refusalFromFacts(t, said.refusal)?.[said.part] ?? '';
  if ('permissions' in said) return permissionsIn(t, said.permissions);
  if ('all' in said) return said.all.map((s) => sayIn(t, s)).join('; ');
  const params: Record<string, ParamValue> = {};
  for (const [name, value] of Object.entries(said.params ?? {})) params[name] = typeof value === 'object' ? sayIn(t, value) : value;
  return (t as unknown as (key: SaidKey, params: Record<string, ParamValue>) => string)(said.key, params);
}

const EN = translator('en');

/** A check whose detail and fix are catalogue sentences: English from the source catalogue, the others at display. */
export function saidCheck(name: string, ok: boolean, detail: Said, fix: Said | null): DoctorCheck {
  return { name, ok, detail: sayIn(EN, detail), fix: fix ? sayIn(EN, fix) : null, said: { detail, fix } };
}

/**
 * A check whose English is written where it is made (as it always was, word for word), with the
 * same detail and fix as sentences for a reader of another language.
 */
export function withSaid(check: Omit<DoctorCheck, 'said'>, detail: Said, fix: Said | null): DoctorCheck {
  return { ...check, said: { detail, fix } };
}

/** A check's detail in the reader's language (English as the check states it). */
export function checkDetail(t: T, check: DoctorCheck): string {
  return t.locale === 'en' || !check.said ? check.detail : sayIn(t, check.said.detail);
}

/** A check's fix in the reader's language, or null when it has none. */
export function checkFix(t: T, check: DoctorCheck): string | null {
  return t.locale === 'en' || !check.said?.fix ? check.fix : sayIn(t, check.said.fix);
}
