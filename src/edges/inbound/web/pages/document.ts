import { createHash } from 'node:crypto';
import { html, trustedHtml, type HtmlValue } from './html';
import { LOCAL_TIME_SCRIPT, LOCAL_TIME_SCRIPT_SOURCE } from './local-time';

/**
 * The document skeleton every page of Tierlink shares, the link/connect/join pages and the
 * dashboard alike: the doctype, and a head that carries the page's Content-Security-Policy (also
 * sent as a header, see src/edges/inbound/web/html-response.ts), no referrer, no indexing, both colour
 * schemes, the mark as the favicon, the page's one inline stylesheet, and the script that writes
 * times in the reader's time zone. Each page brings its own stylesheet, policy and body.
 */

/** The mark: three bars of falling length, tiers on a violet tile. */
export const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" aria-hidden="true" focusable="false"><rect width="32" height="32" rx="9" fill="#4b40d6"/>' +
  '<rect x="8" y="9" width="16" height="3.2" rx="1.6" fill="#fff"/><rect x="8" y="14.4" width="12" height="3.2" rx="1.6" fill="#fff" opacity=".85"/>' +
  '<rect x="8" y="19.8" width="8" height="3.2" rx="1.6" fill="#fff" opacity=".7"/></svg>';
const FAVICON = `data:image/svg+xml,${encodeURIComponent(LOGO_SVG)}`;

/**
 * The policy of a page made of one inline stylesheet and the one script that writes times in the
 * reader's time zone (src/edges/inbound/web/pages/local-time.ts): nothing but those two (by their
 * hashes) and inline data images, and forms that post only to this site (the campaign chooser and
 * the dashboard have forms). No script of anyone else's, no connection, no frame.
 */
export function pagePolicy(stylesheet: string): string {
  return [
    "default-src 'none'",
    `style-src 'sha256-${createHash('sha256').update(stylesheet).digest('base64')}'`,
    `script-src ${LOCAL_TIME_SCRIPT_SOURCE}`,
    'img-src data:',
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');
}

export interface HtmlDocumentOptions {
  /** The tab title; " · Tierlink" is appended. */
  title: string;
  /** The page's one inline stylesheet; `contentSecurityPolicy` must allow it (see {@link pagePolicy}). */
  stylesheet: string;
  contentSecurityPolicy: string;
  /** The language of the page (`<html lang>`); English when absent. */
  lang?: string;
  /** The `class` of `<body>`, or null for none. */
  bodyClass: string | null;
  body: HtmlValue;
}

/** A complete HTML document around a page's body. */
export function renderHtmlDocument(o: HtmlDocumentOptions): string {
  const page = html`<!doctype html>
<html lang="${o.lang ?? 'en'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${o.contentSecurityPolicy}">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<meta name="color-scheme" content="light dark">
<title>${o.title} · Tierlink</title>
<link rel="icon" href="${FAVICON}">
<style>${trustedHtml(o.stylesheet)}</style>
</head>
<body${o.bodyClass === null ? null : html` class="${o.bodyClass}"`}>
${o.body}
<script>${trustedHtml(LOCAL_TIME_SCRIPT)}</script>
</body>
</html>
`;
  return page.toString();
}
