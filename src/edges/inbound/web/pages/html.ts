/**
 * HTML built from templates that escape by default. Every value interpolated into {@link html} is
 * escaped unless it is itself the result of `html` (or of {@link trustedHtml}), so a campaign, tier,
 * role or patron name typed by someone else can never add markup to our pages.
 */

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for element content and for quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch] ?? ch);
}

/** Markup that is already safe: produced by {@link html} or vouched for by {@link trustedHtml}. */
export class SafeHtml {
  /** @internal use {@link html} or {@link trustedHtml}. */
  constructor(private readonly markup: string) {}

  toString(): string {
    return this.markup;
  }
}

/**
 * What may be interpolated. `false`, `null` and `undefined` render nothing, so
 * `${list.length > 0 && html`…`}` reads naturally; arrays render each item in turn.
 */
export type HtmlValue = SafeHtml | string | number | false | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === false || value === null || value === undefined) return '';
  if (value instanceof SafeHtml) return value.toString();
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** Tagged template: the literal parts are markup, every interpolated value is escaped. */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) {
    out += render(values[i]) + (strings[i + 1] ?? '');
  }
  return new SafeHtml(out);
}

/** Markup written by us (the stylesheet, icons). Never pass anything that came from outside. */
export function trustedHtml(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/**
 * The URL when it is an absolute `https:` or `http:` address or a path on this site, otherwise
 * null. Escaping keeps a value inside its attribute but does not stop a `javascript:` link, so
 * every URL that becomes an `href` goes through here first.
 */
export function safeHref(url: string | null | undefined): string | null {
  if (!url) return null;
  // A path on this site; "//host" and "/\host" are other hosts to a browser.
  if (/^\/(?![/\\])/.test(url)) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
}

/**
 * Text written elsewhere (a reason from the planner, a problem from the doctor), escaped, with its
 * calendar days kept on one line ("2026-11-" / "09" reads as two numbers) and its slash commands
 * set like the other commands on the page.
 */
export function prose(text: string): SafeHtml {
  return new SafeHtml(
    escapeHtml(text).replace(/\d{4}-\d{2}-\d{2}|(?<![^\s(])\/[a-z][a-z0-9_-]*(?![^\s.,;:!?)])/g, (token) =>
      token.startsWith('/') ? `<code>${token}</code>` : `<span class="nowrap">${token}</span>`,
    ),
  );
}

/** "1 role", "3 roles". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}
