import { listed } from '../../../../core/authority';
import { type Locale, type T, translator } from '../../../../core/i18n';
import { permissionIn } from '../../../../core/refusal-text';
import type { Viewer } from './shell';

export { permissionIn };

/** The translator of the signed-in user's Discord language (English before sign-in). */
export function viewerT(viewer: Pick<Viewer, 'locale'> | null | undefined): T {
  return translator(viewer?.locale ?? ('en' satisfies Locale));
}

/** "a, b and c" in the reader's language: English as Tierlink's sentences list names, `Intl.ListFormat` otherwise. */
export function listIn(t: T, names: readonly string[]): string {
  if (t.locale === 'en') return listed(names);
  return new Intl.ListFormat(t.locale, { type: 'conjunction' }).format(names);
}

/** A moment to the minute in UTC, as text: "2026-12-25 00:00 UTC" in English, "25.12.2026, 00:00 UTC" in German. */
export function momentIn(t: T, date: Date): string {
  if (t.locale === 'en') return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const numeric = new Intl.DateTimeFormat(t.locale, {
    timeZone: 'UTC',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  });
  return `${numeric.format(date)} UTC`;
}
