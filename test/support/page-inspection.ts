/**
 * What a page looks like to a person, measured in the browser (Chromium through playwright-core):
 * sideways scrolling, clipped text, text below WCAG contrast, whether the stylesheet applied, where
 * the headline and the next step sit. Shared by the pages' and the dashboard's browser tests.
 */

/** What the page looks like to a person, measured in the browser. */
export interface Inspection {
  /** The viewport the test asked for (a mobile browser widens `innerWidth` to fit what overflows). */
  width: number;
  height: number;
  scrollWidth: number;
  styled: boolean;
  bodyLuminance: number;
  overflowing: string[];
  headline: { top: number; bottom: number; text: string } | null;
  nextStep: { top: number; bottom: number; text: string } | null;
  lowContrast: string[];
}

/** The little of the DOM that {@link inspectPage} uses (the project compiles without the DOM lib). */
interface DomRect {
  left: number;
  right: number;
  top: number;
  bottom: number;
  width: number;
}
interface DomElement {
  tagName: string;
  textContent: string | null;
  parentElement: DomElement | null;
  childNodes: ArrayLike<{ nodeType: number; textContent: string | null }>;
  scrollWidth: number;
  clientWidth: number;
  closest(selector: string): DomElement | null;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): DomRect;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
}
interface DomStyle {
  color: string;
  backgroundColor: string;
  overflowX: string;
  textOverflow: string;
  visibility: string;
  fontSize: string;
  fontWeight: string;
  borderTopLeftRadius: string;
}
interface PageGlobals {
  document: { body: DomElement; documentElement: DomElement; querySelector(selector: string): DomElement | null };
  innerWidth: number;
  innerHeight: number;
  getComputedStyle(el: DomElement): DomStyle;
}

/**
 * Runs in the page (keep it self-contained: it is sent as source). Contrast follows WCAG 2.x:
 * 4.5:1 for body text, 3:1 for large text, against the composited background behind the text.
 */
