import {
  MOD_LOG_MAX_LINES,
  type ModLogChange,
  audienceOf,
  composeModLog,
  composePostAnnouncement,
  composeWelcome,
  plainText,
  welcomeWho,
} from '../../src/core/channel-posts';
import { NO_CHANNELS, applyChannelChange } from '../../src/core/guild-channels';
import { translator } from '../../src/core/i18n';

const change = (userId: string, over: Partial<ModLogChange> = {}): ModLogChange => ({
  userId,
  roleId: '200000000000000001',
  action: 'add',
  outcome: 'applied',
  trigger: 'sync',
  reason: 'Gold tier (active patron)',
  error: null,
  ...over,
});

describe('composeModLog', () => {
  test('one line per member and trigger, with what became of each change', () => {
    const [message, ...rest] = composeModLog([
      change('1001'),
      change('1002', { action: 'remove', outcome: 'held', reason: 'no longer entitled' }),
      change('1001', { roleId: '200000000000000002' }),
      change('1001', { trigger: 'webhook', outcome: 'failed', error: 'missing_permissions: Discord refused' }),
    ]);
    expect(rest).toEqual([]);
    const embed = message!.embeds![0] as { title: string; description: string; footer: { text: string } };
    expect(embed.description.split('\n')).toEqual([
      '<@1001> · sync: +<@&200000000000000001> +<@&200000000000000002> · Gold tier (active patron)',
      '<@1002> · sync: −<@&200000000000000001> (held by the mass-removal guard) · no longer entitled',
      '<@1001> · webhook: +<@&200000000000000001> (failed: missing_permissions) · Gold tier (active patron)',
    ]);
    expect(embed.footer.text).toBe('Tierlink · 4 changes');
    expect(message!.content).toBeUndefined();
  });

  test('a large batch lists the first members and counts the rest; every message stays within Discord’s limits', () => {
    // i % 3 === 0 removes: 100 of 300, 14 of them among the first 40 (0, 3, …, 39).
    const changes = Array.from({ length: 300 }, (_, i) =>
      change(String(10_000 + i), { action: i % 3 === 0 ? 'remove' : 'add', reason: 'x'.repeat(200) }),
    );
    const messages = composeModLog(changes);
    const lines = messages.flatMap((m) => String((m.embeds![0] as { description: string }).description).split('\n'));
    expect(lines).toHaveLength(MOD_LOG_MAX_LINES + 1);
    expect(lines.at(-1)).toBe(
      `…and ${300 - MOD_LOG_MAX_LINES} more members (sync: ${200 - 26} added, ${100 - 14} removed). Every change is in \`/audit\` and the dashboard's audit log.`,
    );
    for (const m of messages) {
      const embed = m.embeds![0] as { title: string; description: string; footer: { text: string } };
      expect([...embed.description].length).toBeLessThanOrEqual(4096);
      expect([...embed.title].length + [...embed.description].length + [...embed.footer.text].length).toBeLessThanOrEqual(6000);
    }
  });

  test('composing the same rows twice gives the same messages (a restart resumes the same batch)', () => {
    const rows = Array.from({ length: 90 }, (_, i) => change(String(20_000 + i)));
    expect(composeModLog(rows)).toEqual(composeModLog(rows));
    expect(composeModLog([])).toEqual([]);
  });

  test('in the server’s language, each reason is said from its code; a row recorded before codes were stays as recorded', () => {
    const de = translator('de');
    const gold = { code: 'tier', tier: 'Gold', standing: { kind: 'active', basis: 'pledge', graceEndsAt: null } } as const;
    const [message] = composeModLog(
      [change('1001', { why: gold }), change('1002', { action: 'remove', reason: 'no longer entitled to Gold: former patron', why: null })],
      de,
    );
    const description = String((message!.embeds![0] as { description: string }).description);
    expect(description).toContain(`<@1001> · ${de('trigger.sync')}: +<@&200000000000000001> · Stufe Gold (aktives Mitglied)`);
    expect(description).toContain('<@1002>');
    expect(description).toContain(' · no longer entitled to Gold: former patron');
    expect(description).not.toContain('Gold tier (active patron)');
    // English keeps the recorded sentence.
    const [english] = composeModLog([change('1001', { why: gold })]);
    expect(String((english!.embeds![0] as { description: string }).description)).toContain(' · Gold tier (active patron)');
  });
});

