import { LANGUAGE_NAMES, LOCALES, type Locale, type T, translator } from '../../../../core/i18n';
import { LOGO_SVG, renderHtmlDocument, pagePolicy } from './document';
import { html, safeHref, trustedHtml, prose, type HtmlValue, type SafeHtml } from './html';

/**
 * The pages' card layout (inside the document of src/edges/inbound/web/pages/document.ts) and the parts
 * every page is made of. One inline stylesheet, inline SVG
 * icons, no script, no web font and nothing fetched from the network: the pages work offline and
 * under a Content-Security-Policy that allows nothing but this stylesheet (by hash).
 */

export type Tone = 'success' | 'warning' | 'error' | 'info';

const STYLES = `
:root{color-scheme:light dark;
--bg:#f2f3f7;--bg-glow:#e4e2fb;--surface:#fff;--surface-2:#f7f8fa;--text:#16181d;--muted:#545966;--border:#e1e3e9;
--accent:#4b40d6;--accent-hover:#3d33bd;--on-accent:#fff;--link:#4338ca;--mention:#3b3fb8;--mention-bg:#eceefe;
--success:#12703a;--success-bg:#e9f7ee;--success-border:#b5e0c4;
--warning:#8a4b00;--warning-bg:#fff5e0;--warning-border:#f1d08f;
--error:#b42318;--error-bg:#fdf0ee;--error-border:#f3c3bd;
--info:#3b44b8;--info-bg:#eef0fd;--info-border:#cbd0f7;
--shadow:0 1px 2px rgb(16 24 40/.04),0 12px 32px -8px rgb(16 24 40/.10)}
@media (prefers-color-scheme:dark){:root{
--bg:#0c0e13;--bg-glow:#1b1a3a;--surface:#161920;--surface-2:#1c2029;--text:#eceef3;--muted:#a6acba;--border:#2a2f3a;
--accent:#5a50e8;--accent-hover:#6a61f0;--on-accent:#fff;--link:#aaa5ff;--mention:#c3c6ff;--mention-bg:#272a52;
--success:#5fd08f;--success-bg:#102419;--success-border:#1f4a30;
--warning:#f3b845;--warning-bg:#261c09;--warning-border:#564015;
--error:#ff8d84;--error-bg:#2b1313;--error-border:#5a2424;
--info:#a3abff;--info-bg:#161a35;--info-border:#2f376e;
--shadow:0 1px 2px rgb(0 0 0/.3),0 12px 32px -8px rgb(0 0 0/.5)}}
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;min-height:100vh;background:radial-gradient(90rem 28rem at 50% -12rem,var(--bg-glow),transparent 70%) no-repeat,var(--bg);color:var(--text);
font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Noto Sans","Liberation Sans",sans-serif,"Apple Color Emoji","Segoe UI Emoji","Noto Color Emoji";
overflow-wrap:anywhere;-webkit-font-smoothing:antialiased}
h1,h2,h3,p,ul,ol,dl,dd{margin:0}
ul,ol{padding:0;list-style:none}
a{color:var(--link);text-underline-offset:.18em;text-decoration-thickness:1px}
a:hover{text-decoration-thickness:2px}
a:focus-visible{outline:3px solid var(--accent);outline-offset:2px;border-radius:6px}
svg{flex:none}
.shell{max-width:42rem;margin:0 auto;padding:1rem .75rem 2rem}
.brand{display:flex;align-items:center;gap:.5rem;padding:.25rem .5rem 1rem;font-weight:700;letter-spacing:-.01em;color:var(--text)}
.brand svg{width:1.625rem;height:1.625rem}
.top{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.25rem .75rem;padding-bottom:1rem}
.top .brand{padding-bottom:0}
.languages{display:flex;flex-wrap:wrap;gap:.125rem .625rem;padding:0 .5rem;font-size:.875rem}
.languages a{color:var(--muted);text-decoration:none;border-radius:.375rem}
.languages a:hover{color:var(--link);text-decoration:underline}
.languages a[aria-current]{color:var(--text);font-weight:650}
.card{background:var(--surface);border:1px solid var(--border);border-radius:1.25rem;box-shadow:var(--shadow);overflow:hidden}
.hero{padding:1.5rem 1.25rem 1.25rem}
.context{display:grid;gap:.25rem;margin-bottom:1.25rem;font-size:.875rem;color:var(--muted)}
.context-item{display:flex;align-items:flex-start;gap:.5rem;min-width:0;line-height:1.4}
.context-item:first-child{font-weight:650;color:var(--text)}
.context-item svg{width:1rem;height:1rem;margin-top:.05rem;color:var(--muted)}
.eyebrow{margin-bottom:.375rem;font-size:.8125rem;font-weight:700;letter-spacing:.06em;text-transform:uppercase;color:var(--tone)}
.hero-top{display:flex;align-items:flex-start;gap:.875rem}
.badge{flex:none;display:grid;place-items:center;width:2.75rem;height:2.75rem;border-radius:50%;background:var(--tone-bg);color:var(--tone);border:1px solid var(--tone-border)}
.badge svg{width:1.375rem;height:1.375rem}
h1{font-size:clamp(1.5rem,1.2rem + 1.4vw,2rem);line-height:1.2;letter-spacing:-.02em;font-weight:750;text-wrap:balance}
.hero-top h1{padding-top:.3rem}
.lead{margin-top:.75rem;color:var(--muted)}
.lead strong{color:var(--text)}
.standing{display:inline-flex;align-items:baseline;gap:.5rem;margin-top:.875rem;padding:.375rem .75rem;border-radius:.75rem;background:var(--tone-bg);border:1px solid var(--tone-border);color:var(--tone);font-size:.9375rem;font-weight:600}
.standing::before{content:"";flex:none;width:.5rem;height:.5rem;border-radius:50%;background:currentColor;transform:translateY(-.05em)}
.next{margin:0 1.25rem 1.25rem;padding:1rem 1.125rem 1.125rem;border-radius:1rem;background:var(--tone-bg);border:1px solid var(--tone-border)}
.next-title{display:flex;align-items:center;gap:.375rem;margin-bottom:.5rem;font-size:.8125rem;font-weight:700;letter-spacing:.06em;text-transform:uppercase;color:var(--tone)}
.next-title svg{width:1rem;height:1rem}
.steps{display:grid;gap:.875rem;counter-reset:step}
.step-text{font-size:1.0625rem;font-weight:650;line-height:1.4}
.step-detail{margin-top:.25rem;color:var(--muted)}
.steps.numbered .step{position:relative;padding-left:2.125rem;counter-increment:step}
.steps.numbered .step::before{content:counter(step);position:absolute;left:0;top:.0625rem;display:grid;place-items:center;width:1.5rem;height:1.5rem;border-radius:50%;background:var(--surface);border:1px solid var(--tone-border);color:var(--tone);font-size:.8125rem;font-weight:700}
.button{display:flex;align-items:center;justify-content:center;gap:.5rem;min-height:2.875rem;margin-top:.875rem;padding:.625rem 1.25rem;border-radius:.75rem;background:var(--accent);color:var(--on-accent);font-weight:650;text-decoration:none;text-align:center;box-shadow:0 1px 2px rgb(16 24 40/.12)}
.button:hover{background:var(--accent-hover)}
.button svg{width:1.125rem;height:1.125rem}
code,kbd{font:600 .92em/1.3 ui-monospace,"SFMono-Regular",Menlo,Consolas,"Liberation Mono",monospace;padding:.0625rem .375rem;border-radius:.375rem;background:var(--surface-2);border:1px solid var(--border);color:var(--text);white-space:nowrap}
.notice{display:flex;gap:.75rem;margin:0 1.25rem 1.25rem;padding:.875rem 1rem;border-radius:.875rem;background:var(--surface-2);border:1px solid var(--border);font-size:.9375rem}
.notice svg{width:1.25rem;height:1.25rem;margin-top:.0625rem;color:var(--info)}
.section{padding:1.25rem;border-top:1px solid var(--border)}
.section-title{font-size:1.0625rem;font-weight:700;letter-spacing:-.01em}
.section-intro{margin-top:.25rem;color:var(--muted);font-size:.9375rem}
.section-body{margin-top:.875rem}
.chips{display:flex;flex-wrap:wrap;gap:.5rem}
.chip{display:inline-flex;align-items:center;gap:.375rem;min-width:0;padding:.3125rem .75rem;border-radius:999px;background:var(--surface-2);border:1px solid var(--border);font-weight:600;font-size:.9375rem}
.chip svg{width:.9375rem;height:.9375rem;color:var(--warning)}
.mention{display:inline;padding:0 .25rem;border-radius:.25rem;background:var(--mention-bg);color:var(--mention);font-weight:650}
.rows{display:grid;gap:.625rem}
.row{padding:.75rem .875rem;border-radius:.875rem;background:var(--surface-2);border:1px solid var(--border)}
.row-main{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.25rem .75rem}
.row-name{min-width:0;font-weight:650}
.row-text{margin-top:.25rem;color:var(--muted);font-size:.9375rem}
.row-fix{display:flex;gap:.5rem;margin-top:.5rem;font-size:.9375rem}
.row-fix svg{width:1rem;height:1rem;margin-top:.2rem;color:var(--muted)}
.row-meta{color:var(--muted);font-size:.9375rem}
.row .chips{margin-top:.5rem}
.pill{display:inline-flex;align-items:center;padding:.0625rem .5rem;border-radius:999px;font-size:.75rem;font-weight:700;letter-spacing:.04em;text-transform:uppercase;border:1px solid}
.pill.added{background:var(--success-bg);color:var(--success);border-color:var(--success-border)}
.pill.kept{background:var(--info-bg);color:var(--info);border-color:var(--info-border)}
.pill.removed{background:var(--error-bg);color:var(--error);border-color:var(--error-border)}
.pill.skipped,.pill.muted{background:var(--surface);color:var(--muted);border-color:var(--border)}
.pill.warn{background:var(--warning-bg);color:var(--warning);border-color:var(--warning-border)}
.stats{display:grid;grid-template-columns:repeat(auto-fit,minmax(5.5rem,1fr));gap:.5rem}
.stat{display:flex;flex-direction:column-reverse;justify-content:flex-end;padding:.75rem;border-radius:.875rem;background:var(--surface-2);border:1px solid var(--border)}
.stat-value{display:block;font-size:clamp(1.125rem,5vw,1.5rem);overflow-wrap:normal;white-space:nowrap;font-weight:750;line-height:1.2;letter-spacing:-.02em;font-variant-numeric:tabular-nums}
.stat-label{display:block;margin-top:.125rem;color:var(--muted);font-size:.8125rem;line-height:1.3}
.status-line{display:flex;gap:.75rem;align-items:flex-start}
.status-line .badge{width:2.25rem;height:2.25rem}
.status-line .badge svg{width:1.125rem;height:1.125rem}
.choices{display:grid;gap:.625rem}
.choice{border-radius:.875rem;background:var(--surface-2);border:1px solid var(--border)}
.choice-link{display:flex;align-items:center;gap:.75rem;padding:.875rem 1rem;color:var(--text);text-decoration:none;border-radius:.875rem;width:100%;border:0;background:none;font:inherit;text-align:left;cursor:pointer}
.choice-link:hover{background:var(--info-bg)}
.choice-link>svg{width:1.25rem;height:1.25rem;color:var(--link);margin-left:auto}
.choice-mark{flex:none;display:grid;place-items:center;width:2.5rem;height:2.5rem;border-radius:.75rem;background:var(--accent);color:var(--on-accent);font-weight:750;font-size:1.0625rem}
.choice-body{min-width:0}
.choice-name{display:block;font-weight:650;line-height:1.35}
.choice-meta{display:block;color:var(--muted);font-size:.875rem}
.choice-extra{padding:0 1rem .75rem 4.25rem;font-size:.875rem;margin-top:-.375rem}
.foot{padding:1.25rem .5rem 0;color:var(--muted);font-size:.875rem;text-align:center}
.foot p+p{margin-top:.25rem}
.tone-success{--tone:var(--success);--tone-bg:var(--success-bg);--tone-border:var(--success-border)}
.tone-warning{--tone:var(--warning);--tone-bg:var(--warning-bg);--tone-border:var(--warning-border)}
.tone-error{--tone:var(--error);--tone-bg:var(--error-bg);--tone-border:var(--error-border)}
.tone-info{--tone:var(--info);--tone-bg:var(--info-bg);--tone-border:var(--info-border)}
.nowrap{white-space:nowrap}
.visually-hidden{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
@media (min-width:36rem){
.shell{padding:3rem 1.5rem 3rem}
.brand{padding-bottom:1.25rem}
.top{padding-bottom:1.25rem}
.hero{padding:2.25rem 2.25rem 1.5rem}
.next,.notice{margin-left:2.25rem;margin-right:2.25rem}
.next{margin-bottom:2rem;padding:1.25rem 1.5rem 1.375rem}
.section{padding:1.5rem 2.25rem 1.75rem}
.badge{width:3rem;height:3rem}
.lead{font-size:1.0625rem}
.button{display:inline-flex}
.stat{padding:1rem}
.stat-value{font-size:1.75rem}
.stat-label{font-size:.875rem}
}
@media (prefers-reduced-motion:no-preference){.button,.choice-link{transition:background-color .15s}}
@media print{body{background:none}.card{box-shadow:none}}
`;

