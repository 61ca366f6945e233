import { LOCALES, type Locale, translator } from '../../src/core/i18n';
import { validateJoinSlug } from '../../src/core/join-slug';
import { refusalWords } from '../../src/core/refusal-text';
import { weakenings, weakeningsOf } from '../../src/core/settings-policy';
import { type SettingsFacts, settingsProblemWords } from '../../src/core/settings-problem-text';
import { checkCanPost } from '../../src/core/channel-access';
import type { GuildSettings } from '../../src/core/planner/types';
import { englishIn } from '../support/english-leaks';

/**
 * `/settings`' refusals that were English, said from their facts: the server's rules, messages to
 * patrons and the server's choices without Manage Server, a change that protects less without the
 * owner or an administrator, the channels (who may choose them, a channel refused), the join page's
 * address, the dashboard's fields, and "not a member of the server" (`/map`, `/unmap`, `/comp`,
 * `rule_role`). English keeps the service's own sentence.
 */

const OTHERS = LOCALES.filter((l): l is Exclude<Locale, 'en'> => l !== 'en');

const BEFORE = { graceDays: 7, removalThresholdPercent: 10, removalThresholdMin: 5, mode: 'stack', joinNonPatrons: false } as GuildSettings;
const AFTER = { graceDays: 1, removalThresholdPercent: 50, removalThresholdMin: 5, mode: 'highest', joinNonPatrons: true } as GuildSettings;

const channel = { id: 'c1', name: 'read-only', guildId: 'g', type: 0 };
const cannotPost = checkCanPost(
  channel,
  {
    guildId: 'g',
    ownerId: 'o',
    roles: [{ id: 'g', permissions: '0' }],
    memberId: 'b',
    memberRoleIds: [],
    overwrites: [],
  },
  { embeds: true },
);

const FACTS: SettingsFacts[] = [
  { code: 'rules_need_manage_server', rules: ['graceDays', 'removalThreshold', 'mode', 'joinNonPatrons'] },
  { code: 'weakens', changes: weakeningsOf(BEFORE, AFTER) },
  { code: 'messages_need_manage_server', on: true },
  { code: 'messages_need_manage_server', on: false },
  { code: 'choices_need_manage_server', choices: ['linkMessages', 'welcomeNames', 'previewThreshold', 'locale'] },
  { code: 'not_a_member' },
  { code: 'channels_need_manage_roles' },
  { code: 'channel_refused', setting: 'modLog', why: { code: 'hidden' } },
  { code: 'channel_refused', setting: 'announcePatrons', why: { code: 'unseen' } },
  { code: 'channel_refused', setting: 'announcePosts', why: { code: 'not_in_guild' } },
  { code: 'channel_refused', setting: 'announcePosts', why: { code: 'not_text', channel: 'rules' } },
  {
    code: 'channel_refused',
    setting: 'announcePosts',
    why: { code: 'cannot_post', channel: 'read-only', missing: cannotPost.ok ? [] : cannotPost.error.missing! },
  },
  ...(['ab', 'lümen', '1234', 'callback'].map((slug) => {
    const checked = validateJoinSlug(slug);
    if (checked.ok) throw new Error(`${slug} passed`);
    return checked.error.facts;
  }) as SettingsFacts[]),
  { code: 'slug_vanity', slug: 'lumen' },
  { code: 'slug_taken', slug: 'lumen' },
  { code: 'preview_threshold', min: 1, max: 1000 },
  { code: 'welcome_names', names: ['full', 'first', 'none'] },
  { code: 'server_language', languages: LOCALES },
];

test('English keeps the service’s own sentence; the weakenings’ words and facts are the same changes', () => {
  for (const facts of FACTS)
    expect(settingsProblemWords(translator('en'), { text: 'as the service wrote it', facts })).toBe('as the service wrote it');
  expect(weakenings(BEFORE, AFTER)).toEqual([
    'shortening the grace period from 7 to 1 day',
    'letting larger mass removals through the guard',
    'switching to highest mode, which takes lower tiers’ roles away',
    'opening the join page to people whose tier gives no role here',
  ]);
  expect(weakeningsOf(BEFORE, AFTER).map((w) => w.kind)).toEqual(['grace', 'guard', 'highest', 'open_join']);
  expect(cannotPost.ok ? [] : cannotPost.error.missing).toEqual(['View Channel', 'Send Messages', 'Embed Links']);
});

describe.each(OTHERS)('%s', (locale) => {
  const t = translator(locale);

  test.each(FACTS.map((facts, i) => [i, facts.code, facts] as const))(
    '%i %s: said in the language, no English left',
    (_i, _code, facts) => {
      const words = settingsProblemWords(t, { text: 'as the service wrote it', facts });
      expect(words).not.toBe('as the service wrote it');
      expect(englishIn(words)).toEqual([]);
    },
  );

  test('the names inside are the language’s: Discord’s permissions, the settings, the grace days', () => {
    const rules = settingsProblemWords(t, { text: '', facts: FACTS[0]! });
    expect(rules).toContain(t('settingsSays.policy.graceDays'));
    const weaker = settingsProblemWords(t, { text: '', facts: FACTS[1]! });
    expect(weaker).toContain(t('settingsSays.weakGrace', { from: 7, count: 1 }).slice(1));
    const post = settingsProblemWords(t, { text: '', facts: FACTS[11]! });
    expect(post).toContain(t('perm.Send Messages'));
    expect(post).toContain(t('perm.Embed Links'));
    expect(post).toContain('#read-only');
  });

  test('"not a member of the server" for /map, /unmap, /comp and rule_role, from its facts', () => {
    const words = refusalWords(t, {
      message: 'You are not a member of this server (any more), so Tierlink cannot read your roles here.',
      fix: 'Run the command from inside the server.',
      facts: { code: 'not_a_member', roleName: '' },
    });
    expect(words).toEqual({ message: t('refusal.notMember'), fix: t('refusal.notMemberFix') });
    expect(englishIn(`${words.message} ${words.fix}`)).toEqual([]);
  });
});