export function inspectPage(viewport: { width: number; height: number }): Inspection {
  const { document, getComputedStyle } = globalThis as unknown as PageGlobals;
  const TEXT_NODE = 3;
  const parse = (c: string): number[] => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m || !m[1]) return [0, 0, 0, 0];
    const parts = m[1]
      .split(/[\s,/]+/)
      .filter(Boolean)
      .map(Number);
    return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0, parts.length > 3 ? (parts[3] ?? 1) : 1];
  };
  const over = (top: number[], bottom: number[]): number[] => {
    const a = top[3] ?? 1;
    return [0, 1, 2].map((i) => (top[i] ?? 0) * a + (bottom[i] ?? 0) * (1 - a)).concat(1);
  };
  const luminance = (c: number[]): number => {
    const lin = (v: number): number => {
      const s = v / 255;
      return s <= 0.04045 ? s / 12.92 : Math.pow((s + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * lin(c[0] ?? 0) + 0.7152 * lin(c[1] ?? 0) + 0.0722 * lin(c[2] ?? 0);
  };
  const backgroundOf = (el: DomElement | null): number[] => {
    const layers: number[][] = [];
    for (let e = el; e; e = e.parentElement) {
      const bg = parse(getComputedStyle(e).backgroundColor);
      if ((bg[3] ?? 0) > 0) layers.push(bg);
      if ((bg[3] ?? 0) >= 1) break;
    }
    let color = [255, 255, 255, 1];
    for (let i = layers.length - 1; i >= 0; i--) color = over(layers[i] ?? color, color);
    return color;
  };
  const describe = (el: DomElement): string => {
    const cls = el.getAttribute('class');
    return `${el.tagName.toLowerCase()}${cls ? '.' + cls.split(' ').join('.') : ''} "${(el.textContent ?? '').trim().slice(0, 40)}"`;
  };
  const hidden = (el: DomElement): boolean => el.closest('.visually-hidden') !== null;
  const rectOf = (el: DomElement | null) => {
    if (!el) return null;
    const r = el.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, text: (el.textContent ?? '').trim().slice(0, 80) };
  };

  const overflowing: string[] = [];
  const lowContrast: string[] = [];
  for (const el of Array.from(document.body.querySelectorAll('*'))) {
    if (hidden(el) || el.closest('svg')) continue;
    const style = getComputedStyle(el);
    const r = el.getBoundingClientRect();
    if (r.width > 0 && (r.right > viewport.width + 0.5 || r.left < -0.5)) overflowing.push(`${describe(el)} spans ${r.left}..${r.right}`);
    // Inline boxes report a clientWidth of 0; block boxes whose content is wider than they are either
    // clip it or let it spill over the next box.
    // A select shows its chosen option on one line and every option whole in its picker: one
    // longer than the box on a narrow phone ends in an ellipsis there, which is what a select is for.
    const ellipsised = el.tagName === 'SELECT' && style.textOverflow === 'ellipsis';
    if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1 && !ellipsised) {
      overflowing.push(`${describe(el)} ${style.overflowX === 'visible' ? 'overflows its box' : 'clips its content'}`);
    }
    const ownText = Array.from(el.childNodes).some((n) => n.nodeType === TEXT_NODE && (n.textContent ?? '').trim() !== '');
    if (!ownText || r.width === 0 || style.visibility === 'hidden') continue;
    const fg = parse(style.color);
    const bg = backgroundOf(el);
    const text = over(fg, bg);
    const [hi, lo] = [luminance(text), luminance(bg)].sort((a, b) => b - a);
    const ratio = ((hi ?? 0) + 0.05) / ((lo ?? 0) + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5))
      lowContrast.push(`${describe(el)} ${ratio.toFixed(2)}:1 (${style.color} on rgb(${bg.slice(0, 3).map(Math.round).join(',')}))`);
  }
  const card = document.querySelector('.card, .panel');
  return {
    width: viewport.width,
    height: viewport.height,
    scrollWidth: document.documentElement.scrollWidth,
    styled: card !== null && getComputedStyle(card).borderTopLeftRadius !== '0px',
    bodyLuminance: luminance(backgroundOf(document.body)),
    overflowing,
    headline: rectOf(document.querySelector('h1')),
    nextStep: rectOf(document.querySelector('[data-next-step] li')),
    lowContrast,
  };
}

/**
 * What a person would find wrong in one look at a page (`look` names it: "phone dark"), as
 * sentences, so one test can check several looks and its failure says which broke.
 */
export function lookProblems(
  look: string,
  seen: Inspection,
  expect: {
    scheme: 'light' | 'dark';
    /** A phone: the headline must sit on the first screen. */
    mobile: boolean;
    /** The page must show a next step (and on a phone, all of it on the first screen). */
    nextStep: boolean;
  },
): string[] {
  const problems: string[] = [];
  const say = (what: string) => problems.push(`${look}: ${what}`);
  // The stylesheet applied under the page's own Content-Security-Policy.
  if (!seen.styled) say('the stylesheet did not apply');
  if (expect.scheme === 'dark' && !(seen.bodyLuminance < 0.05)) say(`background luminance ${seen.bodyLuminance} is not dark`);
  if (expect.scheme === 'light' && !(seen.bodyLuminance > 0.8)) say(`background luminance ${seen.bodyLuminance} is not light`);
  if (seen.scrollWidth > seen.width) say(`scrolls sideways (${seen.scrollWidth} px in ${seen.width})`);
  for (const o of seen.overflowing) say(o);
  for (const c of seen.lowContrast) say(`low contrast: ${c}`);
  if (!seen.headline) say('no headline');
  else if (seen.headline.top < 0 || seen.headline.bottom > seen.height)
    say(`headline outside the first screen (${seen.headline.top}–${seen.headline.bottom})`);
  if (expect.nextStep) {
    if (!seen.nextStep) say('no next step');
    else if (expect.mobile && seen.nextStep.bottom > seen.height)
      say(`next step ends below the first screen (${seen.nextStep.bottom} > ${seen.height})`);
  }
  return problems;
}