/** The shared stylesheet, for pages with a shell of their own (the dashboard). */
export { STYLES as PAGE_STYLES };

/** The policy the pages need: nothing but their own stylesheet and inline data images. */
export const PAGE_CONTENT_SECURITY_POLICY = pagePolicy(STYLES);

const svg = (body: string, viewBox = '0 0 24 24'): SafeHtml =>
  trustedHtml(
    `<svg viewBox="${viewBox}" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false">${body}</svg>`,
  );

/** Inline icons (24×24, stroked in the current text colour). */
export const icons = {
  check: svg('<path d="M20 6 9 17l-5-5"/>'),
  alert: svg('<path d="M12 6.5v7"/><path d="M12 17.5h.01" stroke-width="2.6"/>'),
  cross: svg('<path d="M17 7 7 17M7 7l10 10"/>'),
  info: svg('<path d="M12 10.5v7"/><path d="M12 6.5h.01" stroke-width="2.6"/>'),
  infoCircle: svg('<circle cx="12" cy="12" r="9.5"/><path d="M12 11v5.5"/><path d="M12 7.5h.01" stroke-width="2.6"/>'),
  arrowRight: svg('<path d="M5 12h14"/><path d="m13 6 6 6-6 6"/>'),
  chevronRight: svg('<path d="m9 6 6 6-6 6"/>'),
  external: svg('<path d="M14 4h6v6"/><path d="M20 4 10 14"/><path d="M18 14v5a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1V7a1 1 0 0 1 1-1h5"/>'),
  star: svg('<path d="m12 3 2.7 5.6 6.1.9-4.4 4.3 1 6.1L12 17l-5.4 2.9 1-6.1-4.4-4.3 6.1-.9z"/>'),
  server: svg(
    '<path d="M5 4h14a1 1 0 0 1 1 1v14a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1V5a1 1 0 0 1 1-1z"/><path d="M9 9.5h6"/><path d="M9 14.5h6"/>',
  ),
  user: svg('<circle cx="12" cy="8" r="4"/><path d="M4 21a8 8 0 0 1 16 0"/>'),
  wrench: svg(
    '<path d="M14.7 6.3a1 1 0 0 0 0 1.4l1.6 1.6a1 1 0 0 0 1.4 0l3.8-3.8a6 6 0 0 1-7.9 7.9l-6.9 6.9a2.1 2.1 0 0 1-3-3l6.9-6.9a6 6 0 0 1 7.9-7.9z"/>',
  ),
  bolt: svg('<path d="M13 3 5 14h6l-1 7 8-11h-6z"/>'),
} as const;

