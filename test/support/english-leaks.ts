import { ENGLISH, textsOf } from '../../src/core/i18n';

/**
 * The English sentences of the catalogue, cut at their placeholders and markup into pieces of at
 * least four words: a piece found in a reply or a page in another language is English that was
 * never translated (a string left inline, or a key read from the wrong catalogue).
 */
const PIECES: readonly string[] = [
  ...new Set(
    Object.values(ENGLISH)
      .flatMap(textsOf)
      .flatMap((text) => text.split(/\{[A-Za-z0-9_]+\}|<[^>]+>|\*\*/))
      .map((piece) => piece.trim())
      .filter((piece) => piece.split(/\s+/).length >= 4),
  ),
];

/** The English pieces in `text` (a reply, or a page's visible text); [] when none. */
export function englishIn(text: string): string[] {
  const plain = text
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
  return PIECES.filter((piece) => plain.includes(piece));
}
