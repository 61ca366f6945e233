import { ChannelPermission, channelPermissions, checkCanPost } from '../../src/core/channel-access';

const GUILD = '100000000000000001';
const BOT = '100000000000000002';
const BOT_ROLE = '100000000000000003';
const OTHER_ROLE = '100000000000000004';
const OWNER = '100000000000000009';
const { ViewChannel: VIEW, SendMessages: SEND, EmbedLinks: EMBED } = ChannelPermission;

const facts = (
  overwrites: Array<{ id: string; type: number; allow?: bigint; deny?: bigint }>,
  everyone = VIEW | SEND | EMBED,
  bot = 0n,
) => ({
  guildId: GUILD,
  ownerId: OWNER,
  roles: [
    { id: GUILD, permissions: everyone.toString() },
    { id: BOT_ROLE, permissions: bot.toString() },
    { id: OTHER_ROLE, permissions: (1n << 3n).toString() },
  ],
  memberId: BOT,
  memberRoleIds: [BOT_ROLE],
  overwrites: overwrites.map((o) => ({ id: o.id, type: o.type, allow: (o.allow ?? 0n).toString(), deny: (o.deny ?? 0n).toString() })),
});
const channel = { id: '100000000000000050', name: 'mod-log', guildId: GUILD, type: 0 };

describe("channelPermissions (Discord's order: @everyone, roles together, the member; deny before allow)", () => {
  test.each([
    ['no overwrites: the guild-level bits', [], VIEW | SEND | EMBED],
    ['@everyone denied Send', [{ id: GUILD, type: 0, deny: SEND }], VIEW],
    [
      '@everyone denied Send, the bot role allowed it back',
      [
        { id: GUILD, type: 0, deny: SEND },
        { id: BOT_ROLE, type: 0, allow: SEND },
      ],
      VIEW | SEND | EMBED,
    ],
    [
      'a role allow beats a role deny at the same stage',
      [
        { id: BOT_ROLE, type: 0, deny: SEND },
        { id: BOT_ROLE, type: 0, allow: SEND },
      ],
      VIEW | SEND | EMBED,
    ],
    [
      'the member overwrite comes last',
      [
        { id: BOT_ROLE, type: 0, allow: SEND },
        { id: BOT, type: 1, deny: SEND },
      ],
      VIEW,
    ],
    [
      'a role the bot lacks does not count',
      [
        { id: GUILD, type: 0, deny: VIEW },
        { id: OTHER_ROLE, type: 0, allow: VIEW },
      ],
      0n,
    ],
    ['no View Channel: nothing else counts', [{ id: BOT_ROLE, type: 0, deny: VIEW }], 0n],
    ['no Send Messages: Embed Links does not count', [{ id: GUILD, type: 0, deny: SEND }], VIEW],
  ])('%s', (_name, overwrites, expected) => {
    expect(channelPermissions(facts(overwrites))).toBe(expected);
  });

  test('Administrator and the owner pass every overwrite', () => {
    const denyAll = [{ id: GUILD, type: 0, deny: VIEW | SEND | EMBED }];
    expect(channelPermissions(facts(denyAll, 0n, 1n << 3n)) & VIEW).toBe(VIEW);
    expect(channelPermissions({ ...facts(denyAll, 0n), memberId: OWNER }) & SEND).toBe(SEND);
  });
});

describe('checkCanPost', () => {
  test('names every permission missing, and Embed Links only when the messages carry embeds', () => {
    const readOnly = facts([{ id: GUILD, type: 0, deny: SEND }]);
    const withEmbeds = checkCanPost(channel, readOnly, { embeds: true });
    expect(withEmbeds).toEqual({
      ok: false,
      error: expect.objectContaining({
        code: 'cannot_post',
        message: 'Tierlink cannot post in #mod-log: it lacks Send Messages, Embed Links there.',
      }),
    });
    expect(checkCanPost(channel, readOnly, { embeds: false })).toEqual({
      ok: false,
      error: expect.objectContaining({ message: 'Tierlink cannot post in #mod-log: it lacks Send Messages there.' }),
    });
    expect(checkCanPost(channel, facts([]), { embeds: true })).toEqual({ ok: true, value: undefined });
  });

  test('refuses a channel of another server and a channel that is not a text channel', () => {
    expect(checkCanPost({ ...channel, guildId: '100000000000000077' }, facts([]), { embeds: false })).toMatchObject({
      ok: false,
      error: { code: 'not_in_guild' },
    });
    expect(checkCanPost({ ...channel, type: 2 }, facts([]), { embeds: false })).toMatchObject({ ok: false, error: { code: 'not_text' } });
    expect(checkCanPost({ ...channel, type: 5 }, facts([]), { embeds: false }).ok).toBe(true);
  });
});