const LOGO = trustedHtml(LOGO_SVG);

const TONE_ICON: Record<Tone, SafeHtml> = {
  success: icons.check,
  warning: icons.alert,
  error: icons.cross,
  info: icons.info,
};

export interface DocumentOptions {
  /** The tab title; " · Tierlink" is appended. */
  title: string;
  /** The page's language; English when absent. */
  locale?: Locale;
  /** Where the page is in another language: the switch at the top. Absent on pages that must not be loaded twice. */
  languages?: ((locale: Locale) => string) | null;
  tone: Tone;
  /** The card's content: {@link hero}, {@link nextSteps}, {@link section}s. */
  main: HtmlValue;
  /** Lines under the card. */
  footer: readonly HtmlValue[];
}

/** A complete HTML document: the mark, the card, the lines under it. */
export function renderDocument(options: DocumentOptions): string {
  return renderHtmlDocument({
    title: options.title,
    stylesheet: STYLES,
    contentSecurityPolicy: PAGE_CONTENT_SECURITY_POLICY,
    lang: options.locale ?? 'en',
    bodyClass: `tone-${options.tone}`,
    body: html`<div class="shell">
<div class="top"><header class="brand">${LOGO}<span>Tierlink</span></header>${languageSwitch(options.locale ?? 'en', options.languages ?? null)}</div>
<main class="card">
${options.main}
</main>
<footer class="foot">${options.footer.map((line) => html`<p>${line}</p>`)}</footer>
</div>`,
  });
}

