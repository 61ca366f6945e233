import { type T, formatNumber, translator } from '../../../../core/i18n';
import { type SafeHtml, html, trustedHtml } from '../pages/html';

export interface DayCount {
  /** `YYYY-MM-DD`. */
  day: string;
  adds: number;
  removes: number;
}

const WIDTH = 480;
const HEIGHT = 200;
const PAD = { top: 12, right: 6, bottom: 30, left: 34 };

/** A rounded "nice" top for the axis: 1, 2, 5 × 10ⁿ at or above the largest day. */
function niceMax(value: number): number {
  if (value <= 4) return 4;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

const num = (n: number) => (Math.round(n * 10) / 10).toString();

/**
 * Applied role changes per day as an inline SVG of stacked bars (additions below, removals on top),
 * drawn on the server: no script, no image request. The SVG is an image with a text alternative,
 * and the same numbers follow as a table for screen readers and for anyone who wants the figures.
 */
export function renderDayChart(days: readonly DayCount[], titleId: string, t: T = translator('en')): SafeHtml {
  const n = (value: number) => formatNumber(t.locale, value);
  const max = niceMax(Math.max(0, ...days.map((d) => d.adds + d.removes)));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(days.length, 1);
  const barW = Math.max(2, slot * 0.62);
  const y = (v: number) => PAD.top + plotH - (v / max) * plotH;
  const parts: string[] = [];
  for (const tick of [0, max / 2, max]) {
    parts.push(`<line class="axis" x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${num(y(tick))}" y2="${num(y(tick))}"/>`);
    parts.push(`<text class="tick" x="${PAD.left - 6}" y="${num(y(tick) + 4)}" text-anchor="end">${n(tick)}</text>`);
  }
  days.forEach((d, i) => {
    const x = PAD.left + i * slot + (slot - barW) / 2;
    const addTop = y(d.adds);
    if (d.adds > 0)
      parts.push(`<rect class="bar-add" x="${num(x)}" y="${num(addTop)}" width="${num(barW)}" height="${num(y(0) - addTop)}" rx="2"/>`);
    if (d.removes > 0) {
      const top = y(d.adds + d.removes);
      parts.push(`<rect class="bar-remove" x="${num(x)}" y="${num(top)}" width="${num(barW)}" height="${num(addTop - top)}" rx="2"/>`);
    }
    // Every other day is labelled so the labels never collide on a phone.
    if (i % 2 === (days.length - 1) % 2) {
      parts.push(`<text class="tick" x="${num(x + barW / 2)}" y="${HEIGHT - 8}" text-anchor="middle">${d.day.slice(5)}</text>`);
    }
  });
  const total = days.reduce((sum, d) => sum + d.adds + d.removes, 0);
  const busiest = [...days].sort((a, b) => b.adds + b.removes - (a.adds + a.removes))[0];
  const summary =
    total === 0
      ? t('dashChart.none', { from: days[0]?.day ?? '', to: days.at(-1)?.day ?? '' })
      : t('dashChart.summary', {
          from: days[0]?.day ?? '',
          to: days.at(-1)?.day ?? '',
          total,
          busiest: busiest?.day ?? '',
          most: (busiest?.adds ?? 0) + (busiest?.removes ?? 0),
        });
  return html`<figure class="chart">
${trustedHtml(`<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${titleId}-summary" focusable="false">${parts.join('')}</svg>`)}
<figcaption><p class="visually-hidden" id="${titleId}-summary">${summary}</p><p class="legend" aria-hidden="true"><span><span class="swatch add"></span>${t('dashChart.given')}</span><span><span class="swatch remove"></span>${t('dashChart.taken')}</span></p></figcaption>
</figure>
<details><summary>${t('dashChart.figures')}</summary><div class="table-wrap"><table class="data"><thead><tr><th scope="col">${t('dashChart.day')}</th><th scope="col">${t('dashChart.colGiven')}</th><th scope="col">${t('dashChart.colTaken')}</th></tr></thead><tbody>${days.map(
    (d) => html`<tr><td>${d.day}</td><td class="num">${n(d.adds)}</td><td class="num">${n(d.removes)}</td></tr>`,
  )}</tbody></table></div></details>`;
}