describe('announcements', () => {
  test('a welcome names the member by mention (pinging no one by allowed_mentions) or their server name, escaped, or nobody', () => {
    expect(composeWelcome({ who: { kind: 'mention', userId: '1234' }, tierTitles: ['Gold'] }).content).toBe(
      '🎉 Welcome <@1234>, our newest patron (Gold)! Thank you for your support.',
    );
    expect(composeWelcome({ who: { kind: 'name', name: '@everyone **hi**\n<@1>' }, tierTitles: [] }).content).toBe(
      '🎉 Welcome **@\u200beveryone \\*\\*hi\\*\\* \\<@\u200b1\\>**, our newest patron! Thank you for your support.',
    );
    expect(composeWelcome({ who: null, tierTitles: ['Gold'] }).content).toBe(
      '🎉 Welcome to our newest patron (Gold)! Thank you for your support.',
    );
  });

  test('a welcome names only a linked member in the server who shows their pledges and did not opt out, as the policy allows', () => {
    const nia = { discordUserId: '1234', nameInServer: 'Nia', hidesPledges: false, optedOut: false };
    expect(welcomeWho('mention', nia)).toEqual({ kind: 'mention', userId: '1234' });
    expect(welcomeWho('display_name', nia)).toEqual({ kind: 'name', name: 'Nia' });
    expect(welcomeWho('none', nia)).toBeNull();
    expect(welcomeWho('mention', { ...nia, discordUserId: null })).toBeNull();
    expect(welcomeWho('mention', { ...nia, nameInServer: null })).toBeNull();
    expect(welcomeWho('mention', { ...nia, hidesPledges: true })).toBeNull();
    expect(welcomeWho('mention', { ...nia, hidesPledges: null })).toBeNull();
    expect(welcomeWho('display_name', { ...nia, optedOut: true })).toBeNull();
  });

  test('a post: its title linking to it and who can see it', () => {
    expect(audienceOf({ isPublic: true, tierTitles: ['Gold'] })).toBe('Everyone (public post)');
    expect(audienceOf({ isPublic: false, tierTitles: ['Gold', 'Silver'] })).toBe('Gold, Silver');
    expect(audienceOf({ isPublic: null, tierTitles: [] })).toBe('Patrons only');
    const message = composePostAnnouncement({
      title: 'T'.repeat(300),
      url: 'https://www.patreon.com/posts/1',
      isPublic: false,
      tierTitles: ['Gold'],
      campaignName: 'Fan *Club*',
    });
    const embed = message.embeds![0] as { title: string; url: string; description: string };
    expect([...embed.title]).toHaveLength(256);
    expect(embed.url).toBe('https://www.patreon.com/posts/1');
    expect(embed.description).toBe('A new post was published on Fan \\*Club\\*.');
    expect(composePostAnnouncement({ title: null, url: null, isPublic: true, tierTitles: [], campaignName: null }).embeds![0]).toEqual({
      title: 'A new post',
      description: 'A new post was published.',
      fields: [{ name: 'Who can see it', value: 'Everyone (public post)' }],
    });
    expect(plainText('a'.repeat(100), 10)).toBe(`${'a'.repeat(9)}…`);
  });
});

describe('applyChannelChange', () => {
  const t0 = new Date('2026-11-01T00:00:00Z');
  const t1 = new Date('2026-11-02T00:00:00Z');
  test('an announcement channel counts from when it was first set; moving it keeps that; turning it off clears it', () => {
    const set = applyChannelChange(NO_CHANNELS, { announcePosts: '1', modLog: '2' }, t0);
    expect(set).toEqual({ ...NO_CHANNELS, modLogChannelId: '2', announcePostsChannelId: '1', announcePostsSince: t0 });
    expect(applyChannelChange(set, { announcePosts: '3' }, t1)).toMatchObject({ announcePostsChannelId: '3', announcePostsSince: t0 });
    expect(applyChannelChange(set, { announcePosts: null }, t1)).toMatchObject({ announcePostsChannelId: null, announcePostsSince: null });
    expect(applyChannelChange(set, {}, t1)).toEqual(set);
  });
});
