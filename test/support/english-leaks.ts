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

/**
 * The visible sentences of a page's `<main>` (text between tags, entities decoded, cut after a
 * full stop, colon, semicolon or question mark) of at least three words.
 */
export function sentencesOf(html: string): string[] {
  const main = /<main\b[^>]*>([\s\S]*)<\/main>/.exec(html)?.[1] ?? html;
  return [
    ...new Set(
      main
        .replace(/<(script|style)\b[\s\S]*?<\/\1>/g, ' ')
        .split(/<[^>]+>/)
        .map((piece) =>
          piece
            .replace(/&#39;/g, "'")
            .replace(/&quot;/g, '"')
            .replace(/&lt;/g, '<')
            .replace(/&gt;/g, '>')
            .replace(/&amp;/g, '&')
            .replace(/\s+/g, ' ')
            .trim(),
        )
        .flatMap((piece) => piece.split(/(?<=[.:;?!])\s+/))
        .filter((piece) => piece.split(' ').length >= 3),
    ),
  ];
}

/**
 * The sentences of the English page still found in the same page in another language: English
 * left inline in the code (never put in the catalogue), which {@link englishIn} cannot know.
 * `data` are sentences that are the server's own data (names, a service's English record), allowed.
 */
export function englishLeftIn(englishHtml: string, otherHtml: string, data: readonly string[] = []): string[] {
  const other = sentencesOf(otherHtml).join('\n');
  return sentencesOf(englishHtml).filter((sentence) => other.includes(sentence) && !data.some((d) => sentence.includes(d)));
}