/**
 * The switch between languages: each language named in itself, in its own `lang`, the current one
 * marked. No script: each is a link to the same page with `?lang=` (src/edges/inbound/web/page-language.ts).
 */
function languageSwitch(current: Locale, href: ((locale: Locale) => string) | null): SafeHtml | null {
  if (!href) return null;
  const t = translator(current);
  return html`<nav class="languages" aria-label="${t('page.language')}">${LOCALES.map((locale) =>
    locale === current
      ? html`<a href="${href(locale)}" lang="${locale}" hreflang="${locale}" aria-current="true">${LANGUAGE_NAMES[locale]}</a>`
      : html`<a href="${href(locale)}" lang="${locale}" hreflang="${locale}">${LANGUAGE_NAMES[locale]}</a>`,
  )}</nav>`;
}

export interface HeroOptions {
  tone: Tone;
  /** Where this happens, e.g. the campaign and the server (see {@link context}). */
  context?: HtmlValue;
  /** A short label over the headline ("Link expired"). */
  eyebrow?: string | null;
  headline: string;
  lead?: HtmlValue;
  /** One status sentence shown as a tinted line under the lead. */
  standing?: string | null;
}

/** The top of the card: context, the state's icon, the headline (the page's only `h1`). */
export function hero(o: HeroOptions): SafeHtml {
  return html`<div class="hero">
${o.context}
<div class="hero-top"><span class="badge">${TONE_ICON[o.tone]}</span><div>${o.eyebrow ? html`<p class="eyebrow">${o.eyebrow}</p>` : null}<h1>${o.headline}</h1></div></div>
${o.lead ? html`<p class="lead">${o.lead}</p>` : null}
${o.standing ? html`<p class="standing"><span>${prose(o.standing.charAt(0).toUpperCase() + o.standing.slice(1))}</span></p>` : null}
</div>`;
}

