import type { T } from './i18n';

/**
 * Where an announcement channel's news of new posts comes from, as facts (the announcements
 * service writes the English sentence where it decides; another language says it from these).
 */
export type PostSourceFacts =
  | { code: 'no_scope' }
  | { code: 'webhook' }
  | { code: 'poll'; why: 'no_webhook' | 'webhook_no_posts' | 'webhook_failing'; minutes: number };

/** A note after saving the channels: its English sentence and its facts. */
export interface ChannelNote {
  text: string;
  facts: PostSourceFacts;
}

/** A channel note in the reader's language: English as the service wrote it. */
export function channelNoteWords(t: T, note: ChannelNote): string {
  if (t.locale === 'en') return note.text;
  const { facts } = note;
  switch (facts.code) {
    case 'no_scope':
      return t('postSays.noScope');
    case 'webhook':
      return t('postSays.webhook');
    case 'poll':
      return t('postSays.poll', { why: t(`postSays.poll.${facts.why}`), minutes: facts.minutes });
  }
}
