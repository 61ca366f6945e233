import { createHash } from 'node:crypto';
import { type SafeHtml, html } from './html';

/**
 * Times in the reader's own time zone. The server cannot know it (no request header carries it),
 * so a page writes each moment in UTC, labelled, inside `<time datetime="…" data-local="…">`, and
 * this one script, the only script any page runs, rewrites each such element's text in the
 * browser's time zone, in the page's language (the browser's own regional format when it speaks
 * the same language: `en-GB` reads 20/11/2026). Without JavaScript the UTC text stays, and says so.
 *
 * The script is fixed text: the Content-Security-Policy allows it by its hash and nothing else
 * (see `pagePolicy` in src/edges/inbound/web/pages/document.ts). It reads only the elements'
 * `datetime` attributes, which the server wrote from dates, and writes only text.
 */
export const LOCAL_TIME_SCRIPT =
  "(function(){var d=document,l=d.documentElement.lang||'en',n=navigator.language||l;" +
  "if(n.split('-')[0].toLowerCase()===l.split('-')[0].toLowerCase())l=n;" +
  "var o={day:{year:'numeric',month:'long',day:'numeric'}," +
  "minute:{year:'numeric',month:'2-digit',day:'2-digit',hour:'2-digit',minute:'2-digit',timeZoneName:'short'}};" +
  "d.querySelectorAll('time[data-local]').forEach(function(e){var t=new Date(e.getAttribute('datetime')),f=o[e.getAttribute('data-local')];" +
  'if(!f||isNaN(t.getTime()))return;try{e.title=e.textContent;e.textContent=new Intl.DateTimeFormat(l,f).format(t)}catch(x){}})})();';

/** The script's hash, as a Content-Security-Policy source. */
export const LOCAL_TIME_SCRIPT_SOURCE = `'sha256-${createHash('sha256').update(LOCAL_TIME_SCRIPT).digest('base64')}'`;

/** A moment to the minute: `text` (its UTC form) until the browser writes it in the reader's time zone. */
export function localMoment(date: Date, text: string): SafeHtml {
  return html`<time datetime="${date.toISOString()}" data-local="minute">${text}</time>`;
}

/** A day: `text` (the UTC day) until the browser writes the day in the reader's time zone. */
export function localDay(date: Date, text: string): SafeHtml {
  return html`<time datetime="${date.toISOString()}" data-local="day">${text}</time>`;
}
