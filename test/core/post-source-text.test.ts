import { translator } from '../../src/core/i18n';
import { type ChannelNote, type PostSourceFacts, channelNoteWords } from '../../src/core/post-source-text';
import { englishIn } from '../support/english-leaks';

/** Where new posts come from, after saving the channels: English as the service wrote it, other languages from the facts. */

const facts: PostSourceFacts[] = [
  { code: 'no_scope' },
  { code: 'webhook' },
  { code: 'poll', why: 'no_webhook', minutes: 5 },
  { code: 'poll', why: 'webhook_no_posts', minutes: 5 },
  { code: 'poll', why: 'webhook_failing', minutes: 5 },
];
// The sentences src/app/admin/channel-settings.ts writes for them.
const english = [
  'New posts cannot be announced yet: the creator’s Patreon connection does not allow reading posts (campaigns.posts). **Fix:** The creator runs /connect again and allows Tierlink to read the campaign’s posts.',
  'New posts: new posts arrive with the campaign’s webhook.',
  'New posts: the campaign has no webhook of Tierlink, so Tierlink reads the campaign’s posts every 5 minutes.',
  'New posts: the campaign’s webhook does not carry posts yet, so Tierlink reads the campaign’s posts every 5 minutes.',
  'New posts: the campaign’s webhook is paused or failing, so Tierlink reads the campaign’s posts every 5 minutes.',
];
const notes: ChannelNote[] = facts.map((f, i) => ({ text: english[i]!, facts: f }));

test('English says the service’s sentence; the English catalogue says the same from the facts', () => {
  const en = translator('en');
  expect(notes.map((n) => channelNoteWords(en, n))).toEqual(english);
  const fromFacts = facts.map((f) =>
    f.code === 'poll'
      ? en('postSays.poll', { why: en(`postSays.poll.${f.why}`), minutes: f.minutes })
      : en(f.code === 'webhook' ? 'postSays.webhook' : 'postSays.noScope'),
  );
  expect(fromFacts).toEqual(english);
});

test.each(['de', 'es-ES', 'pt-BR'] as const)('in %s, each note is said with no English left', (locale) => {
  const t = translator(locale);
  const said = notes.map((n) => channelNoteWords(t, n));
  for (const s of said) expect(englishIn(s)).toEqual([]);
  expect(new Set(said).size).toBe(notes.length);
  expect(said[2]).toContain('5');
});