/** What is linked to what, one line each ("★ Campaign", "▢ Server"). Null parts are left out. */
export function context(parts: ReadonlyArray<{ icon: SafeHtml; label: string; name: string | null }>): SafeHtml | null {
  const present = parts.filter((p): p is { icon: SafeHtml; label: string; name: string } => Boolean(p.name));
  if (present.length === 0) return null;
  const items = present.map(
    (p) => html`<li class="context-item">${p.icon}<span><span class="visually-hidden">${p.label}: </span>${p.name}</span></li>`,
  );
  return html`<ul class="context">${items}</ul>`;
}

export interface Step {
  text: HtmlValue;
  detail?: HtmlValue;
  action?: { label: string; href: string | null } | null;
}

/**
 * What to do now. Marked `data-next-step` so the visual test can check it is on screen without
 * scrolling. One step reads as a sentence; several become a numbered list.
 */
export function nextSteps(steps: readonly Step[], title?: string | null, t: T = translator('en')): SafeHtml | null {
  if (steps.length === 0) return null;
  const items = steps.map((s) => {
    const href = safeHref(s.action?.href);
    return html`<li class="step"><p class="step-text">${s.text}</p>${s.detail ? html`<p class="step-detail">${s.detail}</p>` : null}${
      s.action && href ? html`<a class="button" href="${href}" rel="noopener noreferrer">${s.action.label}${icons.external}</a>` : null
    }</li>`;
  });
  return html`<section class="next" data-next-step aria-labelledby="next-title">
<h2 class="next-title" id="next-title">${icons.arrowRight}${steps.length > 1 ? t('page.nextSteps') : (title ?? t('page.nextStep'))}</h2>
<ol class="steps${steps.length > 1 ? ' numbered' : ''}">${items}</ol>
</section>`;
}

/** A side note between the next step and the details (an account that moved, another way out). */
export function notice(text: HtmlValue): SafeHtml {
  return html`<div class="notice" role="note">${icons.infoCircle}<p>${text}</p></div>`;
}

/** A titled block of details. Callers leave out sections that would be empty. */
export function section(o: { id: string; title: string; intro?: HtmlValue; body: HtmlValue }): SafeHtml {
  return html`<section class="section" aria-labelledby="${o.id}">
<h2 class="section-title" id="${o.id}">${o.title}</h2>
${o.intro ? html`<p class="section-intro">${o.intro}</p>` : null}
<div class="section-body">${o.body}</div>
</section>`;
}

/** A Discord role written the way Discord shows a mention: "@Gold". */
export function mention(roleName: string): SafeHtml {
  return html`<span class="mention">@${roleName}</span>`;
}

/** A slash command or setting name. */
export function command(text: string): SafeHtml {
  return html`<code>${text}</code>`;
}
