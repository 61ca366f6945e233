/** How much of a string that came from outside (a header, a URL, a service's error body) a log line keeps. */
export const OUTSIDE_TEXT_MAX = 200;

/**
 * `value` as text cut to `max` characters, saying how much was cut: a request can carry kilobytes
 * in a header or a URL, and a log line must not (docs/decisions.md §10).
 */
export function boundText(value: unknown, max: number = OUTSIDE_TEXT_MAX): string {
  const text = typeof value === 'string' ? value : String(value);
  return text.length <= max ? text : `${text.slice(0, max)}…[${text.length - max} more]`;
}
