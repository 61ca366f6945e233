import { parseTierRoleIds, roleIdsForGuild } from '../../src/edges/outbound/patreon';

const R1 = '111111111111111111';
const R2 = '222222222222222222';
const R3 = '33333333333333333333'; // 20 digits
const G1 = '900000000000000001';
const G2 = '900000000000000002';

describe('parseTierRoleIds (chat_role_ids / discord_role_ids)', () => {
  it.each<[string, Record<string, unknown>, { everywhere: string[]; byGuild: Record<string, string[]> }]>([
    ['absent', {}, { everywhere: [], byGuild: {} }],
    ['null', { chat_role_ids: null, discord_role_ids: null }, { everywhere: [], byGuild: {} }],
    ['an array', { discord_role_ids: [R1, R2] }, { everywhere: [R1, R2], byGuild: {} }],
    ['an object of ids', { chat_role_ids: { gold: R1, vip: R3 } }, { everywhere: [R1, R3], byGuild: {} }],
    ['an object of arrays', { chat_role_ids: { discord: [R1, R2] } }, { everywhere: [R1, R2], byGuild: {} }],
    ['keyed by guild id', { chat_role_ids: { [G1]: [R1], [G2]: R2 } }, { everywhere: [], byGuild: { [G1]: [R1], [G2]: [R2] } }],
    ['guild keys and other keys mixed', { chat_role_ids: { [G1]: [R1], discord: [R2] } }, { everywhere: [R2], byGuild: { [G1]: [R1] } }],
    [
      'both fields, merged without duplicates',
      { chat_role_ids: { discord: [R1, R2] }, discord_role_ids: [R2, R3] },
      { everywhere: [R1, R2, R3], byGuild: {} },
    ],
    ['a single id string', { discord_role_ids: R1 }, { everywhere: [R1], byGuild: {} }],
    [
      'junk: numbers, short ids, nested objects, booleans, non-digit strings',
      {
        chat_role_ids: { a: Number('111111111111111111'), b: '123', c: { d: R1 }, e: true, f: ['abc', R2, null, 7] },
        discord_role_ids: 'not-an-id',
      },
      { everywhere: [R2], byGuild: {} },
    ],
    ['a guild key with no usable ids', { chat_role_ids: { [G1]: ['x'], [G2]: [] } }, { everywhere: [], byGuild: {} }],
    ['a 21-digit string is not a snowflake', { discord_role_ids: ['123456789012345678901', R1] }, { everywhere: [R1], byGuild: {} }],
    ['wrong top-level types', { chat_role_ids: 42, discord_role_ids: true }, { everywhere: [], byGuild: {} }],
  ])('%s', (_label, attributes, expected) => {
    expect(parseTierRoleIds(attributes)).toEqual(expected);
  });

  it('gives each guild the everywhere roles plus its own', () => {
    const parsed = parseTierRoleIds({ chat_role_ids: { [G1]: [R1, R2], discord: [R2] }, discord_role_ids: [R3] });
    expect(roleIdsForGuild(parsed, G1)).toEqual([R2, R3, R1]);
    expect(roleIdsForGuild(parsed, G2)).toEqual([R2, R3]);
  });
});
